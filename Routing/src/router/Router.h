//
// Router.h
//
// Library: BlueTusk/Routing
//
// The algorithm of one open (doc/routing.md, steps 1-6) and of one pooled checkout (doc/pooling.md, "Checkout"), over
// the EndpointPools of a PoolManager.
//

#ifndef BlueTusk_Detail_Router_INCLUDED
#define BlueTusk_Detail_Router_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/HostOrderPolicy.h"
#include "HostStateRegistry.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/TargetSessionPolicy.h"
#include "HostListSnapshot.h"
#include "PolicyCallBound.h"
#include "Poco/Clock.h"
#include "Poco/Exception.h"
#include "Poco/Timestamp.h"
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace BlueTusk {
namespace Detail {

class FreshnessRule;
class GuardedTargetSessionPolicy;


class HeldReservation
	/// Owns room for one new session in a pool (a PoolGrant that is a reservation): gives it back
	/// (EndpointPool::cancelReservation()) when destroyed unless release()d. Not thread-safe.
{
public:
	HeldReservation() = default;
	~HeldReservation()
	{
		if (_pool) _pool->cancelReservation();
	}

	void hold(EndpointPool* pool)
		/// Takes ownership of a reservation in pool (none must be held).
	{
		_pool = pool;
	}

	EndpointPool* pool() const
	{
		return _pool;
	}

	EndpointPool* release()
		/// The pool, whose reservation the caller now owns (openReserved() or cancelReservation()).
	{
		EndpointPool* pool = _pool;
		_pool = nullptr;
		return pool;
	}

private:
	HeldReservation(const HeldReservation&) = delete;
	HeldReservation& operator = (const HeldReservation&) = delete;

	EndpointPool* _pool = nullptr;
};


class Router
	/// Finds a session for one target over the host list: Request::hosts (a data source's topology), else
	/// the endpoints of settings.
	///
	/// One pass (step 1-4):
	///   - The HostOrderPolicy plans the order (and concurrency) from the endpoints with their learned
	///     states. The router then sorts the planned endpoints, stably, into four tiers: endpoints that may
	///     give an Accept (learned role accepted, or not known), endpoints whose learned role the target only
	///     falls back to, endpoints whose learned role the target rejects, and endpoints known down (the last
	///     two are tried last, not skipped). Nothing learned: the plan's order as is. With a topology source
	///     (Request::hosts) its hint replaces the learned role (HostStateRegistry) when none was learned or
	///     the hint, read later, says otherwise; without either, (first pass, pooled) the endpoint pool's
	///     last known role counts. With hints, endpoints expected to accept go first in the first tier.
	///     These only order: every session's role is still refreshed or probed before it is handed out.
	///   - Per tier: (pooled only) idle sessions first, each with its role refreshed (probeRole(true)) for a
	///     targeted checkout; then new sessions (tryReserve + openReserved), one at a time or raced
	///     (concurrency > 1; every attempt joined before the pass goes on, losers cancelled).
	///   - Accept returns at once (a retained fallback goes back to its pool). The first Fallback is kept
	///     open while the search goes on; later ones go back to their pools (closed when unpooled). Reject
	///     records "standby, target primary" and releases the session. Once a fallback is kept, the later
	///     tiers (only fallbacks or known-bad endpoints) are not tried.
	///   - Failures: authentication stops everything (BlueTuskAuthenticationException); availability
	///     failures mark the endpoint down and move on; other server errors move on. SQLSTATE 53300 (too
	///     many connections) is capacity: not marked down; pooled, the endpoint counts as saturated (its
	///     pool backs off) and the checkout waits for it beside the other acceptable endpoints.
	///   - Freshness (Request::freshness, doc/freshness.md): roles are probed through the rule, which also
	///     learns the WAL positions in the same round trip, and its refine() may turn a standby's verdict into
	///     Fallback or Reject; the attempt's detail then carries its reason.
	///   - Pooled: when nothing was found and an acceptable endpoint merely had no capacity, wait on all
	///     such endpoints at once (PoolManager::waitForAny, Checkout Timeout from the start of route()).
	///   - Preferred endpoints (doc/pooling.md): when a tier-0 endpoint is up and below Maximum Pool Size but
	///     only Max Connecting (or earlier waiters) kept it from opening (PoolShortage::Opening), the
	///     fallback tier is not tried and a fallback already held is not returned: the checkout waits for
	///     the tier-0 endpoints first (first come first served, within Checkout Timeout), holding the
	///     fallback. At Checkout Timeout it returns the fallback it holds, or tries the fallback tier once,
	///     else throws the timeout. A fallback is taken at once only when no tier-0 endpoint is so.
	///   - Rejected sessions of a role the data source's own target can never use
	///     (PoolManager::keepsRole()) are not kept: closed at once, or with Failover Timeout (the promotion
	///     watch reuses them) closed when route() ends if they are still idle.
	/// After a pass without result: the retained fallback; else, within Failover Timeout, back off (100 ms
	/// doubling to 1 s), forget the learned states of the host list, and run another pass; else
	/// HostAttemptsException (a BlueTuskNoAcceptableHostException) holding every pass's attempts in order; its
	/// message lists the last pass in full and summarises the earlier ones.
{
public:
	struct Request
	{
		const ConnectionSettings* settings = nullptr;
		const SecretRedactor* redactor = nullptr;
			/// settings->redactor() when the caller keeps one (a data source: its settings never change), or
			/// null: the Router builds its own
		HostOrderPolicy::Ptr hostOrder;
		TargetSessionPolicy::Ptr target;
		HostStateRegistry* hostStates = nullptr;
		PoolManager* pools = nullptr;
		bool pooled = false;   /// take idle sessions, refresh their role, wait for capacity
		FreshnessRule* freshness = nullptr;
			/// the freshness rules of this checkout (Freshness.h), or null: roles are probed through it (with
			/// the WAL position, same round trip) and its refine() has the last word on a standby
		HostListPtr hosts;
			/// the host list to route over (a data source's current topology, doc/high-availability.md) with
			/// its role hints; null: settings->endpoints, no hints
		const Poco::Clock* started = nullptr;
			/// when the checkout began, when that was before the Router (a data source's wait past
			/// saturation): Failover Timeout and the elapsed times reported count from it; null: from the
			/// start of route()
		Poco::Timestamp deadline = Poco::Timestamp(Poco::Timestamp::TIMEVAL_MIN);
			/// the checkout's Checkout Timeout deadline (checkoutDeadline()) when the checkout began before the
			/// Router (a data source's wait past saturation); TIMEVAL_MIN: from the start of route()
		HeldReservation* reserved = nullptr;
			/// room for one new session this checkout already holds (the data source's wait past saturation
			/// ended with it, BlueTuskDataSource::Impl::waitSaturated()), or null: the first pass opens there
			/// before anything else when the endpoint is still one to open, otherwise gives the room back
	};

	static Poco::Timestamp checkoutDeadline(const ConnectionSettings& settings);
		/// Now + Checkout Timeout, or Poco::Timestamp::TIMEVAL_MAX when it is 0 (no limit, as every other
		/// timeout: doc/reliability.md).

	explicit Router(const Request& request);
	~Router();

	PoolEntryPtr route(HostAttemptList& log);
		/// The chosen session as an entry of its owning pool. Appends every attempt to log, numbered by pass
		/// (HostAttempt::pass). Throws BlueTuskAuthenticationException, HostAttemptsException,
		/// BlueTuskPoolTimeoutException (pooled, no capacity in time). Attempts, log lines and exceptions
		/// have passed the settings' redactor (ConnectionSettings::redactor()).

private:
	struct Slot;
	struct PassState;

	PoolEntryPtr pass(HostAttemptList& log, int number, Poco::Timestamp checkoutDeadline, bool usePoolRoles);
	void takeIdle(std::vector<Slot*>& slots, PassState& state);
	void openNew(std::vector<Slot*>& slots, PassState& state, std::size_t concurrency);
	void openOne(Slot& slot, PassState& state);
	void race(std::vector<Slot*>& slots, PassState& state);
	void useIdle(Slot& slot, PoolEntryPtr entry, PassState& state, bool& poolDone);
	void onSession(Slot& slot, PoolEntryPtr entry, ServerRole role, bool reused, double ms, PassState& state, HostAttempt& attempt);
	void onFailure(Slot& slot, const Poco::Exception& exc, double ms, bool cancelled, PassState& state, HostAttempt& attempt);
	void checkAuthentication(PassState& state);
	bool waitForCapacity(std::vector<Slot>& slots, PassState& state, Poco::Timestamp checkoutDeadline, bool preferredWait,
		PoolEntryPtr& result);
		/// doc/pooling.md, checkout step 3 (pooled; RouterWait.cpp): waits on the pools that had no capacity (with
		/// preferredWait the first tier's only, holding the fallback found so far) and uses what it is
		/// granted. True: pass() returns result (a session, or null when there was nothing to wait for);
		/// false: the pass is planned anew. Throws BlueTuskPoolTimeoutException and what checkAuthentication()
		/// throws.
	bool openReserved(std::vector<Slot>& slots, PassState& state);
		/// Request::reserved (RouterWait.cpp): opens on the room the checkout already holds when its endpoint
		/// is in the first tier and not settled, else gives the room back. True: state has the winner.
	void releaseRejected(PoolEntryPtr entry, ServerRole role);
		/// A session the target rejected goes back to its pool, unless the pools do not keep its role: then
		/// it is closed (no Failover Timeout), or noted in _unusable and closed when route() ends.
	static Poco::UInt64 openFailures(EndpointPool& pool);
		/// The pool's failed opens so far, 53300 refusals not counted.
	bool noLongerPreferred(const Slot& slot) const;
		/// Whether slot, planned in tier 0, is now known down or known to play a role the target does not
		/// accept: a reservation granted for it is given back and the pass planned anew.
	[[noreturn]] void throwNoAcceptable(const HostAttemptList& log, std::size_t routeStart, std::size_t passStart, int passes,
		double elapsedMs) const;
	bool useHint(const HostCandidate& candidate, ServerRole hinted) const;
		/// Whether the topology source's hint replaces candidate's learned role: when none was learned, or
		/// when the hint says otherwise (standby versus primary, or not usable) and was read after it.
	RoleVerdict verdictFor(ServerRole role, const BlueTuskHostEndpoint& endpoint) const;
		/// The target's classify(role, endpoint), asked once per pass and kept for the pass: the ordering,
		/// the verdict on the session opened or reused there and the wait ask it once, not each (thread-safe:
		/// a race's threads ask too).
	void askVerdicts(const std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>>& asks) const;
		/// Forgets the last pass's verdicts and, for a site target (TargetSessionCall.h), asks every one of
		/// asks in one bounded call (one hand-off, not one per candidate).
	std::string roleText(ServerRole role) const;
	static std::string formatMs(double ms);
		/// "12" (rounded milliseconds), for messages.

	PoolEntryPtr routeUnredacted(HostAttemptList& log);

	Request _request;
	const ConnectionSettings& _settings;
	const std::vector<BlueTuskHostEndpoint>& _endpoints; /// _request.hosts' endpoints, else the settings' ones
	const SecretRedactor _ownRedactor; /// _settings.redactor() when the request brought none (else empty)
	const SecretRedactor& _redactor;  /// the request's or _ownRedactor: every attempt, log line and exception
	                                  /// passes it
	PolicyDeadline::Scope _policyDeadline; /// the checkout's deadline for the site target-session calls, from here on
	const bool _guardWrites;          /// the target is a write target: the split-brain guard applies
	const bool _needsRole;            /// the target's needsRole(), asked once, before any session is held (a
	                                  /// site policy's call may throw: TargetSessionCall.h)
	Poco::Timespan _startupStagger;   /// of the current plan: pacing of a parallel race's startups (StartupGate)
	Poco::Timespan _connectStagger;   /// of the current plan: interval between a parallel race's TCP connects
	mutable std::mutex _verdictMutex;
	mutable std::vector<std::pair<std::pair<ServerRole, BlueTuskHostEndpoint>, RoleVerdict>> _verdicts;   /// this pass's (verdictFor())
	mutable std::vector<std::string> _policyFailures;   /// a site target's classify() throws, redacted (under
	                                                   /// _verdictMutex): those candidates were taken as Reject
	const GuardedTargetSessionPolicy* _site = nullptr;  /// the target when it is a guarded site policy
	std::vector<std::pair<EndpointPool*, const Session*>> _unusable;
		/// rejected sessions put back to idle for the promotion watch that the data source's target can
		/// never use: closed by the destructor if still idle
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_Router_INCLUDED
