//
// TopologyOnce.h
//
// Library: BlueTusk/Routing
//
// A topology source read once, for an open that has no background thread (BlueTuskConnection::open(),
// bluetusk-connect without --pool, a NotificationListener): doc/high-availability.md, "Topology sources".
//

#ifndef BlueTusk_Detail_TopologyOnce_INCLUDED
#define BlueTusk_Detail_TopologyOnce_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/RoutingContext.h"
#include "router/HostListSnapshot.h"
#include <string>

namespace BlueTusk {
namespace Detail {

void splitTopologySource(const std::string& value, std::string& name, std::string& location);
	/// "<name>:<location>" (a Topology Source value, its shape checked by the parser) into its two parts.

TopologySource::Ptr createTopologySource(const ConnectionSettings& settings, RoutingContext& connector);
	/// The configured source of settings.topologySource. Throws BlueTuskPluginException for a name no
	/// plugin provides, BlueTuskConnectionStringException for a bad location (messages redacted).

HostListPtr readTopologyOnce(const ConnectionSettings& settings, RoutingContext& connector);
	/// Without a Topology Source: null (route over the written hosts). With one: reads it once within the
	/// open's Timeout (at most 5 s) and returns its members, with their role hints, followed by the written
	/// hosts the source did not list; when the read fails, null (the written hosts), and a warning on
	/// "BlueTusk.Routing". A name or location the source refuses throws as createTopologySource() does.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_TopologyOnce_INCLUDED
