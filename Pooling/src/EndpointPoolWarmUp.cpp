//
// EndpointPoolWarmUp.cpp
//
// Library: BlueTusk/Pooling
//
// The warm-up of one endpoint's pool to its Minimum Pool Size (doc/pooling.md, "Eviction, pruning and
// warm-up"): within Max Connecting and a 53300 backoff, and, when the manager does not keep every role
// (PoolManager::Options::usableRole), only on an endpoint whose role it keeps: one session first tells an
// unknown role. Opening happens outside the manager's mutex.
//

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/BlueTuskException.h"
#include "PoolManagerImpl.h"
#include "Poco/Exception.h"
#include <chrono>

namespace BlueTusk {

namespace {

Poco::Timespan warmUpWait(const ConnectionSettings& settings)
	/// How long warmUp() waits for an open in flight when Max Connecting is reached: the Checkout Timeout,
	/// else the connect Timeout, else 15 s.
{
	if (settings.checkoutTimeout.totalMicroseconds() > 0) return settings.checkoutTimeout;
	if (settings.connectTimeout.totalMicroseconds() > 0) return settings.connectTimeout;
	return Poco::Timespan(15, 0);
}

} // namespace


void EndpointPool::warmUp()
{
	warmUpPool(false);
}


void EndpointPool::warmUpPool(bool background)
{
	PoolManager::Impl& m = *_manager._impl;
	int opened = 0;
	// With Options::usableRole, a pool whose role is not known yet opens one session first: its role decides
	// whether the rest of the minimum follows (a role the owner keeps) or that session is closed (one the
	// owner's target can never use: a standby for a read-write data source). The second round has the role.
	for (int round = 0; round < 2; ++round)
	{
		int needed = 0;
		bool learning = false;
		{
			std::lock_guard<std::mutex> lock(m.mutex);
			if (!m.options.keepIdle || _impl->draining || m.stopping || (background && m.stopPruning)) return;
			if (!m.keeps(_impl->lastKnownRole)) return;   // the minimum does not apply to such an endpoint
			needed = _impl->minSize - _impl->total();
			if (needed <= 0) break;
			learning = m.filtersRoles() && _impl->lastKnownRole == ServerRole::Unknown;
			if (learning) needed = 1;
			_impl->busy += needed;   // the sessions being opened count as busy
		}
		for (int i = 0; i < needed; ++i)
		{
			const int unopened = needed - i;
			{
				// Max Connecting and a 53300 backoff hold for warm-up too. The pruning thread leaves the rest to
				// its next pass; warmUp() waits (at most a Checkout Timeout) for an open in flight to end.
				Detail::SessionCloser closer(m.logger, m.redactor);
				std::unique_lock<std::mutex> lock(m.mutex);
				const Poco::Timestamp until = Poco::Timestamp() + warmUpWait(m.settings).totalMicroseconds();
				bool giveUp = false;
				for (;;)
				{
					if (_impl->draining || m.stopping || (background && m.stopPruning)) giveUp = true;
					else if (m.mayConnectLocked(*this)) break;
					else if (background || _impl->refusedUntil != 0 || Poco::Timestamp() >= until) giveUp = true;
					if (giveUp) break;
					m.openFinished.wait_for(lock, std::chrono::microseconds(until - Poco::Timestamp()));
				}
				if (giveUp)
				{
					_impl->busy -= unopened;
					m.dispatchLocked(*this, closer);
					return;
				}
				++_impl->connecting;
			}
			Session::Ptr session;
			std::exception_ptr error;
			PoolObserver* observer = m.observer.load(std::memory_order_acquire);
			const double started = observer ? PoolObserver::preciseSeconds() : 0;
			ServerRole role = ServerRole::Unknown;
			try
			{
				session = m.factory->open(_endpoint, m.settings);
				if (!session) throw BlueTuskException("the session factory returned no session for " + _endpoint.toString());
				session->control().setStatementCounters(_impl->statements);
				// The role decides whether the session may stay (a target that filters roles) and is the
				// endpoint's last known role: probed by a targeted open, else by reportedRole() once confirmed,
				// else probed here (one round trip, in the background; doc/routing.md, "Roles").
				role = session->role();
				if (role == ServerRole::Unknown) role = session->control().reportedRole();
				if (role == ServerRole::Unknown) role = session->control().probeRole(false);
			}
			catch (...)
			{
				error = std::current_exception();
				if (session)
				{
					try
					{
						session->close();
					}
					catch (...)
					{
					}
					session.reset();
				}
			}
			if (error)
			{
				{
					Detail::SessionCloser closer(m.logger, m.redactor);
					std::lock_guard<std::mutex> lock(m.mutex);
					_impl->busy -= unopened;
					++_impl->connectFailures;
					const std::string refusal = Detail::tooManyConnections(error);
					if (!refusal.empty()) m.noteRefusalLocked(*this, m.redactor.redact(refusal));
					m.openEndedLocked(*this, closer);
				}
				m.logger.warning("warming up the pool of " + m.redactor.redact(_endpoint.toString()) + " failed: " + Detail::describeException(error, m.redactor));
				return;
			}
			if (observer) observer->sessionCreated(_endpoint, PoolObserver::preciseSeconds() - started);
			PoolEntryPtr entry(new PoolEntry);
			entry->pool = this;
			entry->session = std::move(session);
			entry->info.lifetime = m.evictionCall.lifetimeFor();
			Detail::SessionCloser closer(m.logger, m.redactor);
			std::lock_guard<std::mutex> lock(m.mutex);
			++_impl->created;
			_impl->noteRole(*entry->session, true);
			if (role != ServerRole::Unknown) _impl->learnRole(role);
			entry->info.createdAt = m.clock->now();
			entry->info.lastReturned = entry->info.createdAt;
			entry->info.sessionId = entry->session->sessionId();
			m.noteOpenedLocked(*this);
			if (!m.keeps(role))
			{
				// A role the owner's target can never use: no idle session here, and no more opens.
				m.discardLocked(*this, std::move(entry->session), false, closer);
				_impl->busy -= unopened - 1;
				m.openEndedLocked(*this, closer);
				if (m.logger.debug())
					m.logger.debug(m.redactor.redact(_endpoint.toString()) + ": not warmed up: " + toString(role) + ", a role the data source's target cannot use");
				return;
			}
			m.parkLocked(*this, std::move(entry), closer);
			m.openEndedLocked(*this, closer);
			++opened;
		}
		if (!learning) break;
	}
	if (opened > 0 && m.logger.debug()) m.logger.debug(m.redactor.redact(_endpoint.toString()) + ": warmed up to " + std::to_string(opened) + " more session(s)");
}

} // namespace BlueTusk
