//
// MetricsObserver.h
//
// Library: BlueTusk/Metrics
//
// The PoolObserver of one data source: counts and histograms per endpoint, cheap enough for the idle
// checkout path (doc/metrics.md, "Overhead"); and the names, units, instruments and meanings of every
// metric BlueTusk exports (doc/metrics.md), in one place: the OpenTelemetry semantic conventions for
// database client connection pools (db.client.connection.*) and BlueTusk's own routing counters
// (bluetusk.route.*).
//

#ifndef BlueTusk_Metrics_MetricsObserver_INCLUDED
#define BlueTusk_Metrics_MetricsObserver_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/PoolObserver.h"
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define BlueTusk_Metrics_API BlueTusk_API_EXPORT

namespace BlueTusk {
namespace Metrics {



enum class Instrument
	/// The OpenTelemetry instrument kind, and so the Prometheus type: UpDownCounter -> gauge,
	/// Counter -> counter (name ends in _total), Histogram -> histogram (_bucket, _sum, _count).
{
	UpDownCounter,
	Counter,
	Histogram
};


struct BlueTusk_Metrics_API MetricName
	/// One metric as the conventions spell it and as it appears in Prometheus.
{
	const char* otelName;        /// "db.client.connection.count"
	const char* unit;            /// UCUM as OpenTelemetry writes it: "{connection}", "s"
	Instrument instrument;
	const char* prometheusName;  /// "db_client_connection_count": dots to underscores; a unit in braces is
	                             /// an annotation and dropped, "s" becomes the suffix _seconds; counters end
	                             /// in _total (OpenTelemetry's Prometheus compatibility rules)
	const char* help;            /// what it means, the # HELP line
};


namespace Names {

extern BlueTusk_Metrics_API const MetricName CONNECTION_COUNT;
extern BlueTusk_Metrics_API const MetricName IDLE_MAX;
extern BlueTusk_Metrics_API const MetricName IDLE_MIN;
extern BlueTusk_Metrics_API const MetricName MAX;
extern BlueTusk_Metrics_API const MetricName PENDING_REQUESTS;
extern BlueTusk_Metrics_API const MetricName TIMEOUTS;
extern BlueTusk_Metrics_API const MetricName CREATE_TIME;
extern BlueTusk_Metrics_API const MetricName WAIT_TIME;
extern BlueTusk_Metrics_API const MetricName USE_TIME;
extern BlueTusk_Metrics_API const MetricName ROUTE_ATTEMPTS;
extern BlueTusk_Metrics_API const MetricName FAILOVER_WAITS;
extern BlueTusk_Metrics_API const MetricName ROLE_CHANGES;
extern BlueTusk_Metrics_API const MetricName SPLIT_BRAIN_REFUSALS;

BlueTusk_Metrics_API const std::vector<const MetricName*>& all();
	/// Every metric above, in the order of doc/metrics.md.

} // namespace Names


namespace Labels {

constexpr const char* POOL_NAME = "db_client_connection_pool_name";   /// db.client.connection.pool.name
constexpr const char* STATE = "db_client_connection_state";           /// db.client.connection.state
constexpr const char* ENDPOINT = "endpoint";   /// the pool's endpoint, "host:port" as written (BlueTuskHostEndpoint)
constexpr const char* OUTCOME = "outcome";     /// route attempts: accepted, fallback_retained, ...
constexpr const char* ROLE = "role";           /// role changes: the role learned (primary, ...)
constexpr const char* STATE_IDLE = "idle";
constexpr const char* STATE_USED = "used";

} // namespace Labels


constexpr std::size_t DURATION_BUCKETS = 9;
BlueTusk_Metrics_API const std::array<double, DURATION_BUCKETS>& durationBuckets();
	/// The explicit bucket boundaries, in seconds, of the three time histograms: 0.001, 0.005, 0.01, 0.05,
	/// 0.1, 0.5, 1, 5, 10 (OpenTelemetry's advice for database client durations), plus +Inf.

BlueTusk_Metrics_API std::string outcomeLabel(int outcome);
	/// The label value of a HostAttempt::Outcome: HostAttempt::outcomeName() with '_' for ' '
	/// ("fallback_retained", "authentication_failed", "lost_race").


class BlueTusk_Metrics_API MetricsObserver final: public PoolObserver
	/// Records the events of PoolObserver for a fixed list of endpoints (a data source's host list; an
	/// endpoint not in it is ignored). Every thread writes its own shard (plain stores, no atomic
	/// read-modify-write, no lock after its first event), snapshot() adds the shards up under a lock. A
	/// shard lives as long as the observer, also after its thread ended. Wait and use times come from a
	/// millisecond clock thread (clock()), create times from the core's precise clock. Thread-safe.
{
public:
	using Ptr = std::shared_ptr<MetricsObserver>;

	static constexpr std::size_t OUTCOMES = 7;   /// HostAttempt::Outcome values
	static constexpr std::size_t ROLES = 4;      /// ServerRole values

	struct Histogram
		/// counts[i]: observations <= durationBuckets()[i] and above the bound before (not cumulative);
		/// counts[DURATION_BUCKETS]: above the last bound.
	{
		std::array<std::uint64_t, DURATION_BUCKETS + 1> counts{};
		double sum = 0;   /// seconds
		std::uint64_t count() const;
	};

	struct EndpointSnapshot
	{
		BlueTuskHostEndpoint endpoint;
		Histogram createTime, waitTime, useTime;
		std::array<std::uint64_t, OUTCOMES> attempts{};   /// by HostAttempt::Outcome
		std::array<std::uint64_t, ROLES> roleChanges{};   /// by the ServerRole learned
		std::uint64_t splitBrainRefusals = 0;
	};

	struct Snapshot
	{
		std::vector<EndpointSnapshot> endpoints;   /// in the order given to the constructor
		std::uint64_t failoverWaits = 0;
	};

	MetricsObserver(const std::string& poolName, const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// endpoints: duplicates are counted once.
	~MetricsObserver();

	const std::string& poolName() const;
		/// The db.client.connection.pool.name of this data source.

	Snapshot snapshot() const;
		/// The sums so far. Thread-safe; an event recorded at the same moment may be half in it (a
		/// histogram's bucket without its sum), never lost.

	void sessionCreated(const BlueTuskHostEndpoint& endpoint, double seconds) override;
	std::int64_t clock() override;
		/// CLOCK_MONOTONIC in nanoseconds as of the last tick of the process's metrics clock thread (started
		/// by the first MetricsObserver; it ticks every millisecond): one atomic load.
	std::int64_t checkoutWaited(const BlueTuskHostEndpoint& endpoint, std::int64_t started) override;
	void sessionUsed(const BlueTuskHostEndpoint& endpoint, std::int64_t leasedAt, bool idleCheckout) override;
	void roleChanged(const BlueTuskHostEndpoint& endpoint, ServerRole from, ServerRole to) override;
	void routeAttempt(const BlueTuskHostEndpoint& endpoint, int outcome) override;
	void failoverWaited(int waits) override;
	void splitBrainRefused(const BlueTuskHostEndpoint& endpoint) override;

private:
	MetricsObserver(const MetricsObserver&) = delete;
	MetricsObserver& operator = (const MetricsObserver&) = delete;

	struct Shard;
	Shard& shard();
	Shard& shardSlow();
	int indexOf(const BlueTuskHostEndpoint& endpoint, bool poolOwned);
		/// The endpoint's index, or -1. poolOwned: endpoint is a pool's own object, whose address may be kept.
	int indexByValue(const BlueTuskHostEndpoint& endpoint, bool poolOwned);
		/// indexOf() when the address is not known yet.
	void observe(std::size_t histogram, int index, std::int64_t nanoseconds);

	const std::uint64_t _id;   /// unique per observer in the process: the key of the threads' shard cache
	const std::string _poolName;
	std::vector<BlueTuskHostEndpoint> _endpoints;
	std::unique_ptr<std::atomic<const void*>[]> _addresses;   /// per endpoint: the pool's endpoint object seen
	mutable std::mutex _mutex;
	std::map<std::thread::id, std::unique_ptr<Shard>> _shards;
};

} } // namespace BlueTusk::Metrics

#endif // BlueTusk_Metrics_MetricsObserver_INCLUDED
