//
// TopologyManifest.cpp
//
// Library: BlueTusk/Plugins/Topology
//
// The Poco ClassLoader manifest of the topology source plugin library (doc/plugins.md,
// doc/high-availability.md).
//

#include "AutoFailoverTopologySource.h"
#include "BlueTusk/TopologySource.h"
#include "PatroniTopologySource.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::TopologySource)
	// one POCO_EXPORT_INTERFACE(<class>, "<name>") line per source: "patroni", "pg_auto_failover"
	POCO_EXPORT_INTERFACE(BlueTusk::AutoFailoverTopologySource, "pg_auto_failover")
	POCO_EXPORT_INTERFACE(BlueTusk::PatroniTopologySource, "patroni")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
