//
// Connector.h
//
// Library: BlueTusk/Routing
//
// The old name of RoutingContext (BlueTusk/RoutingContext.h), kept for existing code; deprecated.
//

#ifndef BlueTusk_Connector_INCLUDED
#define BlueTusk_Connector_INCLUDED

#include "BlueTusk/RoutingContext.h"

namespace BlueTusk {

using Connector [[deprecated("use BlueTusk::RoutingContext (BlueTusk/RoutingContext.h)")]] = RoutingContext;

} // namespace BlueTusk

#endif // BlueTusk_Connector_INCLUDED
