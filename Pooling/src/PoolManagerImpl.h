//
// PoolManagerImpl.h
//
// Library: BlueTusk/Pooling
//
// Private: the state behind PoolManager and EndpointPool. Every pool of a manager shares the manager's one
// mutex; the helpers named *Locked must be called with it held. No I/O (opening, resetting or closing a
// session) ever happens while the mutex is held: sessions to close are collected in a SessionCloser that
// closes them after the lock is released; so are the waiters to wake, so that a woken checkout does not at
// once block again on the mutex its waker still holds (doc/performance.md, row 14a).
//

#ifndef BlueTusk_PoolManagerImpl_INCLUDED
#define BlueTusk_PoolManagerImpl_INCLUDED

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/PoolObserver.h"
#include "EvictionCall.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Detail {

struct PoolWaiter
	/// One checkout waiting in PoolManager::waitForAny(). Shared by the waiting thread and, while it waits,
	/// the manager's FIFO queue. Whoever completes it (grant or drain failure) removes it from the queue and
	/// adjusts the pools' pending counts under the manager's mutex, and signals wakeUp after releasing it
	/// (SessionCloser::wakeLater): the shared ownership keeps the condition variable alive for that signal
	/// even when the waiter has already seen its grant (a timed-out wait) and returned.
{
	std::vector<EndpointPool*> candidates; /// distinct pools, in the caller's order
	std::condition_variable wakeUp;
	PoolGrant grant;
	bool granted = false;
	bool drained = false;                  /// every candidate is draining: fail fast

	bool includes(const EndpointPool* pool) const
	{
		return std::find(candidates.begin(), candidates.end(), pool) != candidates.end();
	}
};


class SessionCloser
	/// Collects sessions to close and waiters to wake under the lock; wakes and closes them in its
	/// destructor. Declare it before the lock guard so that it is destroyed (and acts) after the lock is
	/// released.
{
public:
	SessionCloser(Poco::Logger& logger, const SecretRedactor& redactor):
		_logger(logger),
		_redactor(redactor)
	{
	}

	~SessionCloser()
	{
		if (!_tasks.empty()) closeAll();
	}

	void add(Session::Ptr session);
	void wakeLater(std::shared_ptr<PoolWaiter> waiter);
		/// waiter, completed under the lock, is signalled by closeAll() or the destructor.
	void closeAll();
		/// Wakes every collected waiter, then closes and destroys every collected session, now (the lock
		/// must not be held). Never throws.

	std::size_t size() const;
		/// The number of sessions collected.

private:
	SessionCloser(const SessionCloser&) = delete;
	SessionCloser& operator = (const SessionCloser&) = delete;

	struct Task
		/// One thing to do once the lock is released: a waiter to wake or a session to close.
	{
		std::shared_ptr<PoolWaiter> waiter;
		Session::Ptr session;
	};

	Poco::Logger& _logger;
	const SecretRedactor& _redactor;
	std::vector<Task> _tasks;   /// one list for both, so that a closer with nothing to do costs one (row 6a)
	std::size_t _sessions = 0;
};

std::string describeException(const std::exception_ptr& error, const SecretRedactor& redactor);
	/// The displayText() of a Poco exception or what() of another, for log lines, redacted (a session
	/// factory other than BlueTusk's own may not have redacted it; doc/transport.md, "Secrets").

std::string tooManyConnections(const std::exception_ptr& error);
	/// The server's message when error is a BlueTuskServerException with SQLSTATE 53300 (too many
	/// connections), else "": such a refusal is capacity, not a down host (EndpointPool.cpp).

} // namespace Detail


struct EndpointPool::Impl
{
	std::vector<PoolEntryPtr> idle;        /// a stack: back() is the most recently returned. The parked entry
	                                       /// itself (session and info) is what the next checkout takes: no
	                                       /// allocation or copy per checkout (doc/performance.md, R2)
	int busy = 0;                          /// leased + reserved + being opened
	int connecting = 0;                    /// of busy: reservations and warm-up opens not finished yet
	                                       /// (at most Max Connecting, PoolManager::Impl::mayConnectLocked)
	std::atomic<int> pending{0};           /// waiters whose candidate set contains this pool; changed under
	                                       /// the manager's mutex, read without it only as a hint that a
	                                       /// checkout must queue behind them (EndpointPool::tryTakeIdle())
	Poco::UInt64 refusals = 0;             /// opens refused with SQLSTATE 53300 (too many connections)
	Poco::Timestamp::TimeVal refusedUntil = 0;
		/// after a 53300: no new open before this (system clock, microseconds); 0: none pending
	Poco::Timespan::TimeDiff refusalBackoff = 0;
		/// the last backoff after a 53300 (50 ms doubling to 1 s); 0 again after a successful open
	std::string refusal;                   /// the last 53300's text until an open succeeds ("" : none)
	Poco::UInt64 created = 0;
	Poco::UInt64 closed = 0;
	Poco::UInt64 evicted = 0;
	Poco::UInt64 checkoutTimeouts = 0;
	Poco::UInt64 connectFailures = 0;
	bool draining = false;
	ServerRole lastKnownRole = ServerRole::Unknown;
	int minSize = 0;                       /// effective minimum (never above maxSize)
	int maxSize = 0;                       /// effective maximum; 0: no limit
	std::shared_ptr<StatementCounters> statements = std::make_shared<StatementCounters>();
		/// what this pool's sessions add their statement counters to (SessionControl::setStatementCounters)

	int total() const
	{
		return busy + static_cast<int>(idle.size());
	}

	void noteRole(const Session& session, bool orReported)
		/// A role the session knows (from its last probe) becomes the pool's last known role; with
		/// orReported, else the role its ParameterStatus values give (PostgreSQL 14+ reports it at
		/// startup: for a session just opened). Call with the manager's mutex held.
	{
		ServerRole role = session.role();
		if (role == ServerRole::Unknown && orReported) role = session.control().reportedRole();
		if (role != ServerRole::Unknown) learnRole(role);
	}

	std::atomic<PoolObserver*>* observer = nullptr;   /// the manager's (PoolManager::setObserver())
	const BlueTuskHostEndpoint* endpoint = nullptr;   /// the pool's own

	void learnRole(ServerRole role)
		/// lastKnownRole = role, reported to the observer when it changes one known role to another.
		/// Call with the manager's mutex held.
	{
		if (role == lastKnownRole) return;
		PoolObserver* o = observer ? observer->load(std::memory_order_acquire) : nullptr;
		if (o && lastKnownRole != ServerRole::Unknown && role != ServerRole::Unknown) o->roleChanged(*endpoint, lastKnownRole, role);
		lastKnownRole = role;
	}
};


struct PoolManager::Impl
{
	Impl(const ConnectionSettings& settings, SessionFactory::Ptr factory, EvictionPolicy::Ptr eviction,
		const Options& options, PoolClock::Ptr clock);

	ConnectionSettings settings;
	SecretRedactor redactor;   /// settings.redactor(): every log line with an exception's text passes it
	SessionFactory::Ptr factory;
	EvictionPolicy::Ptr eviction;
	Options options;
	int maxConnecting = 0;     /// Max Connecting when the maximum is enforced (a data source); 0: no limit
	unsigned keptRoles = ~0u;  /// bit per ServerRole: Options::usableRole's answers (keepsRole())
	PoolClock::Ptr clock;
	Poco::Logger& logger;
	PoolManager* owner = nullptr;   /// the manager this is the state of (the pruning hook gets it)
	Detail::EvictionCall evictionCall;
		/// every call into eviction (with options.fallbackEviction), never with mutex held (EvictionCall.h)

	static constexpr Poco::Timespan::TimeDiff REFUSAL_BACKOFF_START = 50000;    /// 50 ms after a first 53300
	static constexpr Poco::Timespan::TimeDiff REFUSAL_BACKOFF_MAX = 1000000;    /// doubling up to 1 s

	mutable std::mutex mutex;
	std::atomic<PoolObserver*> observer{nullptr};           /// PoolManager::setObserver(); null: none
	std::vector<PoolObserver::Ptr> observers;               /// every observer installed, kept until the end
	std::vector<std::unique_ptr<EndpointPool>> pools;       /// creation order
	std::map<BlueTuskHostEndpoint, EndpointPool*> index;
	std::list<std::shared_ptr<Detail::PoolWaiter>> waiters;           /// FIFO: front() waits longest
	std::condition_variable pruneWakeUp;
	std::condition_variable openFinished;                   /// an open in flight ended (warmUp() waits on it)
	std::function<void(PoolManager&)> pruningHook;          /// setPruningHook(); empty: none
	bool stopPruning = false;                               /// the pruning thread is to end
	bool stopping = false;                                  /// the manager is being destroyed
	std::thread pruner;
	std::mutex prunerMutex;                                 /// serializes joining the pruning thread

	static EndpointPool::Impl& state(EndpointPool& pool);
	static const EndpointPool::Impl& state(const EndpointPool& pool);

	bool hasRoomLocked(const EndpointPool& pool) const;
		/// total < maximum (always true without enforceMaximum).

	PoolEntryPtr takeIdleLocked(EndpointPool& pool, Detail::SessionCloser& closer);
		/// Pops the most recently returned idle session that is not broken (broken ones go to closer) and
		/// counts it busy; null when there is none or the pool is draining. Ignores waiters.

	bool reserveLocked(EndpointPool& pool);
		/// Counts one more busy (and connecting) session when not draining, there is room and
		/// mayConnectLocked(). Ignores waiters.

	bool keeps(ServerRole role) const
		/// PoolManager::keepsRole(): no lock needed (set once at construction).
	{
		return (keptRoles >> static_cast<unsigned>(role)) & 1u;
	}

	bool filtersRoles() const
		/// Whether some role is not kept (Options::usableRole refused one).
	{
		return keptRoles != ~0u;
	}

	PoolShortage shortageLocked(const EndpointPool& pool) const;
		/// Why reserveLocked() (with the waiters ahead) gave no room: EndpointPool::tryReserve(PoolShortage&).

	bool mayConnectLocked(EndpointPool& pool) const;
		/// Whether pool may start one more open: fewer than Max Connecting in flight and no 53300 backoff
		/// running (an expired one is cleared here).

	void openEndedLocked(EndpointPool& pool, Detail::SessionCloser& closer);
		/// One open in flight ended (success or failure): connecting - 1, then the capacity it frees goes
		/// to the waiters and a waiting warmUp() is told.

	void noteRefusalLocked(EndpointPool& pool, const std::string& text);
		/// The server refused an open with 53300: start (or double) the pool's backoff (doc/pooling.md).

	void noteOpenedLocked(EndpointPool& pool);
		/// An open succeeded: the 53300 backoff ends.

	void dispatchLocked(EndpointPool& pool, Detail::SessionCloser& closer);
		/// Serves the waiters whose set contains pool, first come first served, with its idle sessions and
		/// then reservations, for as long as it has capacity. Call after anything that may add capacity.

	bool handOffLocked(EndpointPool& pool, PoolEntryPtr& entry, Detail::SessionCloser& closer);
		/// Gives entry (counted busy in pool) to the first waiter whose set contains pool; false if none.

	using WaiterQueue = std::list<std::shared_ptr<Detail::PoolWaiter>>;

	WaiterQueue::iterator completeLocked(WaiterQueue::iterator it, Detail::SessionCloser& closer);
		/// Removes a waiter from the queue, undoes its pending counts and has closer wake it once the lock
		/// is released. Returns the next one.

	void failDrainedWaitersLocked(Detail::SessionCloser& closer);
		/// Fails the waiters whose every candidate is draining, and lets the pools that still serve give
		/// their capacity to the others.

	void parkLocked(EndpointPool& pool, PoolEntryPtr entry, Detail::SessionCloser& closer);
		/// A healthy session counted busy in pool becomes available: closed if pool drains, else handed to
		/// the first waiter, else idle (keepIdle) or closed.

	void discardLocked(EndpointPool& pool, Session::Ptr session, bool evicted, Detail::SessionCloser& closer);
		/// A session counted busy in pool is closed; the freed capacity goes to waiters.

	PoolSizeInfo sizeLocked(const EndpointPool& pool) const;
		/// What the eviction policy is told; the minimum is 0 for an endpoint whose last known role the
		/// manager does not keep (keeps()): nothing holds idle sessions there for the minimum's sake.
	PoolStatistics statisticsLocked(const EndpointPool& pool) const;
	std::string describeLocked(const EndpointPool& pool) const;
		/// "127.0.0.1:5432 (total=2, idle=0, busy=2, pending=1, max=2)" for exception messages.

	void pruneLoop();
};

} // namespace BlueTusk

#endif // BlueTusk_PoolManagerImpl_INCLUDED
