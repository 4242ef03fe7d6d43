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
	/// the pools and the data source pay one pointer test per event site and read no clock.
	///
	/// Every endpoint reference passed is the owning EndpointPool's own endpoint() (except for
	/// routeAttempt(), see there), valid as long as the pool: an observer may key its per-endpoint state
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

	virtual void checkoutWaited(const BlueTuskHostEndpoint& endpoint, double seconds) = 0;
		/// A checkout got its session from endpoint's pool seconds after it started (the whole
		/// BlueTuskDataSource::open(): routing, role refresh, waiting for capacity):
		/// db.client.connection.wait_time. Measured with coarseSeconds().

	virtual void sessionUsed(const BlueTuskHostEndpoint& endpoint, double seconds) = 0;
		/// A lease of endpoint's pool came back after seconds: db.client.connection.use_time. Measured
		/// with coarseSeconds(); only leases of a BlueTuskDataSource checkout are timed.

	virtual void roleChanged(const BlueTuskHostEndpoint& endpoint, ServerRole from, ServerRole to) = 0;
		/// The pool's learned role of endpoint changed from one known role to another (a promotion, a
		/// demotion, a primary turned read-only). Called with the pool manager's mutex held.

	virtual void routeAttempt(const BlueTuskHostEndpoint& endpoint, int outcome) = 0;
		/// One attempt of a checkout at endpoint ended with outcome (a BlueTusk::HostAttempt::Outcome of
		/// Routing: accepted, fallback retained, ...). endpoint may be a copy (compare values).

	virtual void failoverWaited(int waits) = 0;
		/// A checkout waited waits times (Failover Timeout backoff or promotion watch) between passes of
		/// the host list before it ended (found a session or gave up). Not called when waits is 0.

	virtual void splitBrainRefused(const BlueTuskHostEndpoint& endpoint);
		/// endpoint claimed to be primary on an older timeline than another primary and was refused for
		/// a write target (DESIGN 11, split-brain guard). Default: nothing.

	static double coarseSeconds();
		/// Seconds of the coarse monotonic clock (CLOCK_MONOTONIC_COARSE: a few ns to read, resolution of
		/// one kernel tick, 1-4 ms), the clock of wait and use times. Thread-safe.

	static double preciseSeconds();
		/// Seconds of the monotonic clock (CLOCK_MONOTONIC), the clock of create times. Thread-safe.
};

} // namespace BlueTusk

#endif // BlueTusk_PoolObserver_INCLUDED
