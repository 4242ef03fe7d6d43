//
// PoolObserver.h
//
// Library: BlueTusk/Pooling
//
// What pools and the router report as they work, for metrics (doc/metrics.md). No dependency beyond
// the core: an exporter (BlueTusk::Metrics, on prometheus-cpp) implements it.
//

#ifndef BlueTusk_PoolObserver_INCLUDED
#define BlueTusk_PoolObserver_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include <atomic>
#include <cstdint>
#include <memory>

namespace BlueTusk {

class BlueTusk_Pooling_API PoolObserver
	/// Receives the events behind the OpenTelemetry database-client connection-pool metrics
	/// (db.client.connection.create_time, .wait_time, .use_time) and BlueTusk's routing counters. The
	/// gauges (connection counts by state, idle min/max, max, pending requests) and the timeout counter
	/// are not events: an exporter reads them from PoolManager::hostStatistics() (or
	/// BlueTuskDataSource::getHostPoolStatistics()) when it is scraped, a consistent snapshot at no cost
	/// to checkouts.
	///
	/// Installed with PoolManager::setObserver() (BlueTuskDataSource::setObserver()). With none installed
	/// the pools and the data source pay one pointer test per event site and read no clock. With one, an
	/// idle checkout and its return cost one load (ticks()) and one virtual call (sessionUsed()).
	///
	/// Every endpoint reference passed is the owning EndpointPool's own endpoint() (except for
	/// routeAttempt() and splitBrainRefused()), valid as long as the pool: an observer may key its per-endpoint state
	/// on the address and fall back to comparing values.
	///
	/// Thread-safety: called concurrently from every thread that checks out, returns or opens sessions,
	/// and from the pruning thread, sometimes with the pool manager's mutex held (roleChanged()): an
	/// implementation must be thread-safe, must not block, must not throw, and must not call back into
	/// the pools.
{
public:
	using Ptr = std::shared_ptr<PoolObserver>;

	virtual ~PoolObserver();

	virtual void sessionCreated(const BlueTuskHostEndpoint& endpoint, double seconds) = 0;
		/// A new physical session to endpoint was opened in seconds (resolve, connect, TLS, startup,
		/// authentication; warm-up included): db.client.connection.create_time. Measured with a precise
		/// monotonic clock (opening costs milliseconds anyway).

	virtual std::int64_t clock() = 0;
		/// The observer's clock for wait and use times, in nanoseconds, never 0 (an implementation may
		/// trade resolution for speed: MetricsObserver's ticks every millisecond and costs one load).

	virtual std::int64_t checkoutWaited(const BlueTuskHostEndpoint& endpoint, std::int64_t started) = 0;
		/// A checkout (other than the idle fast path's, see sessionUsed()) got its session from endpoint's
		/// pool; started is clock() when the checkout began (routing, role refresh and waiting for
		/// capacity included): db.client.connection.wait_time = clock() - started. Returns clock(), the
		/// lease's start. The checkout's attempts are reported separately (routeAttempt()).

	virtual void sessionUsed(const BlueTuskHostEndpoint& endpoint, std::int64_t leasedAt, bool idleCheckout) = 0;
		/// A lease of endpoint's pool came back; leasedAt is ticks() when it was handed out:
		/// db.client.connection.use_time = clock() - leasedAt. Only data source leases are timed.
		/// idleCheckout: the lease came from the data source's idle fast path (an idle session handed out at
		/// once, no I/O, no wait: a target that needs no role, doc/performance.md R2), which makes no call
		/// of its own to stay cheap: that checkout is reported here, on its return, as one accepted attempt
		/// and a wait of 0 s (the path takes well under a microsecond). So a fast-path lease still out is
		/// not yet in wait_time or the attempts.

	std::int64_t ticks()
		/// clock(), or, when the implementation published a clock word (setTicks()), that word: one load
		/// and no call, what the idle fast path reads.
	{
		return _ticks ? _ticks->load(std::memory_order_relaxed) : clock();
	}

	virtual void roleChanged(const BlueTuskHostEndpoint& endpoint, ServerRole from, ServerRole to) = 0;
		/// The pool's learned role of endpoint changed from one known role to another (a promotion, a
		/// demotion, a primary turned read-only). Called with the pool manager's mutex held.

	virtual void routeAttempt(const BlueTuskHostEndpoint& endpoint, int outcome) = 0;
		/// One attempt of a checkout (other than the idle fast path's, see sessionUsed()) at endpoint ended
		/// with outcome (a BlueTusk::HostAttempt::Outcome of Routing: accepted, fallback retained, ...).
		/// endpoint may be a copy (compare values).

	virtual void failoverWaited(int waits) = 0;
		/// A checkout waited waits times (Failover Timeout backoff or promotion watch) between passes of
		/// the host list before it ended (found a session or gave up). Not called when waits is 0.

	virtual void splitBrainRefused(const BlueTuskHostEndpoint& endpoint);
		/// endpoint claimed to be primary on an older timeline than another primary and was refused for
		/// a write target (split-brain guard). Default: nothing.

	static double preciseSeconds();
		/// Seconds of the monotonic clock (CLOCK_MONOTONIC), the clock of create times. Thread-safe.

protected:
	void setTicks(const std::atomic<std::int64_t>* ticks);
		/// A word an implementation keeps equal to clock() (updated by a clock thread): ticks() reads it.
		/// Call before the observer is installed.

private:
	const std::atomic<std::int64_t>* _ticks = nullptr;
};

} // namespace BlueTusk

#endif // BlueTusk_PoolObserver_INCLUDED
