//
// StandardTargetTable.cpp
//
// Plugin: BlueTuskTargetSessionPlugin
//

#include "StandardTargetTable.h"

namespace BlueTusk {

RoleVerdict classifyStandardTarget(TargetSessionAttributes target, ServerRole role)
{
	if (target == TargetSessionAttributes::Any) return RoleVerdict::Accept;
	if (role == ServerRole::Unknown) return RoleVerdict::Reject;
	const bool standby = role == ServerRole::Standby;
	const bool readWrite = role == ServerRole::Primary;
	switch (target)
	{
	case TargetSessionAttributes::Any:
		return RoleVerdict::Accept;
	case TargetSessionAttributes::Primary:
		return standby ? RoleVerdict::Reject : RoleVerdict::Accept;
	case TargetSessionAttributes::Standby:
		return standby ? RoleVerdict::Accept : RoleVerdict::Reject;
	case TargetSessionAttributes::PreferPrimary:
		return standby ? RoleVerdict::Fallback : RoleVerdict::Accept;
	case TargetSessionAttributes::PreferStandby:
		return standby ? RoleVerdict::Accept : RoleVerdict::Fallback;
	case TargetSessionAttributes::ReadWrite:
		return readWrite ? RoleVerdict::Accept : RoleVerdict::Reject;
	case TargetSessionAttributes::ReadOnly:
		return readWrite ? RoleVerdict::Reject : RoleVerdict::Accept;
	}
	return RoleVerdict::Reject;
}

} // namespace BlueTusk
