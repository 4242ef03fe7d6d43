//
// StandardTargetPolicy.h
//
// Plugin: BlueTuskTargetSessionPlugin
//

#ifndef BlueTusk_StandardTargetPolicy_INCLUDED
#define BlueTusk_StandardTargetPolicy_INCLUDED

#include "BlueTusk/TargetSessionPolicy.h"
#include "StandardTargetTable.h"

namespace BlueTusk {

template <TargetSessionAttributes Target>
class StandardTargetPolicy: public TargetSessionPolicy
	/// One of the seven standard targets (PostgreSQL docs 34.1.2, target_session_attrs; Npgsql's
	/// prefer-primary / prefer-standby), classified by classifyStandardTarget(). Stateless, thread-safe.
{
public:
	std::string name() const override
	{
		return toString(Target);
	}

	bool needsRole() const override
	{
		return Target != TargetSessionAttributes::Any;
	}

	RoleVerdict classify(ServerRole role) const override
	{
		return classifyStandardTarget(Target, role);
	}
};

using AnyTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::Any>;
using PrimaryTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::Primary>;
using StandbyTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::Standby>;
using PreferPrimaryTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::PreferPrimary>;
using PreferStandbyTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::PreferStandby>;
using ReadWriteTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::ReadWrite>;
using ReadOnlyTargetPolicy = StandardTargetPolicy<TargetSessionAttributes::ReadOnly>;

} // namespace BlueTusk

#endif // BlueTusk_StandardTargetPolicy_INCLUDED
