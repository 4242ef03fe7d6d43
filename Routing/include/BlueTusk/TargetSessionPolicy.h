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
#include "BlueTusk/TargetSessionAttributes.h"
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
	/// Implementations are stateless and thread-safe. Plugins export them with
	/// POCO_BEGIN_MANIFEST(BlueTusk::TargetSessionPolicy) and POCO_EXPORT_INTERFACE(Cls, "name").
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
		/// Accept, Fallback or Reject for a known role (never called with ServerRole::Unknown).
};

} // namespace BlueTusk

#endif // BlueTusk_TargetSessionPolicy_INCLUDED
