//
// TopologyWatcher.h
//
// Library: BlueTusk/Routing
//
// A data source's topology thread (doc/high-availability.md, "Topology sources"): reads its TopologySource
// every Topology Refresh Interval, turns the members into the data source's host list, and keeps the
// endpoint pools in step (new members get a pool, dropped ones are drained).
//

#ifndef BlueTusk_Detail_TopologyWatcher_INCLUDED
#define BlueTusk_Detail_TopologyWatcher_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/TopologySource.h"
#include "router/HostListSnapshot.h"
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace BlueTusk {
namespace Detail {

class TopologyWatcher
	/// Owns a configured TopologySource and the one thread that reads it. The host list starts as the
	/// written endpoints (the seed); each successful read replaces it with the members read (in the
	/// source's order, role hints kept); a failed read keeps the last members read and appends the seed
	/// endpoints not among them (so the written hosts are tried whenever the source cannot be read).
	/// Endpoints that join the list get a pool (or their pool resumed when the watcher drained it);
	/// endpoints that leave it have their pool drained (idle sessions closed now, leased ones when they
	/// return: no lease is lost). No checkout ever waits for a read: hosts() is a mutex-guarded pointer copy.
	///
	/// Thread-safety: hosts(), snapshot() and readCount() from any thread; start() and stop() from the data
	/// source's constructor and destructor.
{
public:
	using Publish = std::function<void(const HostListPtr& hosts)>;
		/// Called on the watcher's thread after the host list changed (the data source rebuilds its idle
		/// fast path); hosts() already returns the new list.

	TopologyWatcher(TopologySource::Ptr source, const ConnectionSettings& settings, std::shared_ptr<PoolManager> pools,
		Publish publish);
		/// The source must be configured. Starts nothing.

	~TopologyWatcher();
		/// stop().

	void start();
		/// Starts the thread; its first read happens at once, in the background.

	void stop();
		/// close() on the source (a read in progress returns soon), then joins the thread, waiting at most
		/// CLOSE_BOUND for it: a source whose read() or waitForChange() ignores close() has its thread
		/// abandoned (detached; it owns the source and touches nothing of the watcher when the call
		/// returns), logged once at warning. Idempotent.

	static const Poco::Timespan CLOSE_BOUND;
		/// How long stop() waits for the thread after close(): 1 s.

	struct Shared;
		/// What the thread and the watcher share (the thread owns it too): a mutex the thread holds except
		/// while it calls the source, and whether stop() abandoned it.

	HostListPtr hosts() const;
		/// The current host list (never null).

	TopologySnapshot snapshot() const;
		/// The last successful read (no members before the first).

	Poco::UInt64 readCount() const;
		/// Reads completed so far, successful or not.

	static Poco::Timespan readTimeout(const ConnectionSettings& settings);
		/// The time one read may take: Timeout, at most 5 s (5 s when Timeout is 0).

private:
	TopologyWatcher(const TopologyWatcher&) = delete;
	TopologyWatcher& operator = (const TopologyWatcher&) = delete;

	void run(const std::shared_ptr<Shared>& shared, std::unique_lock<std::mutex>& held, TopologySource& source);
		/// The thread's loop; returns at once, touching nothing more of this, when abandoned.
	bool readOnce(const std::shared_ptr<Shared>& shared, std::unique_lock<std::mutex>& held, TopologySource& source);
		/// false when abandoned during the read.
	void storeRead(TopologySnapshot* snapshot, const HostListPtr& hosts);
		/// Under one lock: counts a read, makes snapshot (when not null) what snapshot() returns and hosts
		/// (when not null) what hosts() returns.
	HostListPtr membersList(const TopologySnapshot& snapshot) const;
	HostListPtr fallbackList() const;
	void publish(const HostListPtr& next, TopologySnapshot* read);
		/// Makes next the host list and counts the read (read: the snapshot it came from, null when the read
		/// failed), both under one lock, so that hosts(), snapshot() and readCount() always agree.

	TopologySource::Ptr _source;
	const std::string _name;                     /// the source's name(), asked once
	const std::string _description;              /// topology policy "name" (libX.so), for the abandonment warning
	const ConnectionSettings& _settings;
	std::shared_ptr<PoolManager> _pools;
	Publish _publish;
	HostListPtr _seed;

	mutable std::mutex _mutex;
	std::condition_variable _wake;               /// stop() wakes the fallback sleep of run()
	HostListPtr _hosts;                          /// guarded by _mutex
	TopologySnapshot _snapshot;                  /// guarded by _mutex
	Poco::UInt64 _reads = 0;                     /// guarded by _mutex
	bool _failing = false;                       /// thread only: the last read failed
	bool _everRead = false;                      /// thread only: a read succeeded once
	bool _waitFailing = false;                   /// thread only: the last waitForChange() threw
	std::set<BlueTuskHostEndpoint> _drained;     /// thread only: pools this watcher drained
	std::thread _thread;
	std::atomic<bool> _stopped{false};
	std::shared_ptr<Shared> _shared;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_TopologyWatcher_INCLUDED
