//
// HostOrderPolicy.h
//
// Library: BlueTusk/Routing
//
// The host-order policy family (doc/routing.md and doc/plugins.md).
//

#ifndef BlueTusk_HostOrderPolicy_INCLUDED
#define BlueTusk_HostOrderPolicy_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include "Poco/Util/AbstractConfiguration.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Routing_API HostCandidate
	/// One endpoint of the host list with what the router has learned of it.
{
	BlueTuskHostEndpoint endpoint;
	std::size_t position = 0;         /// index in the host list as written
	enum State { UNKNOWN, UP, DOWN } state = UNKNOWN; /// learned and still fresh (Host Recheck Seconds)
	ServerRole role = ServerRole::Unknown;            /// learned role, when fresh
	double lastConnectMs = -1;        /// how long the last new session to this endpoint took to open through
	                                  /// this routing context (TCP, TLS, authentication, role probe), in
	                                  /// milliseconds; -1 when none was measured yet. Kept whatever its age
	                                  /// (see connectMeasuredAt) and across DOWN states.
	double smoothedConnectMs = -1;    /// the opening times smoothed like TCP's SRTT (RFC 6298: 7/8 of the previous
	                                  /// value plus 1/8 of the new one, the first one as is), in milliseconds;
	                                  /// -1 when none was measured yet
	Poco::Timestamp connectMeasuredAt = 0; /// when lastConnectMs was measured (0 when never)
	unsigned connectsMeasured = 0;    /// how many openings smoothedConnectMs is made of
	double lastQueryMs = -1;          /// the last query round trip measured on a session to this endpoint,
	                                  /// in milliseconds; -1 when none was measured yet. What is measured: the
	                                  /// role refresh or probe BlueTusk itself sends on an existing session
	                                  /// (a bare Sync on PostgreSQL 14+, else one small SELECT): before a
	                                  /// targeted checkout accepts a pooled session, and the health
	                                  /// monitor's watch of an UP endpoint through an idle session (doc/plugins.md).
	                                  /// The application's own statements are not timed. Kept like lastConnectMs.
	double smoothedQueryMs = -1;      /// those round trips smoothed like smoothedConnectMs (RFC 6298, alpha 1/8);
	                                  /// -1 when none was measured yet
	Poco::Timestamp queryMeasuredAt = 0; /// when lastQueryMs was measured (0 when never)
	unsigned queriesMeasured = 0;     /// how many round trips smoothedQueryMs is made of
};


struct BlueTusk_Routing_API HostOrderPlan
	/// What a host-order policy decides for one physical connection.
{
	std::vector<std::size_t> order;   /// indexes into the candidate list, in attempt order
	std::size_t concurrency = 1;      /// how many attempts may run at once (1, or order.size() to race)
	Poco::Timespan startupStagger = 0; /// when attempts race: the startup of the attempt that connected first
	                                  /// (TLS, authentication, backend start) runs alone until it fails, is
	                                  /// classified, or has taken this long; then the next attempt may connect
	                                  /// and start too (StartupGate, RFC 8305 section 5); 0: a plain race
	Poco::Timespan connectStagger = 0; /// when attempts race: the interval between their TCP connects, in plan
	                                  /// order (the next one at once when the previous fails); 0: all at once
};


class BlueTusk_Routing_API HostOrderPolicy
	/// Gives the order in which endpoints are attempted for one checkout (idle sessions are taken in that
	/// order, then new connections opened), and how many run at once. The router then moves endpoints that are known down or role-incompatible to the end
	/// (doc/routing.md, step 2); a policy need not do that itself.
	///
	/// Implementations must be thread-safe: one instance serves concurrent opens. Plugins export them with
	/// POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy) and POCO_EXPORT_INTERFACE(Cls, "name").
{
public:
	using Ptr = std::shared_ptr<HostOrderPolicy>;

	HostOrderPolicy();
	virtual ~HostOrderPolicy();

	virtual std::string name() const = 0;
		/// The name "Host Order=" selects ("sequential", "random", "parallel").

	virtual HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const = 0;
		/// The attempt order for one router pass. Must return each index at most once.
		/// candidates are the host list in written order (candidates[i].position == i) with what the routing
		/// context has learned of each: state and role when fresh, and the measured opening times
		/// (lastConnectMs, smoothedConnectMs), which only new sessions opened through the router update
		/// (a pooled session reused measures nothing). Called on the checkout's thread, once per checkout
		/// that goes through the router and once per pass of the Failover Timeout loop (only the idle fast
		/// path of "sequential" and "parallel" skips it); a policy that is not standard runs bounded by the
		/// checkout's deadline, and what it throws becomes a BlueTuskPluginException (doc/plugins.md,
		/// "Where and how policies are called").

	virtual void configure(const Poco::Util::AbstractConfiguration& config);
		/// Receives policy-specific properties: the view of bluetusk.dataSources.<name>.policy.* in the
		/// DataSourceSubsystem (keys relative to it: "seed", not "policy.seed"), called once, before the data
		/// source is created and before any plan(). A data source with policy properties gets its own
		/// instance of each of its policies, so configure() never changes another data source's. Throw
		/// (a Poco::Exception) to refuse the configuration: the subsystem names the properties and the
		/// policy. The default ignores them.
};

} // namespace BlueTusk

#endif // BlueTusk_HostOrderPolicy_INCLUDED
