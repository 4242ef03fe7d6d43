//
// Router.cpp
//
// Library: BlueTusk/Routing
//

#include "RouterPass.h"
#include "HostOrderCall.h"
#include "TargetSessionCall.h"
#include "SplitBrainGuard.h"
#include "BlueTusk/PoolObserver.h"
#include "AttemptFailure.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/StartupGate.h"
#include "Freshness.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include "Poco/Thread.h"
#include <algorithm>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

namespace BlueTusk {
namespace Detail {






Router::Router(const Request& request):
	_request(request),
	_settings(*request.settings),
	_endpoints(request.hosts ? request.hosts->endpoints : request.settings->endpoints),
	_ownRedactor(request.redactor ? SecretRedactor() : request.settings->redactor()),
	_redactor(request.redactor ? *request.redactor : _ownRedactor),
	_policyDeadline(_settings.checkoutTimeout, _settings.connectTimeout, _redactor),
	_guardWrites(guardsWrites(*request.target)),
	_needsRole(request.target->needsRole()),
	_site(dynamic_cast<const GuardedTargetSessionPolicy*>(request.target.get()))
{
}


Router::~Router()
{
	// The rejected sessions kept for the promotion watch that no checkout of the data source's own target
	// can use: closed now if they still sit idle (doc/pooling.md).
	for (const auto& unusable: _unusable) unusable.first->closeIdleSession(unusable.second);
}


bool Router::useHint(const HostCandidate& candidate, ServerRole hinted) const
{
	if (candidate.role == ServerRole::Unknown) return true;
	// A learned role (confirmed by a session) stands unless the source read something else after it.
	if ((hinted == ServerRole::Standby) == (candidate.role == ServerRole::Standby) && hinted != ServerRole::Unknown) return false;
	return _request.hostStates->entry(candidate.endpoint).roleLearnedAt < _request.hosts->readAt;
}


std::string Router::roleText(ServerRole role) const
{
	return toString(role);
}


PoolEntryPtr Router::route(HostAttemptList& log)
{
	try
	{
		return routeUnredacted(log);
	}
	catch (Poco::Exception& exc)
	{
		_redactor.rethrow(exc);
	}
}


Poco::Timestamp Router::checkoutDeadline(const ConnectionSettings& settings)
{
	// Checkout Timeout=0 means no limit, like every other timeout (doc/reliability.md).
	if (settings.checkoutTimeout.totalMicroseconds() <= 0) return Poco::Timestamp(Poco::Timestamp::TIMEVAL_MAX);
	Poco::Timestamp deadline;
	deadline += settings.checkoutTimeout.totalMicroseconds();
	return deadline;
}


PoolEntryPtr Router::routeUnredacted(HostAttemptList& log)
{
	Poco::Clock start;
	if (_request.started) start = *_request.started;   // the checkout's wait past saturation counts too
	const Poco::Timestamp checkoutDeadline = _request.deadline == Poco::Timestamp(Poco::Timestamp::TIMEVAL_MIN)
		? Router::checkoutDeadline(_settings) : _request.deadline;
	Poco::Timespan backoff(0, 100000);
	const Poco::Timespan maxBackoff(1, 0);
	int passes = 0;
	bool usePoolRoles = true;
	const std::size_t routeStart = log.size();
	for (;;)
	{
		++passes;
		std::size_t passStart = log.size();
		PoolEntryPtr result = pass(log, passes, checkoutDeadline, usePoolRoles);
		if (result) return result;

		Poco::Timespan elapsed(start.elapsed());
		Poco::Timespan remaining = _settings.failoverTimeout - elapsed;
		if (_settings.failoverTimeout.totalMicroseconds() > 0 && remaining.totalMicroseconds() > 0)
		{
			// Promotion watch: when the pass reached a healthy server and only its role was wrong (a
			// standby for a write target), a promotion is what we wait for: ask again every Failover Poll
			// Milliseconds (pooled sessions of the rejected servers are reused, so the next pass costs a role
			// probe each, not a login). Only passes where nothing answered back off (100 ms doubling to 1 s).
			bool healthyRejected = false;
			for (std::size_t i = passStart; i < log.size(); ++i) healthyRejected = healthyRejected || log[i].outcome == HostAttempt::REJECTED;
			const bool poll = healthyRejected && _settings.failoverPoll.totalMicroseconds() > 0;
			Poco::Timespan wait = std::min(poll ? _settings.failoverPoll : backoff, remaining);
			logger().information("no acceptable host for target %s after pass %d; retrying in %s ms (Failover Timeout)",
				_request.target->name(), passes, formatMs(wait.totalMicroseconds() / 1000.0));
			Poco::Thread::sleep(static_cast<long>(std::max<Poco::Timespan::TimeDiff>(1, (wait.totalMicroseconds() + 999) / 1000)));
			if (!poll) backoff = std::min(backoff + backoff, maxBackoff);
			_request.hostStates->forget(_endpoints);
			usePoolRoles = false;
			continue;
		}
		throwNoAcceptable(log, routeStart, passStart, passes, millisecondsSince(start));
	}
}


RoleVerdict Router::verdictFor(ServerRole role, const BlueTuskHostEndpoint& endpoint) const
{
	{
		std::lock_guard<std::mutex> lock(_verdictMutex);
		for (const auto& known: _verdicts)
			if (known.first.first == role && known.first.second == endpoint) return known.second;
	}
	// Asked without the lock (a site policy's call is bounded and may throw); a race's two threads asking
	// the same at once both ask. A site policy's throw makes the candidate not acceptable for this pass
	// (logged once, kept as the cause should no candidate be acceptable: doc/plugin-calls.md).
	std::vector<std::string> failures;
	const RoleVerdict verdict = _site ? _site->classifyEachOrReject({{role, endpoint}}, failures).front()
		: _request.target->classify(role, endpoint);
	std::lock_guard<std::mutex> lock(_verdictMutex);
	_verdicts.emplace_back(std::make_pair(role, endpoint), verdict);
	_policyFailures.insert(_policyFailures.end(), failures.begin(), failures.end());
	return verdict;
}


void Router::askVerdicts(const std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>>& asks) const
{
	{
		std::lock_guard<std::mutex> lock(_verdictMutex);
		_verdicts.clear();
	}
	if (!_site || asks.size() < 2) return;   // a standard target is cheap to ask; one ask is asked when needed
	std::vector<std::string> failures;
	const std::vector<RoleVerdict> verdicts = _site->classifyEachOrReject(asks, failures);
	std::lock_guard<std::mutex> lock(_verdictMutex);
	for (std::size_t i = 0; i < asks.size() && i < verdicts.size(); ++i) _verdicts.emplace_back(asks[i], verdicts[i]);
	_policyFailures.insert(_policyFailures.end(), failures.begin(), failures.end());
}


PoolEntryPtr Router::pass(HostAttemptList& log, int number, Poco::Timestamp checkoutDeadline, bool usePoolRoles)
{
	const bool needsRole = _needsRole;
	PassState state(log, number);

	for (;;)
	{
		// Step 1: the policy's plan over the endpoints and what is known of them.
		std::vector<HostCandidate> candidates;
		candidates.reserve(_endpoints.size());
		for (std::size_t i = 0; i < _endpoints.size(); ++i)
		{
			HostCandidate candidate = _request.hostStates->candidate(_endpoints[i], i, _settings.hostRecheck);
			// A topology source's hint read after the role was learned, then the pool's: both order only.
			ServerRole hinted = ServerRole::Unknown;
			const bool hasHint = _request.hosts && _request.hosts->hint(_endpoints[i], hinted) && useHint(candidate, hinted);
			if (hasHint) candidate.role = hinted;
			else if (candidate.role == ServerRole::Unknown && _request.pooled && usePoolRoles)
			{
				candidate.role = _request.pools->pool(_endpoints[i]).lastKnownRole();
			}
			candidates.push_back(candidate);
		}
		// No lock is held; a site policy runs on a helper thread within the checkout's deadline and every
		// failure is a BlueTuskPluginException naming it (HostOrderCall.h). The pass holds no session yet
		// that an exception could lose (PassState releases what it holds).
		HostOrderPlan plan = HostOrderCall::plan(_request.hostOrder, candidates, checkoutDeadline, _settings);

		// Step 2: tiers (stable): may accept, fallback only, known down or rejected. The target is asked about
		// every candidate of a known role at once (a site policy: one bounded call), then each verdict kept.
		std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>> asks;
		if (needsRole)
		{
			std::set<std::size_t> asked;
			for (std::size_t index: plan.order)
			{
				if (index >= candidates.size() || !asked.insert(index).second) continue;
				const HostCandidate& candidate = candidates[index];
				if (candidate.role == ServerRole::Unknown) continue;
				if (_guardWrites && _request.hostStates->isDeposed(candidate.endpoint, _endpoints)) continue;
				asks.emplace_back(candidate.role, candidate.endpoint);
			}
		}
		askVerdicts(asks);
		std::vector<Slot> slots;
		std::set<std::size_t> seen;
		for (std::size_t index: plan.order)
		{
			if (index >= candidates.size() || !seen.insert(index).second) continue;
			const HostCandidate& candidate = candidates[index];
			Slot slot;
			slot.position = index;
			slot.endpoint = candidate.endpoint;
			slot.pool = &_request.pools->pool(candidate.endpoint);
			slot.down = candidate.state == HostCandidate::DOWN;
			slot.failedNow = std::find(state.failedWhileWaiting.begin(), state.failedWhileWaiting.end(), slot.pool) != state.failedWhileWaiting.end();
			slot.declined = slot.failedNow || std::find(state.declined.begin(), state.declined.end(), slot.pool) != state.declined.end();
			slot.settled = state.isSettled(slot.pool);
			if (!needsRole) slot.expect = Expect::Accept;
			else if (candidate.role == ServerRole::Unknown) slot.expect = Expect::Unknown;
			else if (_guardWrites && _request.hostStates->isDeposed(candidate.endpoint, _endpoints))
			{
				slot.expect = Expect::Reject;   // the split-brain guard: last, and nothing of it stays pooled
				if (_request.pooled) slot.pool->closeIdle();
			}
			else
			{
				switch (verdictFor(candidate.role, candidate.endpoint))
				{
				case RoleVerdict::Accept:   slot.expect = Expect::Accept; break;
				case RoleVerdict::Fallback: slot.expect = Expect::Fallback; break;
				case RoleVerdict::Reject:   slot.expect = Expect::Reject; break;
				}
			}
			// 0: may accept; 1: fallback only; 2: reachable but rejected when last seen; 3: known down.
			if (slot.down) slot.tier = 3;
			else if (slot.expect == Expect::Reject) slot.tier = 2;
			else if (slot.expect == Expect::Fallback) slot.tier = 1;
			else slot.tier = 0;
			slots.push_back(slot);
		}
		// With a topology source's hints, an endpoint expected to accept goes before one of unknown role (a
		// member the source calls the leader before one it says is not running) within the first tier.
		const bool hinted = _request.hosts && !_request.hosts->roleHints.empty();
		std::stable_sort(slots.begin(), slots.end(), [hinted](const Slot& a, const Slot& b)
		{
			if (a.tier != b.tier) return a.tier < b.tier;
			return hinted && a.tier == 0 && a.expect == Expect::Accept && b.expect == Expect::Unknown;
		});
		if (_request.reserved && _request.reserved->pool() && openReserved(slots, state)) return state.takeWinner();
		std::size_t concurrency = std::max<std::size_t>(1, plan.concurrency);
		_startupStagger = plan.startupStagger;
		_connectStagger = plan.connectStagger;

		state.saturated.clear();
		state.saturatedLate.clear();
		state.preferredOpening.clear();

		// Steps 3-4, tier by tier: idle sessions first (pooled), then new ones.
		for (int tier = 0; tier <= 3 && !state.winner; ++tier)
		{
			if (tier > 0 && state.retained) break;
			// A preferred endpoint that is up and only waits for an open slot (Max Connecting) comes before
			// any fallback: storm control delays a checkout, it does not send it elsewhere (doc/pooling.md).
			if (tier > 0 && _request.pooled && !state.preferredOpening.empty() && !state.preferredWaitOver) break;
			if (tier >= 2 && !state.saturated.empty()) break; // wait for an acceptable endpoint instead
			std::vector<Slot*> tierSlots;
			for (Slot& slot: slots)
			{
				if (slot.tier == tier) tierSlots.push_back(&slot);
			}
			if (tierSlots.empty()) continue;
			if (_request.pooled) takeIdle(tierSlots, state);
			checkAuthentication(state);
			if (state.winner) break;
			openNew(tierSlots, state, concurrency);
			checkAuthentication(state);
		}

		if (state.winner) return state.takeWinner();
		// A fallback is returned at once unless a preferred endpoint is only waiting for an open slot: then
		// the checkout waits for the preferred endpoints (tier 0; saturated holds no other tier then),
		// holding the fallback.
		const bool preferredWait = _request.pooled && !state.preferredOpening.empty() && !state.preferredWaitOver;
		if (state.retained && !preferredWait) return std::move(state.retained);

		// doc/pooling.md, checkout step 3: no immediate capacity anywhere acceptable: wait (RouterWait.cpp).
		PoolEntryPtr result;
		if (waitForCapacity(slots, state, checkoutDeadline, preferredWait, result)) return result;
		// Rejected, failed, or a fallback while a preferred endpoint may still come: look again (the
		// deadline stays).
	}
}


void Router::takeIdle(std::vector<Slot*>& slots, PassState& state)
{
	for (Slot* slot: slots)
	{
		if (state.winner) return;
		if (slot->settled || (slot->expect == Expect::Fallback && state.retained)) continue;
		bool poolDone = false;
		while (!poolDone && !state.winner)
		{
			PoolEntryPtr entry = slot->pool->tryTakeIdle();
			if (!entry) break;
			useIdle(*slot, std::move(entry), state, poolDone);
		}
	}
}


void Router::useIdle(Slot& slot, PoolEntryPtr entry, PassState& state, bool& poolDone)
{
	Poco::Clock start;
	ServerRole role = ServerRole::Unknown;
	if (_needsRole)
	{
		// doc/pooling.md, checkout step 2: a pooled session's role is refreshed before a targeted checkout accepts it, with
		// the cheapest round trip that gives a fresh one (SessionControl::refreshRole(): a bare Sync on PostgreSQL
		// 14+), or not at all while a ReadyForQuery confirmed it less than Role Recheck Milliseconds ago.
		// The freshness rules need the WAL positions: their probe (doc/freshness.md).
		double roundTripMs = -1;   // HostCandidate::lastQueryMs: only when a round trip was made
		try
		{
			Session& session = *entry->session;
			if (!_request.freshness && session.control().roleConfirmedWithin(_settings.roleRecheck)) role = session.role();
			else
			{
				Poco::Clock roundTrip;
				role = _request.freshness ? _request.freshness->probe(session) : session.control().refreshRole();
				roundTripMs = millisecondsSince(roundTrip);
			}
		}
		catch (Poco::Exception& exc)
		{
			if (logger().debug())
				logger().debug("idle session to %s failed its role probe, discarded: %s", _redactor.redact(slot.endpoint.toString()), _redactor.redact(exc.displayText()));
			EndpointPool* pool = entry->pool;
			pool->release(std::move(entry), true);
			return; // try the pool's next idle session
		}
		if (roundTripMs >= 0) _request.hostStates->noteQueryTime(slot.endpoint, roundTripMs);
	}
	else
	{
		role = entry->session->role();
	}
	HostAttempt attempt;
	onSession(slot, std::move(entry), role, true, millisecondsSince(start), state, attempt);
	state.record(attempt);
	poolDone = true;
}


void Router::openNew(std::vector<Slot*>& slots, PassState& state, std::size_t concurrency)
{
	std::vector<Slot*> todo;
	for (Slot* slot: slots)
	{
		if (slot->failedNow || slot->settled) continue;
		if (slot->expect == Expect::Fallback && state.retained) continue;
		todo.push_back(slot);
	}
	if (concurrency <= 1 || todo.size() <= 1)
	{
		for (Slot* slot: todo)
		{
			if (state.winner || state.authFailure) return;
			if (slot->expect == Expect::Fallback && state.retained) continue;
			PoolShortage shortage = PoolShortage::None;
			if (!slot->pool->tryReserve(shortage))
			{
				if (shortage == PoolShortage::Draining)
				{
					HostAttempt attempt;
					attempt.endpoint = slot->endpoint;
					attempt.outcome = HostAttempt::FAILED;
					attempt.detail = "draining";
					state.record(attempt);
				}
				else state.addShortage(*slot, shortage);
				continue;
			}
			openOne(*slot, state);
		}
		return;
	}
	for (std::size_t begin = 0; begin < todo.size(); begin += concurrency)
	{
		if (state.winner || state.authFailure) return;
		std::vector<Slot*> batch(todo.begin() + begin, todo.begin() + std::min(todo.size(), begin + concurrency));
		race(batch, state);
	}
}


void Router::openOne(Slot& slot, PassState& state)
{
	// The caller holds a reservation in slot.pool.
	Poco::Clock start;
	PoolEntryPtr entry;
	ServerRole role = ServerRole::Unknown;
	HostAttempt attempt;
	try
	{
		entry = slot.pool->openReserved();
		if (_needsRole) role = _request.freshness ? _request.freshness->probe(*entry->session) : entry->session->control().probeRole(false);
	}
	catch (Poco::Exception& exc)
	{
		if (entry) slot.pool->release(std::move(entry), true);
		onFailure(slot, exc, millisecondsSince(start), false, state, attempt);
		state.record(attempt);
		return;
	}
	onSession(slot, std::move(entry), role, false, millisecondsSince(start), state, attempt);
	state.record(attempt);
}




void Router::onSession(Slot& slot, PoolEntryPtr entry, ServerRole role, bool reused, double ms, PassState& state, HostAttempt& attempt)
{
	const TargetSessionPolicy& target = *_request.target;
	attempt.endpoint = slot.endpoint;
	attempt.role = role;
	attempt.reused = reused;
	attempt.elapsedMs = ms;
	_request.hostStates->markUp(slot.endpoint, role);
	if (!reused) _request.hostStates->noteConnectTime(slot.endpoint, ms);   // HostCandidate::lastConnectMs
	if (role != ServerRole::Unknown) slot.pool->setLastKnownRole(role);

	RoleVerdict verdict = RoleVerdict::Accept;
	if (_needsRole && role != ServerRole::Unknown)
	{
		try
		{
			verdict = verdictFor(role, slot.endpoint);
		}
		catch (...)
		{
			// A site policy failed (a BlueTuskPluginException naming it, TargetSessionCall.h): the session is
			// healthy and goes back to its pool before the checkout fails with it.
			EndpointPool* pool = entry->pool;
			pool->release(std::move(entry));
			throw;
		}
	}
	else if (_needsRole)
	{
		verdict = RoleVerdict::Reject;
	}
	std::string reason = roleText(role);   // "standby 4.2 MB behind, Max Standby Lag 1 MB" when a freshness rule decided
	if (_request.freshness && verdict != RoleVerdict::Reject)
	{
		std::string why;
		verdict = _request.freshness->refine(*entry->session, role, verdict, why);
		if (!why.empty()) reason = why;
	}
	EndpointPool* pool = entry->pool;
	if (role == ServerRole::Standby) _request.hostStates->clearPrimaryTimeline(slot.endpoint);
	else if (verdict == RoleVerdict::Accept && _guardWrites && !state.winner)
	{
		GuardVerdict guard = checkPrimary(*_request.hostStates, _endpoints, slot.endpoint, *entry->session);
		if (!guard.admit)
		{
			// A deposed primary: not for writes, and none of its sessions stays pooled (doc/high-availability.md).
			attempt.outcome = HostAttempt::REJECTED;
			attempt.detail = _redactor.redact(guard.detail);
			state.decline(slot);
			state.settle(slot);
			pool->release(std::move(entry), true);
			slot.pool->closeIdle();
			if (PoolObserver* observer = _request.pools->observer()) observer->splitBrainRefused(slot.endpoint);
			logger().warning("%s: %s", _redactor.redact(slot.endpoint.toString()), attempt.detail);
			return;
		}
	}
	if (verdict != RoleVerdict::Accept) state.decline(slot);
	switch (verdict)
	{
	case RoleVerdict::Accept:
		if (state.winner || state.authFailure)
		{
			attempt.outcome = HostAttempt::LOST_RACE;
			attempt.detail = roleText(role) + ", lost the race";
			pool->release(std::move(entry));
		}
		else
		{
			attempt.outcome = HostAttempt::ACCEPTED;
			attempt.detail = role == ServerRole::Unknown ? std::string("connected") : roleText(role);
			state.winner = std::move(entry);
		}
		break;
	case RoleVerdict::Fallback:
		if (state.winner || state.retained || state.authFailure)
		{
			attempt.outcome = state.winner ? HostAttempt::LOST_RACE : HostAttempt::FALLBACK_RELEASED;
			attempt.detail = reason + ", fallback for target " + target.name() + " (not kept)";
			pool->release(std::move(entry));
		}
		else
		{
			attempt.outcome = HostAttempt::FALLBACK_RETAINED;
			attempt.detail = reason + ", fallback for target " + target.name();
			state.retained = std::move(entry);
		}
		break;
	case RoleVerdict::Reject:
		attempt.outcome = HostAttempt::REJECTED;
		attempt.detail = reason + ", target " + target.name();
		state.settle(slot);
		releaseRejected(std::move(entry), role);
		break;
	}
	// Poco 1.11 formats the message before it checks the level: check first (doc/performance.md, R1).
	if (logger().debug()) logger().debug("%s: %s", _redactor.redact(slot.endpoint.toString()), attempt.detail);
}


void Router::onFailure(Slot& slot, const Poco::Exception& exc, double ms, bool cancelled, PassState& state, HostAttempt& attempt)
{
	AttemptFailure failure = AttemptFailure::classify(exc, _settings, cancelled);
	attempt.endpoint = slot.endpoint;
	attempt.elapsedMs = ms;
	attempt.detail = _redactor.redact(failure.detail);
	attempt.nestedText = _redactor.redact(failure.fullText);
	switch (failure.kind)
	{
	case AttemptFailure::AUTHENTICATION:
		attempt.outcome = HostAttempt::AUTH_FAILED;
		if (!state.authFailure)
		{
			state.authFailure.reset(exc.clone());
			state.authEndpoint = slot.endpoint.toString();
		}
		break;
	case AttemptFailure::UNAVAILABLE:
		attempt.outcome = HostAttempt::FAILED;
		_request.hostStates->markDown(slot.endpoint, failure.detail);
		state.settle(slot);
		break;
	case AttemptFailure::CAPACITY:
		// 53300: full, not down. The pool backs off (EndpointPool::openReserved); a pooled checkout waits
		// for one of this endpoint's sessions, or its next open, beside the other acceptable endpoints.
		attempt.outcome = HostAttempt::FAILED;
		if (_request.pooled) state.addSaturated(slot.pool, slot.tier);
		break;
	case AttemptFailure::SERVER_ERROR:
		attempt.outcome = HostAttempt::FAILED;
		state.settle(slot);
		break;
	case AttemptFailure::CANCELLED:
		attempt.outcome = HostAttempt::LOST_RACE;
		break;
	}
	// Poco 1.11 formats the message before it checks the level: check first (doc/performance.md, R1).
	if (logger().debug()) logger().debug("%s: %s", _redactor.redact(slot.endpoint.toString()), attempt.detail);
}


void Router::checkAuthentication(PassState& state)
{
	if (!state.authFailure || state.winner) return;
	state.releaseAll();
	std::string message = "authentication failed at " + state.authEndpoint +
		(state.raced ? " (the race was stopped; attempts already under way were abandoned): " : " (later hosts not tried): ") +
		state.authFailure->message();
	logger().warning("%s", _redactor.redact(message));
	throw BlueTuskAuthenticationException(message, *state.authFailure); // route() redacts it
}


} } // namespace BlueTusk::Detail
