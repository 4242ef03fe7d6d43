//
// EndpointPool.cpp
//
// Library: BlueTusk/Pooling
//
// The sessions of one endpoint (doc/pooling.md): opening, adopting, draining, sizing and pruning. A lease's
// return and its reset are in EndpointPoolReturn.cpp, the warm-up in EndpointPoolWarmUp.cpp. Every method takes the manager's mutex
// for the bookkeeping only; opening, resetting and closing sessions happen outside it.
//

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/BlueTuskException.h"
#include "PoolManagerImpl.h"
#include "Poco/Exception.h"
#include <chrono>
#include <set>

namespace BlueTusk {
namespace Detail {

std::string describeException(const std::exception_ptr& error, const SecretRedactor& redactor)
{
	try
	{
		std::rethrow_exception(error);
	}
	catch (Poco::Exception& exc)
	{
		return redactor.redact(exc.displayText());
	}
	catch (std::exception& exc)
	{
		return redactor.redact(exc.what());
	}
	catch (...)
	{
		return "unknown exception";
	}
}

std::string tooManyConnections(const std::exception_ptr& error)
{
	try
	{
		std::rethrow_exception(error);
	}
	catch (BlueTuskServerException& exc)
	{
		if (exc.sqlState() == "53300") return exc.fields().message.empty() ? exc.message() : exc.fields().message;
	}
	catch (...)
	{
	}
	return std::string();
}

} // namespace Detail




EndpointPool::EndpointPool(PoolManager& manager, const BlueTuskHostEndpoint& endpoint):
	_impl(new Impl),
	_manager(manager),
	_endpoint(endpoint)
{
	_impl->observer = &manager._impl->observer;
	_impl->endpoint = &_endpoint;
}


EndpointPool::~EndpointPool()
{
}


const BlueTuskHostEndpoint& EndpointPool::endpoint() const
{
	return _endpoint;
}


PoolEntryPtr EndpointPool::tryTakeIdle()
{
	// Checkouts wait for this pool: a newcomer queues behind them (waitForAny() decides under the mutex).
	// Read first without the mutex, which every checkout and return of the data source takes: past
	// saturation this spares each checkout a contended lock per endpoint (doc/performance.md, 14a).
	if (_impl->pending.load(std::memory_order_relaxed) > 0) return nullptr;
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	std::lock_guard<std::mutex> lock(m.mutex);
	if (_impl->pending > 0) return nullptr;
	PoolEntryPtr entry = m.takeIdleLocked(*this, closer);
	// A role the session learned during its last lease (a probe) is noted under the same lock.
	if (entry) _impl->noteRole(*entry->session, false);
	return entry;
}


bool EndpointPool::tryReserve()
{
	if (_impl->pending.load(std::memory_order_relaxed) > 0) return false;   // as in tryTakeIdle()
	PoolManager::Impl& m = *_manager._impl;
	std::lock_guard<std::mutex> lock(m.mutex);
	if (_impl->pending > 0) return false;
	return m.reserveLocked(*this);
}


bool EndpointPool::tryReserve(PoolShortage& shortage)
{
	PoolManager::Impl& m = *_manager._impl;
	std::lock_guard<std::mutex> lock(m.mutex);
	if (_impl->pending == 0 && m.reserveLocked(*this))
	{
		shortage = PoolShortage::None;
		return true;
	}
	shortage = m.shortageLocked(*this);
	return false;
}


PoolEntryPtr EndpointPool::openReserved()
{
	return openReservedWith(nullptr);
}


PoolEntryPtr EndpointPool::openReserved(const OpenCancellation& cancellation)
{
	return openReservedWith(&cancellation);
}


PoolEntryPtr EndpointPool::openReservedWith(const OpenCancellation* cancellation)
{
	PoolManager::Impl& m = *_manager._impl;
	Session::Ptr session;
	std::exception_ptr error;
	PoolObserver* observer = m.observer.load(std::memory_order_acquire);
	const double started = observer ? PoolObserver::preciseSeconds() : 0;
	try
	{
		if (cancellation)
			session = m.factory->openCancellable(_endpoint, m.settings, *cancellation);
		else
			session = m.factory->open(_endpoint, m.settings);
		if (!session) throw BlueTuskException("the session factory returned no session for " + _endpoint.toString());
		session->control().setStatementCounters(_impl->statements);
	}
	catch (...)
	{
		error = std::current_exception();
	}
	if (error)
	{
		const std::string refusal = Detail::tooManyConnections(error);
		{
			Detail::SessionCloser closer(m.logger, m.redactor);
			std::lock_guard<std::mutex> lock(m.mutex);
			--_impl->busy;
			// A parallel race's loser, cancelled because another endpoint won, did not fail to connect.
			if (!cancellation || !cancellation->isCancelled()) ++_impl->connectFailures;
			// 53300 is capacity, not a down host: stop opening for a backoff, reuse what is open.
			if (!refusal.empty()) m.noteRefusalLocked(*this, m.redactor.redact(refusal));
			m.openEndedLocked(*this, closer);
		}
		if (m.logger.debug()) m.logger.debug("opening a session to " + m.redactor.redact(_endpoint.toString()) + " failed: " + Detail::describeException(error, m.redactor));
		std::rethrow_exception(error);
	}

	PoolEntryPtr entry(new PoolEntry);
	entry->pool = this;
	entry->info.lifetime = m.evictionCall.lifetimeFor();
	{
		Detail::SessionCloser closer(m.logger, m.redactor);
		std::lock_guard<std::mutex> lock(m.mutex);
		entry->info.createdAt = m.clock->now();
		entry->info.lastReturned = entry->info.createdAt;
		++_impl->created;
		_impl->noteRole(*session, true);
		m.noteOpenedLocked(*this);
		m.openEndedLocked(*this, closer);   // the reservation is now this busy session
	}
	entry->info.sessionId = session->sessionId();
	entry->session = std::move(session);
	if (observer) observer->sessionCreated(_endpoint, PoolObserver::preciseSeconds() - started);
	if (m.logger.debug()) m.logger.debug("opened a session to " + m.redactor.redact(_endpoint.toString()));
	return entry;
}


void EndpointPool::cancelReservation()
{
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	std::lock_guard<std::mutex> lock(m.mutex);
	if (_impl->busy <= 0)
	{
		m.logger.error(m.redactor.redact(_endpoint.toString()) + ": cancelReservation() without a reservation ignored");
		return;
	}
	--_impl->busy;
	m.openEndedLocked(*this, closer);
}


bool EndpointPool::openIdle()
{
	PoolManager::Impl& m = *_manager._impl;
	{
		std::lock_guard<std::mutex> lock(m.mutex);
		if (!m.options.keepIdle || _impl->pending > 0 || m.stopping || !m.reserveLocked(*this)) return false;
	}
	PoolEntryPtr entry;
	try
	{
		entry = openReserved();
	}
	catch (...)
	{
		m.logger.warning("opening an idle session to " + m.redactor.redact(_endpoint.toString()) + " failed: " + Detail::describeException(std::current_exception(), m.redactor));
		return false;
	}
	// A role no checkout of the owner can use (Options::usableRole): the open told the role, nothing is kept.
	ServerRole role = entry->session->role();
	if (role == ServerRole::Unknown) role = entry->session->control().reportedRole();
	release(std::move(entry), !m.keeps(role));
	return true;
}


void EndpointPool::adopt(Session::Ptr session)
{
	if (!session) return;
	session->control().setStatementCounters(_impl->statements);
	PoolManager::Impl& m = *_manager._impl;
	try
	{
		Detail::SessionCloser closer(m.logger, m.redactor);
		const Poco::Timespan lifetime = m.evictionCall.lifetimeFor();
		ServerRole role = session->role();
		if (role == ServerRole::Unknown) role = session->control().reportedRole();
		std::lock_guard<std::mutex> lock(m.mutex);
		if (role != ServerRole::Unknown) _impl->learnRole(role);
		if (session->isBroken() || !m.options.keepIdle || _impl->draining || !m.hasRoomLocked(*this) || !m.keeps(role))
		{
			closer.add(std::move(session));
			return;
		}
		++_impl->created;
		++_impl->busy;
		_impl->noteRole(*session, true);
		PoolEntryPtr entry(new PoolEntry);
		entry->session = std::move(session);
		entry->pool = this;
		entry->info.createdAt = m.clock->now();
		entry->info.lastReturned = entry->info.createdAt;
		entry->info.lifetime = lifetime;
		entry->info.sessionId = entry->session->sessionId();
		m.parkLocked(*this, std::move(entry), closer);
	}
	catch (...)
	{
		m.logger.error(m.redactor.redact(_endpoint.toString()) + ": adopting a session failed: " + Detail::describeException(std::current_exception(), m.redactor));
	}
}


void EndpointPool::drain()
{
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	{
		std::lock_guard<std::mutex> lock(m.mutex);
		const bool wasDraining = _impl->draining;
		_impl->draining = true;
		for (auto& item: _impl->idle)
		{
			++_impl->closed;
			closer.add(std::move(item->session));
		}
		_impl->idle.clear();
		m.failDrainedWaitersLocked(closer);
		if (!wasDraining)
			m.logger.information("draining the pool of " + m.redactor.redact(_endpoint.toString()) + ": closing " + std::to_string(closer.size()) +
				" idle session(s) now and " + std::to_string(_impl->busy) + " busy one(s) when they return");
	}
	closer.closeAll();
}


int EndpointPool::closeIdle()
{
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	{
		std::lock_guard<std::mutex> lock(m.mutex);
		for (auto& item: _impl->idle)
		{
			++_impl->closed;
			closer.add(std::move(item->session));
		}
		_impl->idle.clear();
	}
	const int count = static_cast<int>(closer.size());
	closer.closeAll();
	return count;
}


bool EndpointPool::closeIdleSession(const Session* session)
{
	if (!session) return false;
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	{
		std::lock_guard<std::mutex> lock(m.mutex);
		for (auto it = _impl->idle.begin(); it != _impl->idle.end(); ++it)
		{
			if ((*it)->session.get() != session) continue;
			++_impl->closed;
			closer.add(std::move((*it)->session));
			_impl->idle.erase(it);
			// The room it frees goes to the waiters.
			m.dispatchLocked(*this, closer);
			break;
		}
	}
	const bool closed = closer.size() > 0;
	closer.closeAll();
	return closed;
}


int EndpointPool::closeIdle(int atMost)
{
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	{
		std::lock_guard<std::mutex> lock(m.mutex);
		const std::size_t count = std::min<std::size_t>(_impl->idle.size(), static_cast<std::size_t>(std::max(0, atMost)));
		for (std::size_t i = 0; i < count; ++i)
		{
			++_impl->closed;
			closer.add(std::move(_impl->idle[i]->session));   // the front: least recently returned
		}
		_impl->idle.erase(_impl->idle.begin(), _impl->idle.begin() + static_cast<std::ptrdiff_t>(count));
	}
	const int count = static_cast<int>(closer.size());
	closer.closeAll();
	return count;
}


void EndpointPool::resume()
{
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	std::lock_guard<std::mutex> lock(m.mutex);
	if (!_impl->draining) return;
	_impl->draining = false;
	m.logger.information("the pool of " + m.redactor.redact(_endpoint.toString()) + " hands out sessions again");
	m.dispatchLocked(*this, closer);
}


bool EndpointPool::isDraining() const
{
	std::lock_guard<std::mutex> lock(_manager._impl->mutex);
	return _impl->draining;
}


bool EndpointPool::hasWaiters() const
{
	return _impl->pending.load(std::memory_order_relaxed) > 0;
}


void EndpointPool::setSizes(int minSize, int maxSize)
{
	PoolManager::Impl& m = *_manager._impl;
	Detail::SessionCloser closer(m.logger, m.redactor);
	std::lock_guard<std::mutex> lock(m.mutex);
	_impl->maxSize = m.options.enforceMaximum ? std::max(1, maxSize) : 0;
	_impl->minSize = m.options.keepIdle ? std::max(0, minSize) : 0;
	if (_impl->maxSize > 0) _impl->minSize = std::min(_impl->minSize, _impl->maxSize);
	m.dispatchLocked(*this, closer);
}


void EndpointPool::setLastKnownRole(ServerRole role)
{
	std::lock_guard<std::mutex> lock(_manager._impl->mutex);
	_impl->learnRole(role);
}


ServerRole EndpointPool::lastKnownRole() const
{
	std::lock_guard<std::mutex> lock(_manager._impl->mutex);
	return _impl->lastKnownRole;
}


PoolStatistics EndpointPool::statistics() const
{
	std::lock_guard<std::mutex> lock(_manager._impl->mutex);
	return _manager._impl->statisticsLocked(*this);
}


int EndpointPool::prune()
{
	return prunePool(false);
}


int EndpointPool::prunePool(bool background)
{
	PoolManager::Impl& m = *_manager._impl;
	int evicted = 0;
	{
		// The policy runs without the manager's mutex (doc/plugin-calls.md, "Where and how policies are called"):
		// snapshot the idle sessions under it, ask the policy, then close only the selected sessions that are
		// still idle and unchanged (not taken and returned meanwhile: same entry, same lastReturned).
		std::vector<PooledSessionInfo> infos;
		std::vector<const PoolEntry*> entries;
		PoolSizeInfo size;
		Poco::Timestamp now;
		{
			std::lock_guard<std::mutex> lock(m.mutex);
			if (!_impl->idle.empty() && !_impl->draining)
			{
				infos.reserve(_impl->idle.size());
				entries.reserve(_impl->idle.size());
				for (const auto& item: _impl->idle)
				{
					infos.push_back(item->info);
					entries.push_back(item.get());
				}
				size = m.sizeLocked(*this);
				now = m.clock->now();
			}
		}
		std::vector<std::size_t> selected;
		if (!infos.empty()) selected = m.evictionCall.selectForEviction(_endpoint, infos, size, now);
		if (!selected.empty())
		{
			Detail::SessionCloser closer(m.logger, m.redactor);
			std::lock_guard<std::mutex> lock(m.mutex);
			std::set<const PoolEntry*> doomed;
			for (std::size_t index: selected)
			{
				if (index < entries.size()) doomed.insert(entries[index]);
			}
			for (auto it = _impl->idle.begin(); it != _impl->idle.end() && !_impl->draining;)
			{
				const PoolEntry* entry = it->get();
				auto snapshot = std::find(entries.begin(), entries.end(), entry);
				if (!doomed.count(entry) || snapshot == entries.end() ||
					infos[static_cast<std::size_t>(snapshot - entries.begin())].lastReturned != entry->info.lastReturned)
				{
					++it;
					continue;
				}
				closer.add(std::move((*it)->session));
				it = _impl->idle.erase(it);
				++_impl->closed;
				++_impl->evicted;
				++evicted;
			}
			if (evicted > 0) m.dispatchLocked(*this, closer);
		}
		if (evicted > 0 && m.logger.debug())
			m.logger.debug(m.redactor.redact(_endpoint.toString()) + ": evicted " + std::to_string(evicted) + " idle session(s)");
	}
	flushPendingResets();
	warmUpPool(background);
	return evicted;
}


} // namespace BlueTusk
