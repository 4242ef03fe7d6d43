//
// MetricNames.cpp
//
// Library: BlueTusk/Metrics
//

#include "BlueTusk/Metrics/MetricsObserver.h"
#include "BlueTusk/HostAttemptsException.h"
#include <algorithm>

namespace BlueTusk {
namespace Metrics {
namespace Names {

const MetricName CONNECTION_COUNT{"db.client.connection.count", "{connection}", Instrument::UpDownCounter,
	"db_client_connection_count",
	"The number of connections that are currently in the state described by db_client_connection_state (idle: ready to hand out; used: leased, or being opened)"};
const MetricName IDLE_MAX{"db.client.connection.idle.max", "{connection}", Instrument::UpDownCounter,
	"db_client_connection_idle_max",
	"The maximum number of idle open connections allowed (Maximum Pool Size: every session may be idle)"};
const MetricName IDLE_MIN{"db.client.connection.idle.min", "{connection}", Instrument::UpDownCounter,
	"db_client_connection_idle_min",
	"The minimum number of idle open connections allowed (Minimum Pool Size, kept open by warm-up)"};
const MetricName MAX{"db.client.connection.max", "{connection}", Instrument::UpDownCounter,
	"db_client_connection_max",
	"The maximum number of open connections allowed (Maximum Pool Size)"};
const MetricName PENDING_REQUESTS{"db.client.connection.pending_requests", "{request}", Instrument::UpDownCounter,
	"db_client_connection_pending_requests",
	"The number of current pending requests for an open connection (checkouts waiting for capacity)"};
const MetricName TIMEOUTS{"db.client.connection.timeouts", "{timeout}", Instrument::Counter,
	"db_client_connection_timeouts_total",
	"The number of connection timeouts that have occurred trying to obtain a connection from the pool (Checkout Timeout)"};
const MetricName CREATE_TIME{"db.client.connection.create_time", "s", Instrument::Histogram,
	"db_client_connection_create_time_seconds",
	"The time it took to create a new connection (resolve, connect, TLS, startup, authentication)"};
const MetricName WAIT_TIME{"db.client.connection.wait_time", "s", Instrument::Histogram,
	"db_client_connection_wait_time_seconds",
	"The time it took to obtain an open connection from the pool (the whole checkout; coarse clock, 1-4 ms resolution)"};
const MetricName USE_TIME{"db.client.connection.use_time", "s", Instrument::Histogram,
	"db_client_connection_use_time_seconds",
	"The time between borrowing a connection and returning it to the pool (coarse clock, 1-4 ms resolution)"};
const MetricName ROUTE_ATTEMPTS{"bluetusk.route.attempts", "{attempt}", Instrument::Counter,
	"bluetusk_route_attempts_total",
	"Attempts of checkouts at an endpoint, by outcome (accepted, fallback_retained, fallback_released, rejected, failed, authentication_failed, lost_race)"};
const MetricName FAILOVER_WAITS{"bluetusk.route.failover_waits", "{wait}", Instrument::Counter,
	"bluetusk_route_failover_waits_total",
	"Waits between passes of the host list while Failover Timeout runs (backoff or promotion watch)"};
const MetricName ROLE_CHANGES{"bluetusk.route.role_changes", "{change}", Instrument::Counter,
	"bluetusk_route_role_changes_total",
	"Changes of an endpoint's learned role from one known role to another, by the role learned"};
const MetricName SPLIT_BRAIN_REFUSALS{"bluetusk.route.split_brain_refusals", "{refusal}", Instrument::Counter,
	"bluetusk_route_split_brain_refusals_total",
	"Primaries on an older timeline than another primary, refused for write targets (split-brain guard)"};


const std::vector<const MetricName*>& all()
{
	static const std::vector<const MetricName*> names{&CONNECTION_COUNT, &IDLE_MAX, &IDLE_MIN, &MAX, &PENDING_REQUESTS,
		&TIMEOUTS, &CREATE_TIME, &WAIT_TIME, &USE_TIME, &ROUTE_ATTEMPTS, &FAILOVER_WAITS, &ROLE_CHANGES, &SPLIT_BRAIN_REFUSALS};
	return names;
}

} // namespace Names


const std::array<double, DURATION_BUCKETS>& durationBuckets()
{
	static const std::array<double, DURATION_BUCKETS> bounds{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10};
	return bounds;
}


std::string outcomeLabel(int outcome)
{
	std::string name = HostAttempt::outcomeName(static_cast<HostAttempt::Outcome>(outcome));
	std::replace(name.begin(), name.end(), ' ', '_');
	return name;
}

} } // namespace BlueTusk::Metrics
