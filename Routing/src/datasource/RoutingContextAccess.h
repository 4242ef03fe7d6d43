//
// RoutingContextAccess.h
//
// Library: BlueTusk/Routing
//
// The way into a RoutingContext's learned host states for Routing's own sources and the project's tests.
//

#ifndef BlueTusk_RoutingContextAccess_INCLUDED
#define BlueTusk_RoutingContextAccess_INCLUDED

#include "BlueTusk/RoutingContext.h"
#include "router/HostStateRegistry.h"

namespace BlueTusk {
namespace Detail {

struct RoutingContextAccess
	/// Reaches the private parts of a RoutingContext that applications read only through
	/// RoutingContext::hostState(): the HostStateRegistry itself, which the router, the data sources and
	/// the tests (through BlueTuskRoutingInternal) mark and read. Thread-safe as the registry is.
{
	static HostStateRegistry& hostStates(const RoutingContext& context)
		/// The learned host states of context, shared by every copy of it.
	{
		return context.hostStates();
	}
};

inline HostStateRegistry& hostStatesOf(const RoutingContext& context)
	/// Shorthand for RoutingContextAccess::hostStates(context).
{
	return RoutingContextAccess::hostStates(context);
}

} } // namespace BlueTusk::Detail

#endif // BlueTusk_RoutingContextAccess_INCLUDED
