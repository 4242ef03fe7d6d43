//
// RouterWait.cpp
//
// Library: BlueTusk/Routing
//
// The pooled part of a pass that waits (doc/pooling.md, "Checkout" step 3 and "Preferred endpoints"): the
// wait for capacity on the endpoints that had none, the wait for a preferred endpoint that is only opening
// before a fallback is taken, what a checkout does with a rejected session that the data source's own
// target can never use ("Sessions of a role the data source cannot use"), and the room a checkout was granted
// before the Router ran (Request::reserved).
//

#include "RouterPass.h"
#include "BlueTusk/BlueTuskException.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

bool Router::waitForCapacity(std::vector<Slot>& slots, PassState& state, Poco::Timestamp checkoutDeadline, bool preferredWait,
	PoolEntryPtr& result)
{
	// doc/pooling.md, checkout step 3: no immediate capacity anywhere acceptable: wait on all of them at once.
	std::vector<EndpointPool*> waitOn = !state.saturated.empty() ? state.saturated : state.saturatedLate;
	// An endpoint settled in this pass (rejected or failed) is not waited for: its answer is in.
	waitOn.erase(std::remove_if(waitOn.begin(), waitOn.end(), [&state](EndpointPool* pool) { return state.isSettled(pool); }), waitOn.end());
	if (!_request.pooled || waitOn.empty()) return true;   // nothing to wait for: result stays null
	if (state.preferredTimeout) state.preferredTimeout->rethrow();   // Checkout Timeout is spent: no second wait

	// The opens that failed so far, per pool: one that fails while we wait makes its endpoint no longer
	// preferred (the opener marks it down only after its slot was handed over).
	std::vector<Poco::UInt64> failuresBefore;
	if (preferredWait)
	{
		for (EndpointPool* pool: waitOn) failuresBefore.push_back(openFailures(*pool));
	}
	PoolGrant grant;
	try
	{
		grant = _request.pools->waitForAny(waitOn, checkoutDeadline);
	}
	catch (BlueTuskPoolTimeoutException& exc)
	{
		if (!preferredWait) throw;
		// No preferred session within Checkout Timeout: the fallback held, else the fallback tier once.
		if (state.retained)
		{
			result = std::move(state.retained);
			return true;
		}
		state.preferredWaitOver = true;
		state.preferredTimeout.reset(exc.clone());
		return false;
	}
	if (grant.empty()) return false;
	Slot* granted = nullptr;
	for (Slot& slot: slots)
	{
		if (slot.pool == grant.pool)
		{
			granted = &slot;
			break;
		}
	}
	if (!granted)
	{
		if (grant.entry) grant.pool->release(std::move(grant.entry));
		else grant.pool->cancelReservation();
		return false;
	}
	if (grant.isReservation() && preferredWait)
	{
		const std::size_t index = static_cast<std::size_t>(std::find(waitOn.begin(), waitOn.end(), grant.pool) - waitOn.begin());
		const bool failed = index < failuresBefore.size() && openFailures(*grant.pool) > failuresBefore[index];
		bool replan = failed;
		try
		{
			replan = replan || noLongerPreferred(*granted);
		}
		catch (...)
		{
			grant.pool->cancelReservation();   // a site target policy failed: no reservation is kept
			throw;
		}
		if (replan)
		{
			// An open in flight failed, or the endpoint went down or showed another role, while we waited:
			// give the slot back and plan anew (the fallbacks come next unless another preferred one is up).
			if (failed) state.failedWhileWaiting.push_back(grant.pool);
			grant.pool->cancelReservation();
			return false;
		}
	}
	if (grant.entry)
	{
		bool poolDone = false;
		useIdle(*granted, std::move(grant.entry), state, poolDone);
	}
	else
	{
		openOne(*granted, state);
	}
	checkAuthentication(state);
	if (state.winner)
	{
		result = state.takeWinner();
		return true;
	}
	if (state.retained && !preferredWait)
	{
		result = std::move(state.retained);
		return true;
	}
	return false;
}


bool Router::openReserved(std::vector<Slot>& slots, PassState& state)
{
	// The data source's wait past saturation was granted room rather than a session (a session of the pool
	// closed): open there first, as waitForCapacity() does with room it is granted, so that the checkout
	// keeps its turn.
	EndpointPool* pool = _request.reserved->release();
	for (Slot& slot: slots)
	{
		if (slot.pool != pool) continue;
		if (slot.tier != 0 || slot.settled || slot.failedNow) break;
		openOne(slot, state);
		checkAuthentication(state);
		return static_cast<bool>(state.winner);
	}
	pool->cancelReservation();
	return false;
}


Poco::UInt64 Router::openFailures(EndpointPool& pool)
{
	const PoolStatistics stats = pool.statistics();
	return stats.connectFailures - stats.refusals;   // 53300 is capacity: its backoff says Refused already
}


bool Router::noLongerPreferred(const Slot& slot) const
{
	if (slot.tier != 0) return false;
	const HostCandidate now = _request.hostStates->candidate(slot.endpoint, slot.position, _settings.hostRecheck);
	if (now.state == HostCandidate::DOWN) return true;
	ServerRole role = slot.pool->lastKnownRole();
	if (role == ServerRole::Unknown) role = now.role;
	return _needsRole && role != ServerRole::Unknown && verdictFor(role, slot.endpoint) != RoleVerdict::Accept;
}


void Router::releaseRejected(PoolEntryPtr entry, ServerRole role)
{
	EndpointPool* pool = entry->pool;
	if (!_request.pooled || _request.pools->keepsRole(role))
	{
		pool->release(std::move(entry));
		return;
	}
	// No checkout of the data source's own target can use it: not kept idle. The promotion watch (Failover
	// Timeout) asks it again in the next pass, through the pool: closed when the checkout ends.
	if (_settings.failoverTimeout.totalMicroseconds() > 0)
	{
		_unusable.emplace_back(pool, entry->session.get());
		pool->release(std::move(entry));
	}
	else
	{
		pool->release(std::move(entry), true);
	}
}

} } // namespace BlueTusk::Detail
