//
// PoolManager.cpp
//
// Library: BlueTusk/Pooling
//
// The pools of one data source and the hand-offs of their shared first-come-first-served waiting queue
// (doc/pooling.md); the wait itself is PoolManagerWait.cpp, the pruning thread PoolManagerPrune.cpp.
//

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/BlueTuskException.h"
#include "PoolManagerImpl.h"
#include "Poco/Exception.h"

namespace BlueTusk {

//
// Detail::SessionCloser
//

namespace Detail {

void SessionCloser::add(Session::Ptr session)
{
	if (!session) return;
	_tasks.push_back(Task{nullptr, std::move(session)});
	++_sessions;
}


void SessionCloser::wakeLater(std::shared_ptr<PoolWaiter> waiter)
{
	_tasks.push_back(Task{std::move(waiter), nullptr});
}


void SessionCloser::closeAll()
{
	std::vector<Task> tasks;
	tasks.swap(_tasks);
	_sessions = 0;
	// The waiters first: a woken checkout can take its grant while the sessions close.
	for (Task& task: tasks)
	{
		if (task.waiter) task.waiter->wakeUp.notify_one();
	}
	for (Task& task: tasks)
	{
		if (!task.session) continue;
		try
		{
			if (_logger.debug())
				_logger.debug("closing pooled session to " + _redactor.redact(task.session->endpoint().toString()));
			task.session->close();
		}
		catch (...)
		{
			// Session::close() never throws; a session that does is dropped all the same.
		}
		try
		{
			task.session.reset();
		}
		catch (...)
		{
		}
	}
}


std::size_t SessionCloser::size() const
{
	return _sessions;
}

} // namespace Detail


//
// PoolManager::Impl
//

PoolManager::Impl::Impl(const ConnectionSettings& settings_, SessionFactory::Ptr factory_,
		EvictionPolicy::Ptr eviction_, const Options& options_, PoolClock::Ptr clock_):
	settings(settings_),
	redactor(settings_.redactor()),
	factory(std::move(factory_)),
	eviction(std::move(eviction_)),
	options(options_),
	clock(clock_ ? std::move(clock_) : std::make_shared<PoolClock>()),
	logger(Poco::Logger::get("BlueTusk.Pooling")),
	evictionCall(eviction, options.fallbackEviction, settings, logger, redactor)
{
}


EndpointPool::Impl& PoolManager::Impl::state(EndpointPool& pool)
{
	return *pool._impl;
}


const EndpointPool::Impl& PoolManager::Impl::state(const EndpointPool& pool)
{
	return *pool._impl;
}


bool PoolManager::Impl::hasRoomLocked(const EndpointPool& pool) const
{
	const EndpointPool::Impl& s = state(pool);
	return s.maxSize <= 0 || s.total() < s.maxSize;
}


PoolEntryPtr PoolManager::Impl::takeIdleLocked(EndpointPool& pool, Detail::SessionCloser& closer)
{
	EndpointPool::Impl& s = state(pool);
	if (s.draining) return nullptr;
	while (!s.idle.empty())
	{
		PoolEntryPtr entry = std::move(s.idle.back());
		s.idle.pop_back();
		if (entry->session->isBroken())
		{
			++s.closed;
			closer.add(std::move(entry->session));
			continue;
		}
		++s.busy;
		entry->pool = &pool;
		return entry;
	}
	return nullptr;
}


bool PoolManager::Impl::reserveLocked(EndpointPool& pool)
{
	EndpointPool::Impl& s = state(pool);
	if (s.draining || !hasRoomLocked(pool) || !mayConnectLocked(pool)) return false;
	++s.busy;
	++s.connecting;
	return true;
}


PoolShortage PoolManager::Impl::shortageLocked(const EndpointPool& pool) const
{
	const EndpointPool::Impl& s = state(pool);
	if (s.draining) return PoolShortage::Draining;
	if (s.refusedUntil != 0 && Poco::Timestamp().epochMicroseconds() < s.refusedUntil) return PoolShortage::Refused;
	// Full: no room, or no more room than the checkouts already waiting for this pool will take.
	if (s.maxSize > 0 && s.total() + s.pending >= s.maxSize) return PoolShortage::Full;
	return PoolShortage::Opening;
}


bool PoolManager::Impl::mayConnectLocked(EndpointPool& pool) const
{
	EndpointPool::Impl& s = state(pool);
	if (maxConnecting > 0 && s.connecting >= maxConnecting) return false;
	if (s.refusedUntil != 0)
	{
		if (Poco::Timestamp().epochMicroseconds() < s.refusedUntil) return false;
		s.refusedUntil = 0;   // the backoff ran out: the next open may try again
	}
	return true;
}


void PoolManager::Impl::openEndedLocked(EndpointPool& pool, Detail::SessionCloser& closer)
{
	EndpointPool::Impl& s = state(pool);
	if (s.connecting > 0) --s.connecting;
	openFinished.notify_all();
	dispatchLocked(pool, closer);
}


void PoolManager::Impl::noteRefusalLocked(EndpointPool& pool, const std::string& text)
{
	EndpointPool::Impl& s = state(pool);
	++s.refusals;
	s.refusal = text;
	if (!options.enforceMaximum) return;   // a direct open (no pool) moves on to the next host instead
	s.refusalBackoff = s.refusalBackoff <= 0 ? REFUSAL_BACKOFF_START : std::min(s.refusalBackoff * 2, REFUSAL_BACKOFF_MAX);
	s.refusedUntil = Poco::Timestamp().epochMicroseconds() + s.refusalBackoff;
}


void PoolManager::Impl::noteOpenedLocked(EndpointPool& pool)
{
	EndpointPool::Impl& s = state(pool);
	s.refusalBackoff = 0;
	s.refusedUntil = 0;
	s.refusal.clear();
}


PoolManager::Impl::WaiterQueue::iterator PoolManager::Impl::completeLocked(WaiterQueue::iterator it, Detail::SessionCloser& closer)
{
	for (EndpointPool* candidate: (*it)->candidates)
		--state(*candidate).pending;
	closer.wakeLater(std::move(*it));
	return waiters.erase(it);
}


void PoolManager::Impl::dispatchLocked(EndpointPool& pool, Detail::SessionCloser& closer)
{
	if (state(pool).draining) return;
	auto it = waiters.begin();
	while (it != waiters.end())
	{
		Detail::PoolWaiter* waiter = it->get();
		if (!waiter->includes(&pool))
		{
			++it;
			continue;
		}
		PoolEntryPtr entry = takeIdleLocked(pool, closer);
		if (!entry && !reserveLocked(pool)) break;
		waiter->grant.pool = &pool;
		waiter->grant.entry = std::move(entry);
		waiter->granted = true;
		it = completeLocked(it, closer);
	}
}


bool PoolManager::Impl::handOffLocked(EndpointPool& pool, PoolEntryPtr& entry, Detail::SessionCloser& closer)
{
	if (state(pool).draining) return false;
	for (auto it = waiters.begin(); it != waiters.end(); ++it)
	{
		Detail::PoolWaiter* waiter = it->get();
		if (waiter->includes(&pool))
		{
			entry->pool = &pool;
			waiter->grant.pool = &pool;
			waiter->grant.entry = std::move(entry);
			waiter->granted = true;
			completeLocked(it, closer);
			return true;
		}
	}
	return false;
}


void PoolManager::Impl::failDrainedWaitersLocked(Detail::SessionCloser& closer)
{
	auto it = waiters.begin();
	while (it != waiters.end())
	{
		Detail::PoolWaiter* waiter = it->get();
		bool allDraining = std::all_of(waiter->candidates.begin(), waiter->candidates.end(),
			[](EndpointPool* candidate) { return state(*candidate).draining; });
		if (allDraining)
		{
			waiter->drained = true;
			it = completeLocked(it, closer);
		}
		else ++it;
	}
	// The remaining waiters can only be served by pools that do not drain; give them what those have.
	for (auto& pool: pools)
	{
		if (!state(*pool).draining) dispatchLocked(*pool, closer);
	}
}


void PoolManager::Impl::parkLocked(EndpointPool& pool, PoolEntryPtr entry, Detail::SessionCloser& closer)
{
	EndpointPool::Impl& s = state(pool);
	if (s.draining)
	{
		discardLocked(pool, std::move(entry->session), false, closer);
		return;
	}
	if (handOffLocked(pool, entry, closer)) return;
	if (options.keepIdle)
	{
		entry->pool = &pool;
		s.idle.push_back(std::move(entry));
		--s.busy;
		return;
	}
	discardLocked(pool, std::move(entry->session), false, closer);
}


void PoolManager::Impl::discardLocked(EndpointPool& pool, Session::Ptr session, bool evicted, Detail::SessionCloser& closer)
{
	EndpointPool::Impl& s = state(pool);
	--s.busy;
	++s.closed;
	if (evicted) ++s.evicted;
	closer.add(std::move(session));
	dispatchLocked(pool, closer);
}


PoolSizeInfo PoolManager::Impl::sizeLocked(const EndpointPool& pool) const
{
	const EndpointPool::Impl& s = state(pool);
	PoolSizeInfo size;
	size.total = s.total();
	size.idle = static_cast<int>(s.idle.size());
	size.minSize = keeps(s.lastKnownRole) ? s.minSize : 0;
	size.maxSize = s.maxSize;
	return size;
}


PoolStatistics PoolManager::Impl::statisticsLocked(const EndpointPool& pool) const
{
	const EndpointPool::Impl& s = state(pool);
	PoolStatistics stats;
	stats.total = s.total();
	stats.idle = static_cast<int>(s.idle.size());
	stats.busy = s.busy;
	stats.connecting = s.connecting;
	stats.pending = s.pending;
	stats.created = s.created;
	stats.closed = s.closed;
	stats.evicted = s.evicted;
	stats.checkoutTimeouts = s.checkoutTimeouts;
	stats.connectFailures = s.connectFailures;
	stats.refusals = s.refusals;
	stats.minSize = s.minSize;
	stats.maxSize = s.maxSize;
	stats.draining = s.draining;
	stats.lastKnownRole = s.lastKnownRole;
	stats.statements = s.statements->snapshot();
	return stats;
}


std::string PoolManager::Impl::describeLocked(const EndpointPool& pool) const
{
	const EndpointPool::Impl& s = state(pool);
	std::string text = pool.endpoint().toString() + " (";
	if (s.draining) text += "draining, ";
	text += "total=" + std::to_string(s.total()) + ", idle=" + std::to_string(s.idle.size()) +
		", busy=" + std::to_string(s.busy) + ", pending=" + std::to_string(s.pending) +
		", max=" + (s.maxSize > 0 ? std::to_string(s.maxSize) : std::string("unlimited"));
	if (s.connecting > 0) text += ", connecting=" + std::to_string(s.connecting);
	if (!s.refusal.empty())
		text += ", the server refused new connections with SQLSTATE 53300 (too many connections) " + std::to_string(s.refusals) +
			" time(s), last: " + s.refusal;
	text += ")";
	return text;
}


//
// PoolManager
//

PoolManager::PoolManager(const ConnectionSettings& settings, SessionFactory::Ptr factory, EvictionPolicy::Ptr eviction,
		const Options& options, PoolClock::Ptr clock):
	_impl(new Impl(settings, std::move(factory), std::move(eviction), options, std::move(clock)))
{
	if (!_impl->factory) throw Poco::InvalidArgumentException("PoolManager needs a SessionFactory");
	if (!_impl->eviction) throw Poco::InvalidArgumentException("PoolManager needs an EvictionPolicy");
	if (_impl->options.pruneInterval <= 0) _impl->options.pruneInterval = Poco::Timespan(1, 0);
	_impl->owner = this;
	if (_impl->options.enforceMaximum) _impl->maxConnecting = std::max(0, _impl->settings.maxConnecting);
	if (_impl->options.usableRole)
	{
		// Asked once per role: keepsRole() is then a bit test (no call on a checkout's path).
		for (ServerRole role: {ServerRole::Primary, ServerRole::PrimaryReadOnly, ServerRole::Standby})
		{
			if (!_impl->options.usableRole(role)) _impl->keptRoles &= ~(1u << static_cast<unsigned>(role));
		}
	}
	if (_impl->options.startPruning)
	{
		Impl* impl = _impl.get();
		_impl->pruner = std::thread([impl] { impl->pruneLoop(); });
	}
}


PoolManager::~PoolManager()
{
	stopPruning();
	{
		std::lock_guard<std::mutex> lock(_impl->mutex);
		_impl->stopping = true;
	}

	Detail::SessionCloser closer(_impl->logger, _impl->redactor);
	{
		std::lock_guard<std::mutex> lock(_impl->mutex);
		for (auto& pool: _impl->pools)
		{
			EndpointPool::Impl& s = Impl::state(*pool);
			s.draining = true;
			for (auto& item: s.idle)
			{
				++s.closed;
				closer.add(std::move(item->session));
			}
			s.idle.clear();
			if (s.busy > 0)
				_impl->logger.warning(_impl->redactor.redact(pool->endpoint().toString()) + ": pool destroyed with " + std::to_string(s.busy) + " session(s) still leased");
		}
		_impl->failDrainedWaitersLocked(closer);
	}
	closer.closeAll();
}


EndpointPool& PoolManager::pool(const BlueTuskHostEndpoint& endpoint)
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	auto it = _impl->index.find(endpoint);
	if (it != _impl->index.end()) return *it->second;

	std::unique_ptr<EndpointPool> pool(new EndpointPool(*this, endpoint));
	EndpointPool::Impl& s = Impl::state(*pool);
	s.maxSize = _impl->options.enforceMaximum ? std::max(1, _impl->settings.maxPoolSize) : 0;
	s.minSize = _impl->options.keepIdle ? std::max(0, _impl->settings.minPoolSize) : 0;
	if (s.maxSize > 0) s.minSize = std::min(s.minSize, s.maxSize);
	EndpointPool* result = pool.get();
	_impl->pools.push_back(std::move(pool));
	_impl->index[endpoint] = result;
	return *result;
}


std::vector<EndpointPool*> PoolManager::pools() const
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	std::vector<EndpointPool*> result;
	for (auto& pool: _impl->pools) result.push_back(pool.get());
	return result;
}


bool PoolManager::keepsRole(ServerRole role) const
{
	return _impl->keeps(role);
}


PoolStatistics PoolManager::statistics() const
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	PoolStatistics total;
	for (auto& pool: _impl->pools) total += _impl->statisticsLocked(*pool);
	// A checkout waiting on several pools is counted in each of them, but once here.
	total.pending = static_cast<int>(_impl->waiters.size());
	return total;
}


std::map<BlueTuskHostEndpoint, PoolStatistics> PoolManager::hostStatistics() const
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	std::map<BlueTuskHostEndpoint, PoolStatistics> result;
	for (auto& pool: _impl->pools) result[pool->endpoint()] = _impl->statisticsLocked(*pool);
	return result;
}


void PoolManager::drain()
{
	for (EndpointPool* pool: pools()) pool->drain();
}


void PoolManager::warmUp(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::vector<EndpointPool*> targets;
	for (const auto& endpoint: endpoints)
	{
		EndpointPool* p = &pool(endpoint);
		if (std::find(targets.begin(), targets.end(), p) == targets.end()) targets.push_back(p);
	}
	for (EndpointPool* p: targets) p->warmUp();
}


const ConnectionSettings& PoolManager::settings() const
{
	return _impl->settings;
}


const PoolManager::Options& PoolManager::options() const
{
	return _impl->options;
}


PoolClock& PoolManager::clock() const
{
	return *_impl->clock;
}


SessionFactory& PoolManager::factory() const
{
	return *_impl->factory;
}


void PoolManager::setObserver(PoolObserver::Ptr observer)
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	if (observer) _impl->observers.push_back(observer);
	_impl->observer.store(observer.get(), std::memory_order_release);
}


PoolObserver* PoolManager::observer() const
{
	return _impl->observer.load(std::memory_order_acquire);
}


EvictionPolicy& PoolManager::evictionPolicy() const
{
	return *_impl->eviction;
}

} // namespace BlueTusk
