//
// EndpointPoolCheck.cpp
//
// Library: BlueTusk/Pooling
//
// An idle session lent to a background health check (the connector's health monitor watches roles through
// idle pooled sessions, doc/high-availability.md) and given back in its old place.
//

#include "BlueTusk/PoolManager.h"
#include "PoolManagerImpl.h"

namespace BlueTusk {

PoolEntryPtr EndpointPool::takeIdleForCheck(Poco::Timespan idleAtLeast)
{
	PoolManager::Impl& m = *_manager._impl;
	std::lock_guard<std::mutex> lock(m.mutex);
	// Two idle sessions or more, nobody waiting: the check never takes what a checkout needs now.
	if (_impl->draining || _impl->pending > 0 || _impl->idle.size() < 2) return nullptr;
	PoolEntryPtr& oldest = _impl->idle.front();
	if (oldest->session->isBroken()) return nullptr;
	if (m.clock->now() - oldest->info.lastReturned < idleAtLeast.totalMicroseconds()) return nullptr;
	PoolEntryPtr entry = std::move(oldest);
	_impl->idle.erase(_impl->idle.begin());
	++_impl->busy;
	entry->pool = this;
	return entry;
}


void EndpointPool::returnChecked(PoolEntryPtr entry, bool close)
{
	if (!entry) return;
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	std::lock_guard<std::mutex> lock(m.mutex);
	if (close || _impl->draining || !m.options.keepIdle || entry->session->isBroken())
	{
		m.discardLocked(*this, std::move(entry->session), false, closer);
		return;
	}
	if (m.handOffLocked(*this, entry, closer)) return;
	_impl->idle.insert(_impl->idle.begin(), std::move(entry));
	--_impl->busy;
}

} // namespace BlueTusk
