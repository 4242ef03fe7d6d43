//
// PoolManagerPrune.cpp
//
// Library: BlueTusk/Pooling
//
// The pools' pruning thread: every Prune Interval it asks each pool's eviction policy which idle sessions
// to close (EndpointPool::prunePool(), through EvictionCall: bounded for a site policy, so that stopping the
// thread never waits on a slow policy; doc/plugins.md), then runs the pruning hook (storm control).
//

#include "BlueTusk/PoolManager.h"
#include "PoolManagerImpl.h"
#include "Poco/Exception.h"
#include <chrono>

namespace BlueTusk {

void PoolManager::Impl::pruneLoop()
{
	std::unique_lock<std::mutex> lock(mutex);
	while (!stopPruning)
	{
		pruneWakeUp.wait_for(lock, std::chrono::microseconds(options.pruneInterval.totalMicroseconds()),
			[this] { return stopPruning; });
		if (stopPruning) break;
		std::vector<EndpointPool*> snapshot;
		for (auto& pool: pools) snapshot.push_back(pool.get());
		lock.unlock();
		for (EndpointPool* pool: snapshot)
		{
			try
			{
				pool->prunePool(true);
			}
			catch (Poco::Exception& exc)
			{
				logger.error(redactor.redact("pruning " + pool->endpoint().toString() + " failed: " + exc.displayText()));
			}
			catch (std::exception& exc)
			{
				logger.error(redactor.redact("pruning " + pool->endpoint().toString() + " failed: " + exc.what()));
			}
		}
		lock.lock();
		if (!pruningHook || stopPruning) continue;
		std::function<void(PoolManager&)> hook = pruningHook;
		lock.unlock();
		try
		{
			hook(*owner);
		}
		catch (Poco::Exception& exc)
		{
			logger.error(redactor.redact("the pruning hook failed: " + exc.displayText()));
		}
		catch (std::exception& exc)
		{
			logger.error(redactor.redact(std::string("the pruning hook failed: ") + exc.what()));
		}
		lock.lock();
	}
}


void PoolManager::setPruningHook(std::function<void(PoolManager&)> hook)
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	_impl->pruningHook = std::move(hook);
}


int PoolManager::prune()
{
	int closed = 0;
	for (EndpointPool* pool: pools()) closed += pool->prune();
	return closed;
}


void PoolManager::stopPruning()
{
	std::lock_guard<std::mutex> joinLock(_impl->prunerMutex);
	{
		std::lock_guard<std::mutex> lock(_impl->mutex);
		_impl->stopPruning = true;
	}
	_impl->pruneWakeUp.notify_all();
	if (_impl->pruner.joinable()) _impl->pruner.join();
}

} // namespace BlueTusk
