//
// TargetSessionPolicy.h
//
// Library: BlueTusk/Routing
//
// The target-session policy family (doc/routing.md and doc/plugins.md).
//

#ifndef BlueTusk_TargetSessionPolicy_INCLUDED
#define BlueTusk_TargetSessionPolicy_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Util/AbstractConfiguration.h"
#include <memory>
#include <string>

namespace BlueTusk {

enum class RoleVerdict
	/// How a target session policy classifies a server role.
{
	Accept,   /// the session is what the target wants: use it
	Fallback, /// usable if nothing better is found: keep the first one while searching
	Reject    /// not usable for this target
};

BlueTusk_Routing_API std::string toString(RoleVerdict verdict);
	/// "accept", "fallback", "reject".


class BlueTusk_Routing_API TargetSessionPolicy
	/// Classifies a server role for one target (PostgreSQL docs 34.1.2, target_session_attrs).
	/// Implementations are thread-safe (const calls on many threads at once; state set by configure()
	/// is read-only afterwards). Plugins export them with
	/// POCO_BEGIN_MANIFEST(BlueTusk::TargetSessionPolicy) and POCO_EXPORT_INTERFACE(Cls, "name"); a site
	/// policy's name is then accepted wherever a standard one is: Target Session Attributes=<name> (and
	/// target_session_attrs, PGTARGETSESSIONATTRS), BlueTuskDataSource::open("<name>"), the subsystem's
	/// targetSessionAttributes property and bluetusk-connect --target (doc/plugins.md).
{
public:
	using Ptr = std::shared_ptr<TargetSessionPolicy>;

	TargetSessionPolicy();
	virtual ~TargetSessionPolicy();

	virtual std::string name() const = 0;
		/// The target name this policy implements ("prefer-standby").

	virtual bool needsRole() const = 0;
		/// False when every role is accepted (target any): no probe is needed.

	virtual RoleVerdict classify(ServerRole role) const = 0;
		/// Accept, Fallback or Reject for a known role (never called with ServerRole::Unknown). Called where
		/// no particular server is meant: which roles a data source's pools keep (any role it never
		/// rejects), the split-brain guard and freshness rules (is this a write target?).

	virtual RoleVerdict classify(ServerRole role, const BlueTuskHostEndpoint& endpoint) const;
		/// The verdict for endpoint, a server of the host list whose role is role (known): the router calls
		/// this one, to order the endpoints (with the role learned earlier) and for each session it opens
		/// or reuses (with the role just probed). endpoint is the host list's entry as written (host name
		/// or address and port; Host Address not applied). The default returns classify(role), so a policy
		/// that does not look at the server need not override it (source compatible with policies written
		/// before it existed). A policy overriding it should still give classify(role) the answer it gives
		/// the "best" endpoint, since the pools keep only roles classify(role) does not reject.

	virtual void configure(const Poco::Util::AbstractConfiguration& config);
		/// Policy properties, as HostOrderPolicy::configure() receives them (the view of
		/// bluetusk.dataSources.<name>.policy.* in the subsystem), once, before the data source is created.
		/// Throw a Poco::Exception to refuse them. The default ignores them.
};

} // namespace BlueTusk

#endif // BlueTusk_TargetSessionPolicy_INCLUDED
