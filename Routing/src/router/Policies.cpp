//
// Policies.cpp
//
// Library: BlueTusk/Routing
//
// Out-of-line members of the policy base classes (their vtables live in BlueTuskRouting, which both the
// router and the plugins link: Poco's ClassLoader needs the base class in a shared library both load, or
// the executable must export it).
//

#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/RetryPolicy.h"
#include "BlueTusk/TargetSessionPolicy.h"

namespace BlueTusk {

std::string toString(RoleVerdict verdict)
{
	switch (verdict)
	{
	case RoleVerdict::Accept:   return "accept";
	case RoleVerdict::Fallback: return "fallback";
	case RoleVerdict::Reject:   break;
	}
	return "reject";
}


TargetSessionPolicy::TargetSessionPolicy()
{
}


TargetSessionPolicy::~TargetSessionPolicy()
{
}


RoleVerdict TargetSessionPolicy::classify(ServerRole role, const BlueTuskHostEndpoint&) const
{
	return classify(role);
}


void TargetSessionPolicy::configure(const Poco::Util::AbstractConfiguration&)
{
}


HostOrderPolicy::HostOrderPolicy()
{
}


HostOrderPolicy::~HostOrderPolicy()
{
}


void HostOrderPolicy::configure(const Poco::Util::AbstractConfiguration&)
{
}


std::string toString(RetryCause cause)
{
	switch (cause)
	{
	case RetryCause::Failover:             return "failover";
	case RetryCause::SerializationFailure: return "serialization failure";
	case RetryCause::Deadlock:             return "deadlock";
	case RetryCause::RolledBackAtCommit:   break;
	}
	return "rolled back at commit";
}


RetryPolicy::RetryPolicy()
{
}


RetryPolicy::~RetryPolicy()
{
}


void RetryPolicy::configure(const Poco::Util::AbstractConfiguration&)
{
}

} // namespace BlueTusk
