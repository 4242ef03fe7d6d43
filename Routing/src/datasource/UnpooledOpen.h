//
// UnpooledOpen.h
//
// Library: BlueTusk/Routing
//
// BlueTuskConnection::open(): the router over pools that keep nothing idle and have no maximum.
//

#ifndef BlueTusk_Detail_UnpooledOpen_INCLUDED
#define BlueTusk_Detail_UnpooledOpen_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "ConnectionState.h"
#include <memory>

namespace BlueTusk {

class RoutingContext;

namespace Detail {

std::unique_ptr<ConnectionState> openUnpooled(const ConnectionSettings& settings, RoutingContext& connector);
	/// Resolves the Host Order and target policies through connector, builds a PoolManager with
	/// keepIdle=false, enforceMaximum=false and no pruning, and routes (doc/routing.md). The state
	/// keeps the manager alive until the connection is closed.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_UnpooledOpen_INCLUDED
