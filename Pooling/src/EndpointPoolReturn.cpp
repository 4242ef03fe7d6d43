//
// EndpointPoolReturn.cpp
//
// Library: BlueTusk/Pooling
//
// A lease's return to its EndpointPool and the reset of the session (doc/pooling.md, "When a session comes back"):
// keep or close it, roll back, defer or run its reset, park it; and the flush of deferred resets that
// waited too long. The rest of EndpointPool is in EndpointPool.cpp.
//

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/BlueTuskException.h"
#include "PoolManagerImpl.h"
#include "Poco/Exception.h"

namespace BlueTusk {


void EndpointPool::release(PoolEntryPtr entry, bool broken)
{
	if (!entry) return;
	if (entry->pool && entry->pool != this)
	{
		entry->pool->release(std::move(entry), broken);
		return;
	}
	PoolManager::Impl& m = *_manager._impl;
	if (entry->leasedAt != 0)
	{
		if (PoolObserver* observer = m.observer.load(std::memory_order_acquire))
			observer->sessionUsed(_endpoint, entry->leasedAt, entry->idleCheckout);
		entry->leasedAt = 0;
	}
	try
	{
		Detail::SessionCloser closer(m.logger, m.redactor);
		if (!entry->session)
		{
			// The holder kept or destroyed the session object: only the bookkeeping is left to undo.
			std::lock_guard<std::mutex> lock(m.mutex);
			m.discardLocked(*this, nullptr, false, closer);
			return;
		}
		Session& session = *entry->session;
		if (!broken && session.isBroken()) broken = true;
		if (!broken)
		{
			// Whatever the reset: end the lease's open portal and read-ahead rows, put back its command
			// timeout; a COPY left open makes the session unusable (SessionControl::endLease()).
			try
			{
				broken = !session.control().endLease();
			}
			catch (...)
			{
				if (m.logger.debug())
					m.logger.debug("ending a lease on " + m.redactor.redact(_endpoint.toString()) + " failed, closing its session: " + Detail::describeException(std::current_exception(), m.redactor));
				broken = true;
			}
		}

		// Whether the returning session may stay in the pool: not broken, not draining, the eviction policy
		// agrees, and an unpooled pool only keeps it for a waiter. The policy runs without m.mutex
		// (doc/plugin-calls.md, "Where and how policies are called"): the pool's size is snapshot under it first,
		// and the rest is checked again under it after the policy answered. When the session may not
		// stay, mayStayLocked() closes it (counted as evicted when the policy said no) and returns false.
		bool keep = false;
		Poco::Timestamp now(0);   // set under the lock below (PoolClock: the coarse clock), not read twice
		{
			PoolSizeInfo size;
			{
				std::lock_guard<std::mutex> lock(m.mutex);
				if (broken || _impl->draining)
				{
					m.discardLocked(*this, std::move(entry->session), false, closer);
					return;
				}
				size = m.sizeLocked(*this);
				now = m.clock->now();
				++entry->info.returns;   // PooledSessionInfo::returns: this return included
			}
			keep = m.evictionCall.keepOnReturn(_endpoint, entry->info, size, now);
		}
		auto mayStayLocked = [&]() -> bool
		{
			if (broken || _impl->draining)
			{
				m.discardLocked(*this, std::move(entry->session), false, closer);
				return false;
			}
			if (!keep)
			{
				m.discardLocked(*this, std::move(entry->session), true, closer);
				return false;
			}
			if (!m.options.keepIdle && _impl->pending == 0)
			{
				m.discardLocked(*this, std::move(entry->session), false, closer);
				return false;
			}
			return true;
		};

		// Nothing to reset now: No Reset On Close, or a session with no transaction open that sends its
		// DISCARD ALL in front of its next command (SessionControl::deferReset(), doc/performance.md R3). Decide
		// and park in one lock section (R2).
		const bool discardAll = !m.settings.noResetOnClose;
		if (!broken && session.transactionStatus() == TransactionStatus::Idle && (!discardAll || session.control().deferReset()))
		{
			std::lock_guard<std::mutex> lock(m.mutex);
			if (!mayStayLocked()) return;
			entry->info.lastReturned = now;
			m.parkLocked(*this, std::move(entry), closer);
			return;
		}

		// Decide before the reset whether the session can stay at all: no round trips for a session that
		// is closed anyway (broken, draining, past its lifetime, or an unpooled connection with no waiter).
		{
			std::lock_guard<std::mutex> lock(m.mutex);
			if (!mayStayLocked()) return;
		}

		// Reset outside the lock (PostgreSQL docs, DISCARD): roll back an open transaction, then DISCARD ALL.
		if (discardAll || session.transactionStatus() != TransactionStatus::Idle)
		{
			try
			{
				session.control().reset(discardAll);
			}
			catch (...)
			{
				if (m.logger.debug())
					m.logger.debug("resetting a session to " + m.redactor.redact(_endpoint.toString()) + " failed, closing it: " + Detail::describeException(std::current_exception(), m.redactor));
				broken = true;
			}
		}
		if (session.isBroken()) broken = true;

		std::lock_guard<std::mutex> lock(m.mutex);
		if (broken)
		{
			m.discardLocked(*this, std::move(entry->session), false, closer);
			return;
		}
		entry->info.lastReturned = m.clock->now();
		m.parkLocked(*this, std::move(entry), closer);
	}
	catch (...)
	{
		m.logger.error(m.redactor.redact(_endpoint.toString()) + ": releasing a session failed: " + Detail::describeException(std::current_exception(), m.redactor));
	}
}


const Poco::Timespan EndpointPool::PENDING_RESET_FLUSH(1, 0);


void EndpointPool::flushPendingResets()
{
	PoolManager::Impl& m = *_manager._impl;
	std::vector<PoolEntryPtr> due;
	{
		std::lock_guard<std::mutex> lock(m.mutex);
		if (_impl->draining) return;
		const Poco::Timestamp now = m.clock->now();
		for (auto it = _impl->idle.begin(); it != _impl->idle.end();)
		{
			PoolEntry& entry = **it;
			if (entry.session->control().isResetPending() && now - entry.info.lastReturned >= PENDING_RESET_FLUSH.totalMicroseconds())
			{
				due.push_back(std::move(*it));
				it = _impl->idle.erase(it);
				++_impl->busy;   // out of the idle stack while its reset runs
			}
			else
			{
				++it;
			}
		}
	}
	if (due.empty()) return;
	for (PoolEntryPtr& entry: due)
	{
		// Outside the lock, as on return: one round trip for DISCARD ALL.
		bool broken = false;
		try
		{
			entry->session->control().reset(true);
		}
		catch (...)
		{
			if (m.logger.debug())
				m.logger.debug("resetting an idle session to " + m.redactor.redact(_endpoint.toString()) + " failed, closing it: " + Detail::describeException(std::current_exception(), m.redactor));
			broken = true;
		}
		if (entry->session->isBroken()) broken = true;
		Detail::SessionCloser closer(m.logger, m.redactor);
		std::lock_guard<std::mutex> lock(m.mutex);
		if (broken) m.discardLocked(*this, std::move(entry->session), false, closer);
		else m.parkLocked(*this, std::move(entry), closer);   // lastReturned kept: idle lifetime unchanged
	}
	if (m.logger.debug()) m.logger.debug(m.redactor.redact(_endpoint.toString()) + ": reset " + std::to_string(due.size()) + " idle session(s) whose deferred reset was pending");
}


} // namespace BlueTusk
