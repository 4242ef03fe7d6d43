//
// PoolManagerWait.cpp
//
// Library: BlueTusk/Pooling
//
// PoolManager::waitForAny(): a checkout's wait on several pools at once, first come first served, until a
// session, room to open one, or the deadline (doc/pooling.md, checkout step 3); waitBehindWaiters(): the same
// wait, only when every candidate already has checkouts waiting.
//

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/BlueTuskException.h"
#include "PoolManagerImpl.h"
#include "Poco/Exception.h"
#include <chrono>

namespace BlueTusk {

PoolGrant PoolManager::waitForAny(const std::vector<EndpointPool*>& candidates, Poco::Timestamp deadline)
{
	return wait(candidates, deadline, false);
}


PoolGrant PoolManager::waitBehindWaiters(const std::vector<EndpointPool*>& candidates, Poco::Timestamp deadline)
{
	return wait(candidates, deadline, true);
}


PoolGrant PoolManager::wait(const std::vector<EndpointPool*>& candidates, Poco::Timestamp deadline, bool behindWaitersOnly)
{
	// Shared with the queue and with whoever completes it (it wakes the waiter after unlocking).
	const std::shared_ptr<Detail::PoolWaiter> queued = std::make_shared<Detail::PoolWaiter>();
	Detail::PoolWaiter& waiter = *queued;
	for (EndpointPool* candidate: candidates)
	{
		if (candidate && !waiter.includes(candidate)) waiter.candidates.push_back(candidate);
	}
	if (waiter.candidates.empty())
		throw Poco::InvalidArgumentException("PoolManager::waitForAny() needs at least one candidate pool");

	const Poco::Timestamp started;
	Detail::SessionCloser closer(_impl->logger, _impl->redactor);
	std::unique_lock<std::mutex> lock(_impl->mutex);
	if (behindWaitersOnly)
	{
		for (EndpointPool* candidate: waiter.candidates)
		{
			const EndpointPool::Impl& s = Impl::state(*candidate);
			if (s.pending == 0 || s.draining) return PoolGrant();   // the full checkout path decides
		}
	}

	// Immediate capacity, unless earlier checkouts wait for that pool: idle sessions first, then room.
	for (EndpointPool* candidate: waiter.candidates)
	{
		if (Impl::state(*candidate).pending > 0) continue;
		PoolEntryPtr entry = _impl->takeIdleLocked(*candidate, closer);
		if (entry)
		{
			PoolGrant grant;
			grant.pool = candidate;
			grant.entry = std::move(entry);
			return grant;
		}
	}
	for (EndpointPool* candidate: waiter.candidates)
	{
		if (Impl::state(*candidate).pending > 0) continue;
		if (_impl->reserveLocked(*candidate))
		{
			PoolGrant grant;
			grant.pool = candidate;
			return grant;
		}
	}

	bool allDraining = std::all_of(waiter.candidates.begin(), waiter.candidates.end(),
		[](EndpointPool* candidate) { return Impl::state(*candidate).draining; });
	if (!allDraining)
	{
		_impl->waiters.push_back(queued);
		for (EndpointPool* candidate: waiter.candidates) ++Impl::state(*candidate).pending;
		const bool unlimited = deadline == Poco::Timestamp(Poco::Timestamp::TIMEVAL_MAX); // Checkout Timeout=0
		while (!waiter.granted && !waiter.drained)
		{
			const Poco::Timestamp now;
			if (!unlimited && now >= deadline) break;
			// A candidate backing off after a 53300 may open again when its backoff ends: wake up then and
			// let it serve the first waiter (maybe another checkout) with a reservation.
			Poco::Timestamp wakeAt = deadline;
			for (EndpointPool* candidate: waiter.candidates)
			{
				const Poco::Timestamp::TimeVal until = Impl::state(*candidate).refusedUntil;
				if (until != 0 && until < wakeAt.epochMicroseconds()) wakeAt = Poco::Timestamp(until);
			}
			if (wakeAt < deadline)
			{
				if (wakeAt > now) waiter.wakeUp.wait_for(lock, std::chrono::microseconds(wakeAt - now));
				if (waiter.granted || waiter.drained) break;
				Detail::SessionCloser served(_impl->logger, _impl->redactor);
				const Poco::Timestamp::TimeVal woke = Poco::Timestamp().epochMicroseconds();
				for (EndpointPool* candidate: waiter.candidates)
				{
					EndpointPool::Impl& s = Impl::state(*candidate);
					if (s.refusedUntil == 0 || woke < s.refusedUntil) continue;
					s.refusedUntil = 0;   // the backoff ran out (cleared here so that no one spins on it)
					_impl->dispatchLocked(*candidate, served);
				}
				lock.unlock();
				served.closeAll();
				lock.lock();
				continue;
			}
			if (unlimited) waiter.wakeUp.wait(lock);
			else waiter.wakeUp.wait_for(lock, std::chrono::microseconds(deadline - now));
		}
		if (waiter.granted) return std::move(waiter.grant);
	}

	std::string counts;
	for (EndpointPool* candidate: waiter.candidates)
	{
		if (!counts.empty()) counts += "; ";
		counts += _impl->describeLocked(*candidate);
	}
	const long long waited = static_cast<long long>((Poco::Timestamp() - started) / 1000);
	if (allDraining || waiter.drained)
	{
		lock.unlock();
		closer.closeAll();
		throw BlueTuskPoolTimeoutException("no pooled session can be handed out because every candidate pool is draining"
			" (drain() was called; resume() or a new data source ends it): " + counts);
	}
	// Still queued: the deadline passed.
	auto it = std::find(_impl->waiters.begin(), _impl->waiters.end(), queued);
	if (it != _impl->waiters.end())
	{
		for (EndpointPool* candidate: waiter.candidates) --Impl::state(*candidate).pending;
		_impl->waiters.erase(it);
	}
	bool refused = false;
	for (EndpointPool* candidate: waiter.candidates)
	{
		++Impl::state(*candidate).checkoutTimeouts;
		refused = refused || !Impl::state(*candidate).refusal.empty();
	}
	lock.unlock();
	closer.closeAll();
	_impl->logger.warning("checkout timed out after " + std::to_string(waited) + " ms: " + counts);
	throw BlueTuskPoolTimeoutException("no pooled session became available within the checkout timeout (waited " +
		std::to_string(waited) + " ms): " + counts +
		(refused ? ". The server refused new connections (SQLSTATE 53300): raise its max_connections or the role's or"
			" database's CONNECTION LIMIT, lower Maximum Pool Size, or return sessions to the pool sooner"
			: ". Raise Maximum Pool Size or Checkout Timeout, or return sessions to the pool sooner"));
}

} // namespace BlueTusk
