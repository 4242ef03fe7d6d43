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
	/// Gives the order in which endpoints are attempted for one new physical connection, and how many run
	/// at once. The router then moves endpoints that are known down or role-incompatible to the end
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
		/// The attempt order for one new physical connection. Must return each index at most once.

	virtual void configure(const Poco::Util::AbstractConfiguration& config);
		/// Receives policy-specific properties (bluetusk.dataSources.<name>.policy.* in the subsystem).
		/// The default ignores them.
};

} // namespace BlueTusk

#endif // BlueTusk_HostOrderPolicy_INCLUDED
