//
// MetricNames.h
//
// Library: BlueTusk/Metrics
//
// The names, units, instruments and meanings of every metric BlueTusk exports (doc/metrics.md), in one
// place: the OpenTelemetry semantic conventions for database client connection pools
// (db.client.connection.*) and BlueTusk's own routing counters (bluetusk.route.*).
//

#ifndef BlueTusk_Metrics_MetricNames_INCLUDED
#define BlueTusk_Metrics_MetricNames_INCLUDED

#include "BlueTusk/Foundation.h"
#include <array>
#include <string>
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

} } // namespace BlueTusk::Metrics

#endif // BlueTusk_Metrics_MetricNames_INCLUDED
