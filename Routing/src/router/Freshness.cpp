//
// Freshness.cpp
//
// Library: BlueTusk/Routing
//

#include "Freshness.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <chrono>
#include <thread>

namespace BlueTusk {
namespace Detail {

namespace {

Poco::Logger& freshnessLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}


class ProbingPolicy: public TargetSessionPolicy
	/// A target that needs no role (any), made to probe: a checkout with a token must see the replay position.
{
public:
	explicit ProbingPolicy(TargetSessionPolicy::Ptr inner): _inner(std::move(inner))
	{
	}

	std::string name() const
	{
		return _inner->name();
	}

	bool needsRole() const
	{
		return true;
	}

	RoleVerdict classify(ServerRole role) const
	{
		return _inner->classify(role);
	}

	RoleVerdict classify(ServerRole role, const BlueTuskHostEndpoint& endpoint) const
	{
		return _inner->classify(role, endpoint);
	}

private:
	TargetSessionPolicy::Ptr _inner;
};


bool lagRuleApplies(TargetSessionAttributes target)
	/// Max Standby Lag: standby, read-only and prefer-standby checkouts.
{
	return target == TargetSessionAttributes::Standby || target == TargetSessionAttributes::ReadOnly ||
		target == TargetSessionAttributes::PreferStandby;
}


bool tokenRuleApplies(TargetSessionAttributes target)
	/// Read your writes: every target that may be given a standby.
{
	return target != TargetSessionAttributes::Primary && target != TargetSessionAttributes::ReadWrite;
}

} // namespace


const Poco::Timespan FreshnessState::PRIMARY_REFRESH(1, 0);


FreshnessState::FreshnessState(const ConnectionSettings& settings):
	_settings(settings)
{
}


const ConnectionSettings& FreshnessState::settings() const
{
	return _settings;
}


void FreshnessState::noteToken(Lsn token)
{
	if (!token.isValid()) return;
	std::lock_guard<std::mutex> lock(_mutex);
	_token = std::max(_token, token);
	_primary = std::max(_primary, token);
	_primarySeenUs.store(Poco::Timestamp().epochMicroseconds(), std::memory_order_relaxed);
}


Lsn FreshnessState::token() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _token;
}


void FreshnessState::noteProbe(const BlueTuskHostEndpoint& endpoint, ServerRole role, Lsn replayed, Lsn received)
{
	if (!replayed.isValid()) return;
	std::lock_guard<std::mutex> lock(_mutex);
	Position& position = _positions[endpoint];
	position.position = replayed;
	if (role == ServerRole::Standby)
	{
		const Lsn ahead = std::max(_primary, received);
		position.lag = static_cast<Poco::Int64>(Lsn::bytesBehind(ahead, replayed));
	}
	else
	{
		position.lag = 0;
		_primary = std::max(_primary, replayed);
		_primarySeenUs.store(Poco::Timestamp().epochMicroseconds(), std::memory_order_relaxed);
	}
}


Lsn FreshnessState::primaryPosition() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _primary;
}


Lsn FreshnessState::position(const BlueTuskHostEndpoint& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _positions.find(endpoint);
	return it == _positions.end() ? Lsn() : it->second.position;
}


Poco::UInt64 FreshnessState::lag(Lsn replayed, Lsn received) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return Lsn::bytesBehind(std::max(_primary, received), replayed);
}


void FreshnessState::refreshPrimary(PoolManager& pools, const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	const Poco::Int64 now = Poco::Timestamp().epochMicroseconds();
	if (now - _primarySeenUs.load(std::memory_order_relaxed) < PRIMARY_REFRESH.totalMicroseconds()) return;
	bool expected = false;
	if (!_refreshing.compare_exchange_strong(expected, true)) return;
	// Whatever happens below, the next attempt is a second away (at most one query per second).
	_primarySeenUs.store(now, std::memory_order_relaxed);
	for (const BlueTuskHostEndpoint& endpoint: endpoints)
	{
		EndpointPool& pool = pools.pool(endpoint);
		if (pool.lastKnownRole() != ServerRole::Primary) continue;
		PoolEntryPtr entry = pool.tryTakeIdle();
		if (!entry) continue;
		bool broken = false;
		try
		{
			std::vector<QueryResult> results = entry->session->executeSimple("SELECT pg_current_wal_lsn()");
			Lsn position;
			if (results.size() == 1 && results[0].rows.size() == 1 && results[0].rows[0].size() == 1 && results[0].rows[0][0] &&
				Lsn::tryParse(*results[0].rows[0][0], position))
			{
				noteProbe(endpoint, ServerRole::Primary, position, position);
			}
		}
		catch (Poco::Exception& exc)
		{
			// A standby now (promotion elsewhere) or a broken session: the lag rule goes on with what it knows.
			broken = entry->session->isBroken();
			if (freshnessLogger().debug()) freshnessLogger().debug("primary WAL position from %s not learned: %s", endpoint.toString(), _settings.redactor().redact(exc.displayText()));
		}
		pool.release(std::move(entry), broken);
		break;
	}
	_refreshing.store(false);
}


void FreshnessState::addStatistics(std::map<BlueTuskHostEndpoint, PoolStatistics>& statistics) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	for (const auto& position: _positions)
	{
		auto it = statistics.find(position.first);
		if (it == statistics.end()) continue;
		it->second.walPosition = position.second.position;
		it->second.lagBytes = position.second.lag;
	}
}


FreshnessRule::FreshnessRule(FreshnessState& state, TargetSessionAttributes target, Lsn token):
	_state(state),
	_target(target),
	_token(token),
	_useToken(token.isValid() && tokenRuleApplies(target)),
	_useLag(state.settings().maxStandbyLag > 0 && lagRuleApplies(target))
{
}


bool FreshnessRule::active() const
{
	return _useToken || _useLag;
}


ServerRole FreshnessRule::probe(Session& session)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto it = _probed.find(&session);
		if (it != _probed.end() && it->second.reusable && it->second.sessionId == session.sessionId())
		{
			// waitOnIdle() asked this session a moment ago and found the token replayed: no second round
			// trip for the route's probe (a standby's replay position only moves forward).
			it->second.reusable = false;
			return it->second.role;
		}
	}
	Lsn replayed, received;
	const ServerRole role = session.control().probeRoleAndWal(replayed, received);
	_state.noteProbe(session.endpoint(), role, replayed, received);
	Probed probed;
	probed.role = role;
	probed.replayed = replayed;
	probed.received = received;
	probed.sessionId = session.sessionId();
	std::lock_guard<std::mutex> lock(_mutex);
	_probed[&session] = probed;
	return role;
}


void FreshnessRule::markReusable(const Session& session)
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _probed.find(&session);
	if (it != _probed.end()) it->second.reusable = true;
}


bool FreshnessRule::beyondLag(const Session& session)
{
	if (!_useLag) return false;
	Probed probed;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto it = _probed.find(&session);
		if (it == _probed.end()) return false;
		probed = it->second;
	}
	return !probed.replayed.isValid() || _state.lag(probed.replayed, probed.received) > _state.settings().maxStandbyLag;
}


bool FreshnessRule::behindToken(const Session& session, Poco::UInt64& behind)
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _probed.find(&session);
	if (it == _probed.end()) return false;
	behind = Lsn::bytesBehind(_token, it->second.replayed);
	return behind > 0;
}


RoleVerdict FreshnessRule::refine(const Session& session, ServerRole role, RoleVerdict verdict, std::string& reason)
{
	if (role != ServerRole::Standby || verdict == RoleVerdict::Reject) return verdict;
	Probed probed;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto it = _probed.find(&session);
		if (it == _probed.end()) return verdict;
		probed = it->second;
	}
	const ConnectionSettings& settings = _state.settings();
	if (_useLag)
	{
		const Poco::UInt64 lag = _state.lag(probed.replayed, probed.received);
		if (!probed.replayed.isValid() || lag > settings.maxStandbyLag)
		{
			reason = probed.replayed.isValid() ?
				"standby " + formatByteSize(lag) + " behind, Max Standby Lag " + formatByteSize(settings.maxStandbyLag) :
				"standby with no replay position, Max Standby Lag " + formatByteSize(settings.maxStandbyLag);
			return RoleVerdict::Reject;
		}
	}
	if (_useToken)
	{
		const Poco::UInt64 behind = Lsn::bytesBehind(_token, probed.replayed);
		if (behind > 0)
		{
			reason = "standby " + formatByteSize(behind) + " behind the token " + _token.toString();
			if (_strict)
			{
				reason += " after Read Your Writes Timeout " + std::to_string(settings.readYourWritesTimeout.totalMilliseconds()) + " ms";
				return RoleVerdict::Reject;
			}
			return RoleVerdict::Fallback;
		}
	}
	return verdict;
}


void FreshnessRule::pause(std::chrono::microseconds& pause, const Poco::Timestamp& start, const Poco::Timestamp& deadline) const
{
	const Poco::Timespan left = deadline - Poco::Timestamp();
	std::this_thread::sleep_for(std::min(pause, std::chrono::microseconds(std::max<Poco::Int64>(1, left.totalMicroseconds()))));
	if (start.elapsed() > 20000) pause = std::min(pause * 2, std::chrono::microseconds(10000));
}


bool FreshnessRule::waitOnIdle(const TargetSessionPolicy& policy, PoolManager& pools, const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	// Only for targets that take a standby before the primary: for any and prefer-primary the route may
	// well end on the primary, which has every commit.
	if (policy.classify(ServerRole::Standby) != RoleVerdict::Accept || policy.classify(ServerRole::Primary) == RoleVerdict::Accept) return false;

	// the Router keeps the first standby behind the token as a fallback and goes on
	// looking for an acceptable one, opening new sessions on the standbys (and a new session on a standby
	// is no fresher than its idle one): every read checkout then opened a session on each standby (50 per
	// standby in 50 write-then-read cycles at 4b09e4a, FreshnessIntegrationTest). So the standbys are asked
	// here first, on the sessions their pools have idle.
	std::vector<PoolEntryPtr> held;
	auto releaseAll = [&held]
	{
		for (PoolEntryPtr& entry: held)
		{
			if (!entry) continue;
			EndpointPool* pool = entry->pool;
			const bool broken = entry->session->isBroken();
			pool->release(std::move(entry), broken);
		}
		held.clear();
	};
	// Asks one taken session: false while it is a standby behind the token (it stays taken); true once it
	// is done with, back in its pool: reached (token replayed; its answer kept for the route), or not a
	// usable standby any more (promoted, beyond Max Standby Lag, broken: the route decides).
	auto ask = [this](PoolEntryPtr& entry, bool& reached) -> bool
	{
		reached = false;
		EndpointPool* pool = entry->pool;
		ServerRole role = ServerRole::Unknown;
		try
		{
			role = probe(*entry->session);
		}
		catch (Poco::Exception&)
		{
			pool->release(std::move(entry), true);
			return true;
		}
		Poco::UInt64 behind = 0;
		if (role != ServerRole::Standby || beyondLag(*entry->session))
		{
			pool->release(std::move(entry));   // promoted, or too far behind for Max Standby Lag: the route decides
			return true;
		}
		if (behindToken(*entry->session, behind)) return false;
		markReusable(*entry->session);
		reached = true;
		pool->release(std::move(entry));
		return true;
	};

	for (const BlueTuskHostEndpoint& endpoint: endpoints)
	{
		EndpointPool& pool = pools.pool(endpoint);
		if (pool.lastKnownRole() != ServerRole::Standby) continue;
		if (_state.position(endpoint) >= _token)
		{
			releaseAll();   // a standby known to have replayed the token: the route asks it as usual
			return false;
		}
		PoolEntryPtr entry = pool.tryTakeIdle();
		if (!entry) continue;
		bool reached = false;
		if (!ask(entry, reached))
		{
			held.push_back(std::move(entry));
			continue;
		}
		if (reached)
		{
			releaseAll();
			return false;
		}
	}
	if (held.empty()) return false;

	const ConnectionSettings& settings = _state.settings();
	const Poco::Timestamp start;
	const Poco::Timestamp deadline = start + settings.readYourWritesTimeout.totalMicroseconds();
	std::chrono::microseconds next(200);
	while (Poco::Timestamp() < deadline)
	{
		pause(next, start, deadline);
		for (std::size_t i = 0; i < held.size(); ++i)
		{
			if (!held[i]) continue;
			bool reached = false;
			if (!ask(held[i], reached)) continue;
			if (reached)
			{
				releaseAll();
				return false;
			}
		}
		held.erase(std::remove(held.begin(), held.end(), nullptr), held.end());
		if (held.empty()) return false;   // none left to wait on (promoted, broken): the route decides
	}
	if (freshnessLogger().debug())
		freshnessLogger().debug("%z standby session(s) still behind the token %s after Read Your Writes Timeout; routing without them",
			held.size(), _token.toString());
	releaseAll();
	_strict = true;
	return true;
}


PoolEntryPtr FreshnessRule::checkout(const Route& route, TargetSessionPolicy::Ptr policy, PoolManager& pools,
	const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	const ConnectionSettings& settings = _state.settings();
	if (_useLag) _state.refreshPrimary(pools, endpoints);
	if (!policy->needsRole()) policy = std::make_shared<ProbingPolicy>(policy);
	if (_useToken && waitOnIdle(*policy, pools, endpoints)) return route(policy);   // waited out: strict

	PoolEntryPtr entry = route(policy);
	Poco::UInt64 behind = 0;
	if (!_useToken || entry->session->role() != ServerRole::Standby || !behindToken(*entry->session, behind)) return entry;

	// A standby behind the token (no idle standby session was at hand before routing): ask the session we
	// hold again (no new login), every 0.2 ms for the first 20 ms (a standby that streams replays a commit
	// within a few ms: a longer pause would be most of the wait; measured in doc/freshness.md), then
	// doubling to 10 ms, until it has replayed up to the token or Read Your Writes Timeout runs out.
	const Poco::Timestamp start;
	const Poco::Timestamp deadline = start + settings.readYourWritesTimeout.totalMicroseconds();
	std::chrono::microseconds next(200);
	while (Poco::Timestamp() < deadline)
	{
		pause(next, start, deadline);
		try
		{
			if (probe(*entry->session) != ServerRole::Standby) break;   // promoted meanwhile: route anew
		}
		catch (Poco::Exception&)
		{
			break;
		}
		if (!behindToken(*entry->session, behind)) return entry;
	}
	if (freshnessLogger().debug())
		freshnessLogger().debug("%s: standby %s behind the token %s after Read Your Writes Timeout; routing again without it",
			entry->pool->endpoint().toString(), formatByteSize(behind), _token.toString());
	EndpointPool* pool = entry->pool;
	const bool broken = entry->session->isBroken();
	pool->release(std::move(entry), broken);
	_strict = true;
	return route(policy);
}

} } // namespace BlueTusk::Detail
