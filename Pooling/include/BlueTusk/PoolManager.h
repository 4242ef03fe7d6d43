//
// PoolManager.h
//
// Library: BlueTusk/Pooling
//
// One EndpointPool per distinct endpoint, their shared first-come-first-served waiting, and pruning; the
// counters it reports (PoolStatistics, doc/pooling.md).
//

#ifndef BlueTusk_PoolManager_INCLUDED
#define BlueTusk_PoolManager_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/PoolObserver.h"
#include "BlueTusk/Session.h"
#include "Poco/Timestamp.h"
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include "BlueTusk/Lsn.h"
#include "BlueTusk/PreparedStatement.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {

struct BlueTusk_Pooling_API PoolStatistics
	/// A consistent snapshot (taken under the pool lock): busy + idle == total. Sessions being opened
	/// count as busy. In an aggregate, minSize and maxSize are sums, lastKnownRole is Unknown and the WAL
	/// position unknown.
{
	int total = 0;       /// sessions owned by the pool(s): idle + busy
	int idle = 0;        /// sessions ready to hand out
	int busy = 0;        /// leased sessions, plus sessions being opened
	int connecting = 0;  /// of busy: opens in flight (reservations and warm-up opens; at most Max Connecting)
	int pending = 0;     /// checkouts waiting for capacity
	Poco::UInt64 created = 0;          /// physical sessions opened successfully
	Poco::UInt64 closed = 0;           /// physical sessions closed (any reason, evictions included)
	Poco::UInt64 evicted = 0;          /// closed by the eviction policy (idle or max lifetime)
	Poco::UInt64 checkoutTimeouts = 0; /// checkouts that gave up after Checkout Timeout
	Poco::UInt64 connectFailures = 0;  /// failed attempts to open a new session (a parallel race's cancelled
	                                   /// losers are not failures)
	Poco::UInt64 refusals = 0;         /// of connectFailures: opens the server refused with SQLSTATE 53300
	                                   /// (too many connections), taken as capacity, not as a down host
	int minSize = 0;
	int maxSize = 0;
	bool draining = false;
	ServerRole lastKnownRole = ServerRole::Unknown;
	Lsn walPosition;
		/// the endpoint's last known WAL position (doc/freshness.md): a standby's replay position, a
		/// primary's current position, as of the last role-and-WAL probe (0/0: not known; the freshness
		/// rules probe it, so it stays unknown while neither is in use)
	Poco::Int64 lagBytes = -1;
		/// how far that standby was behind the primary then, in bytes (0 for a primary; -1: not known)
	StatementStatistics statements;
		/// the sums over every session this pool has owned of their prepared statements, statement
		/// cache hits, evictions and re-prepares (Session::statementStatistics())

	PoolStatistics& operator += (const PoolStatistics& other);
		/// Adds counters and sizes; draining becomes true if either is; the role becomes Unknown.

	std::string toString() const;
		/// "total=3 idle=1 busy=2 pending=0 created=3 closed=0 evicted=0 timeouts=0 failures=0 min=0 max=20",
		/// then "prepared=2 cacheHits=96 evictions=0 reprepared=0" once a session prepared or hit anything,
		/// "wal=0/3000060 lag=4.2 MB" once the position is known; "connecting=2" and "refused=5" when not 0.
};


class EndpointPool;
class PoolManager;


class BlueTusk_Pooling_API PoolClock
	/// The time source of the pools; tests substitute a controllable one.
{
public:
	using Ptr = std::shared_ptr<PoolClock>;
	virtual ~PoolClock();
	virtual Poco::Timestamp now() const;
		/// The current time. The default reads the system clock's coarse variant (CLOCK_REALTIME_COARSE,
		/// resolution of one kernel tick, 1-4 ms): pool times decide lifetimes of seconds. Thread-safe.
};


struct BlueTusk_Pooling_API PoolEntry
	/// One physical session owned by an EndpointPool, while it is handed out.
{
	Session::Ptr session;
	PooledSessionInfo info;
	EndpointPool* pool = nullptr;   /// the owning pool: release() always goes back there
	std::int64_t leasedAt = 0;      /// PoolObserver::ticks() when a data source whose pool has an observer
	                                /// handed it out (0: not timed); release() reports the use time
	bool idleCheckout = false;      /// with leasedAt: handed out by the data source's idle fast path
};

using PoolEntryPtr = std::unique_ptr<PoolEntry>;


struct BlueTusk_Pooling_API PoolGrant
	/// What an acquisition yields: an idle session (entry set), or a reservation of capacity in pool
	/// (entry null) that the caller turns into a session with EndpointPool::openReserved() or gives back
	/// with EndpointPool::cancelReservation(). An empty grant (pool null) means nothing was available.
{
	EndpointPool* pool = nullptr;
	PoolEntryPtr entry;

	bool empty() const { return pool == nullptr; }
	bool isReservation() const { return pool != nullptr && !entry; }
};


enum class PoolShortage
	/// Why EndpointPool::tryReserve() found no room for a new session (doc/pooling.md, "Preferred
	/// endpoints"). The router waits for an Opening endpoint that its target prefers rather than take a
	/// fallback; a Full, Refused or Draining one is no reason to wait.
{
	None,     /// there was room: the reservation was made
	Opening,  /// below Maximum Pool Size (counting the checkouts already waiting for the pool), but Max
	          /// Connecting opens are in flight or earlier checkouts wait first: room comes when an open ends
	Full,     /// Maximum Pool Size sessions (idle, busy and being opened), or as many with the waiters ahead
	Refused,  /// a 53300 backoff runs: the server refuses more sessions for now
	Draining  /// the pool drains
};


class BlueTusk_Pooling_API EndpointPool
	/// The sessions of one endpoint (doc/pooling.md): minimum and maximum size, idle and maximum
	/// lifetime (through the EvictionPolicy), reset on return, warm-up and draining. Created and owned by a
	/// PoolManager. All methods are thread-safe (they share the manager's lock).
{
public:
	const BlueTuskHostEndpoint& endpoint() const;

	PoolEntryPtr tryTakeIdle();
		/// An idle session, most recently returned first, or null. Never waits, no I/O. Null when
		/// draining or when earlier checkouts are waiting for this pool (first come, first served).
		/// A role the session knows becomes the pool's lastKnownRole() (as for every session the pool
		/// opens, warms up or adopts). Thread-safe.

	bool tryReserve();
		/// Reserves room for one new session if total < maximum and not draining (and nobody waits), fewer
		/// than Max Connecting opens of this pool are in flight (reservations and warm-up opens; pools that
		/// enforce no maximum have no such limit), and no 53300 backoff runs (see openReserved()).
		/// The reservation counts as busy and as connecting until openReserved() or cancelReservation().

	bool tryReserve(PoolShortage& shortage);
		/// As tryReserve(); when there is no room, shortage says why (None when the reservation was made).
		/// Taken under the same lock as the attempt.

	PoolEntryPtr openReserved();
		/// Opens a new session through the SessionFactory on a reservation. On failure the reservation is
		/// released (waiters are told), connectFailures is counted (not for an open abandoned through its
		/// OpenCancellation, e.g. a parallel race's loser), and the factory's exception propagates.
		/// Success or failure, the open no longer counts as connecting and waiters are told.
		/// A BlueTuskServerException with SQLSTATE 53300 (too many connections) is capacity, not a down
		/// host: it is counted in refusals and, when the manager enforces a maximum (a data source), the
		/// pool opens nothing for a backoff (50 ms, doubling to 1 s, ended by a successful open) while it
		/// goes on handing out what is open; waitForAny() retries when the backoff ends.

	PoolEntryPtr openReserved(const OpenCancellation& cancellation);
		/// As openReserved(), through SessionFactory::openCancellable(): another thread may abandon the open
		/// (a losing attempt of a parallel race). A cancelled open releases the reservation like a failure.

	void cancelReservation();
		/// Gives back a reservation that was not used.

	bool openIdle();
		/// Opens one new session on a reservation (tryReserve() rules, Max Connecting included) and keeps
		/// it idle (or hands it to the first waiter): the rebalancing of doc/high-availability.md, "Storm
		/// control". False when no reservation was had, the pool keeps nothing idle or the open failed
		/// (counted and logged, not thrown). A session whose role the manager does not keep
		/// (PoolManager::keepsRole()) is closed at once (true is returned: lastKnownRole() tells the role).
		/// Blocks for the open. Thread-safe.

	int closeIdle(int atMost);
		/// Closes up to atMost idle sessions now, least recently returned first (counted as closed, not
		/// evicted) and returns how many; busy sessions are never touched. Thread-safe.

	void release(PoolEntryPtr entry, bool broken = false);
		/// Returns a leased session. A broken one (or one whose isBroken() is true) is closed; otherwise
		/// it is reset (unless No Reset On Close: DISCARD ALL; with a transaction open: ROLLBACK, and
		/// DISCARD ALL at once, outside the lock; with none: DISCARD ALL deferred to the front of the
		/// session's next command, SessionControl::deferReset(), so the return costs no round trip; none at all
		/// when the session ran nothing since its last reset, SessionControl::ranSinceReset()), then handed
		/// to the first waiter whose set contains this pool, or kept idle if the EvictionPolicy agrees and
		/// pooling is on, else closed. A session whose reset fails is closed. Never throws.

	void adopt(Session::Ptr session);
		/// Takes a session opened outside the pool (a race loser, the health monitor's probe) as idle if
		/// there is room, the pool keeps idle sessions and the manager keeps the session's role (when it
		/// knows one: PoolManager::keepsRole()); otherwise closes it. Never throws.

	bool closeIdleSession(const Session* session);
		/// Closes session now (counted as closed) if it sits idle in this pool; true if it did. A router
		/// closes so, when its checkout ends, the sessions it rejected and put back that the data source's own
		/// target can never use (doc/pooling.md, "Sessions of a role the data source cannot use").
		/// Thread-safe.

	PoolEntryPtr takeIdleForCheck(Poco::Timespan idleAtLeast);
		/// For a background health check (the connector's health monitor, doc/high-availability.md): the
		/// least recently returned idle session, counted busy, when it has been idle idleAtLeast or longer,
		/// the pool holds at least two idle sessions (so a checkout always finds another one), nobody waits
		/// and the pool does not drain; else null. Never waits, no I/O. Give it back with returnChecked().
		/// Thread-safe.

	void returnChecked(PoolEntryPtr entry, bool close);
		/// Gives back a session taken with takeIdleForCheck(): to the first waiter, else idle again in its
		/// old place (least recently returned) with its idle time unchanged (a check does not keep an idle
		/// session from its Idle Lifetime); closed (counted closed) when close is true, when it is broken or
		/// the pool drains. Never throws. Thread-safe.

	void drain();
		/// Hands out nothing new from this pool, closes its idle sessions now, and closes busy ones when
		/// they return. Waiters whose only pool this is time out.

	int closeIdle();
		/// Closes the idle sessions now (counted as closed) and returns how many; unlike drain() the pool
		/// goes on handing out sessions (e.g. a server found deposed: the split-brain guard).

	void resume();
		/// Ends draining.

	bool isDraining() const;

	bool hasWaiters() const;
		/// True when checkouts wait for capacity of this pool (PoolManager::waitForAny()). Read without the
		/// lock: a hint that may be stale by the time the caller acts on it; waitForAny() decides under the
		/// lock. Thread-safe.

	void setSizes(int minSize, int maxSize);
		/// Overrides Minimum and Maximum Pool Size for this endpoint only (maxSize is ignored when the
		/// manager does not enforce a maximum; minSize is clamped to [0, maxSize]). Lowering the maximum
		/// closes nothing at once: no new session is opened until the pool is below it again.

	void setLastKnownRole(ServerRole role);
	ServerRole lastKnownRole() const;
		/// The role last seen on this endpoint: set by the router after a probe, and taken from every
		/// session the pool opens, warms up, adopts or hands out idle when that session knows its role
		/// (PostgreSQL 14+ reports in_hot_standby and default_transaction_read_only at startup, so warm-up
		/// alone fills it in). ServerRole::Unknown until then. Thread-safe.

	PoolStatistics statistics() const;
		/// A consistent snapshot of this pool's counters.

	int prune();
		/// Applies the eviction policy to the idle sessions now, resets the idle sessions whose deferred
		/// reset has waited for PENDING_RESET_FLUSH or longer (so that a session-level lock or setting the
		/// last user left is not kept for long by an idle session), and tops the pool up to its minimum
		/// (warm-up). Returns the number of sessions closed. Called by the manager's pruning thread (every
		/// second).

	static const Poco::Timespan PENDING_RESET_FLUSH;
		/// One second: how long an idle session's deferred DISCARD ALL (SessionControl::deferReset()) may wait
		/// for the session's next command before pruning sends it on its own.

	void warmUp();
		/// Opens sessions until the pool holds its minimum (synchronously; failures are counted and
		/// logged, not thrown). When the manager does not keep every role (Options::usableRole) the minimum
		/// applies only to an endpoint whose last known role it keeps: while the role is unknown one session
		/// is opened first and its role (reported at startup, else probed) decides whether the rest follow
		/// or that session is closed.

	~EndpointPool();

private:
	EndpointPool(PoolManager& manager, const BlueTuskHostEndpoint& endpoint);
	EndpointPool(const EndpointPool&) = delete;
	EndpointPool& operator = (const EndpointPool&) = delete;

	PoolEntryPtr openReservedWith(const OpenCancellation* cancellation);
	int prunePool(bool background);
	void flushPendingResets();
		/// Part of prunePool(): the deferred resets that waited PENDING_RESET_FLUSH, done now.
	void warmUpPool(bool background);
		/// prune(), warmUp(); background (the pruning thread): give up when pruning stops.

	friend class PoolManager;
	struct Impl;
	std::unique_ptr<Impl> _impl;
	PoolManager& _manager;
	BlueTuskHostEndpoint _endpoint;
};


class BlueTusk_Pooling_API PoolManager
	/// Owns one EndpointPool per distinct endpoint (duplicates in the host list share a pool), the FIFO
	/// queue of checkouts waiting on several pools at once, and the background pruning thread.
	/// Thread-safe. Destroying the manager stops pruning and closes every session; leases still out must be
	/// released before (release after destruction is undefined).
{
public:
	struct Options
	{
		bool keepIdle = true;      /// false: pools close every returned session (unpooled connections)
		bool enforceMaximum = true;/// false: no Maximum Pool Size limit (unpooled connections)
		bool startPruning = true;  /// run the background pruning/warm-up thread
		Poco::Timespan pruneInterval = Poco::Timespan(1, 0);
		std::function<bool(ServerRole)> usableRole;
			/// Whether a checkout of the pools' owner can ever be handed a session of this (known) role; a
			/// data source whose own target needs a role sets it to "that target accepts or falls back to
			/// it". Empty: every role (the default; any target). Asked once per role when the manager is
			/// constructed (keepsRole()). Warm-up, the minimum, adopt() and openIdle() keep no session of a
			/// role it refuses (doc/pooling.md, "Sessions of a role the data source cannot use").
		EvictionPolicy::Ptr fallbackEviction;
			/// Decides instead of the eviction policy when one of its calls throws (the failure is logged
			/// on BlueTusk.Pooling): a data source sets the standard policy here. Null: the built-in rule
			/// (a session is closed only past its lifetime). doc/plugin-calls.md, "Where and how policies are called".
	};

	PoolManager(const ConnectionSettings& settings, SessionFactory::Ptr factory, EvictionPolicy::Ptr eviction,
		const Options& options, PoolClock::Ptr clock = nullptr);
		/// Pools are created lazily by pool(); the settings give min/max/lifetimes/reset. clock null: system.

	~PoolManager();

	EndpointPool& pool(const BlueTuskHostEndpoint& endpoint);
		/// The pool of endpoint, created on first use. The reference stays valid for the manager's life.

	std::vector<EndpointPool*> pools() const;
		/// Every pool created so far, in creation order.

	PoolGrant waitForAny(const std::vector<EndpointPool*>& candidates, Poco::Timestamp deadline);
		/// Waits, first come first served with every other waiter, until one of candidates can hand out an
		/// idle session or a reservation. Throws BlueTuskPoolTimeoutException at deadline; its message names
		/// each candidate with total/idle/busy/pending/max. Counts the timeout in each candidate's statistics.
		/// A deadline of Poco::Timestamp::TIMEVAL_MAX means no limit (Checkout Timeout=0): the wait ends only
		/// with capacity or when every candidate drains.

	PoolGrant waitBehindWaiters(const std::vector<EndpointPool*>& candidates, Poco::Timestamp deadline);
		/// As waitForAny(), when checkouts already wait for every one of candidates and none drains (decided
		/// under the lock): then none of them has an idle session or room for a newcomer, and the wait is
		/// all a checkout over them could do. Otherwise returns an empty grant at once, without waiting
		/// (the caller takes the full checkout path). The idle fast path of a data source past saturation
		/// (doc/pooling.md, checkout step 3). Throws as waitForAny().
		/// EndpointPool::hasWaiters() tells beforehand, without the lock, whether this can wait at all.

	bool keepsRole(ServerRole role) const;
		/// Whether the pools keep sessions of role (Options::usableRole); always true for
		/// ServerRole::Unknown. No lock, no call: a bit test. Thread-safe.

	PoolStatistics statistics() const;
		/// The aggregate over all pools (a consistent snapshot).

	std::map<BlueTuskHostEndpoint, PoolStatistics> hostStatistics() const;
		/// Per endpoint, taken under one lock (consistent with statistics()).

	void drain();
		/// drain() on every pool.

	void warmUp(const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// Creates the pools of endpoints and opens each one's minimum (synchronously).

	int prune();
		/// One pruning pass over every pool (also run by the background thread). Returns sessions closed.

	void stopPruning();
		/// Stops the background pruning thread and waits for it (a pass in progress finishes first).
		/// Idempotent; the destructor calls it. prune() and warmUp() still work when called directly.

	void setPruningHook(std::function<void(PoolManager&)> hook);
		/// Installs hook (empty: none), called by the background pruning thread after each pass over the
		/// pools, without the manager's lock held (a data source rebalances its pools there). Not called
		/// by prune() nor once stopPruning() began; an exception it throws is logged. Thread-safe.

	void setObserver(PoolObserver::Ptr observer);
		/// Installs observer (null: none) for every pool of this manager, now and later. A replaced
		/// observer is kept alive until the manager ends (an event in flight may still reach it).
		/// Thread-safe.

	PoolObserver* observer() const;
		/// The observer installed, or null: one atomic load. Thread-safe.

	const ConnectionSettings& settings() const;
	const Options& options() const;
	PoolClock& clock() const;
	SessionFactory& factory() const;
	EvictionPolicy& evictionPolicy() const;

private:
	PoolManager(const PoolManager&) = delete;
	PoolManager& operator = (const PoolManager&) = delete;

	PoolGrant wait(const std::vector<EndpointPool*>& candidates, Poco::Timestamp deadline, bool behindWaitersOnly);
		/// waitForAny() and waitBehindWaiters() (PoolManagerWait.cpp).

	friend class EndpointPool;
	struct Impl;
	std::unique_ptr<Impl> _impl;
};

} // namespace BlueTusk

#endif // BlueTusk_PoolManager_INCLUDED
