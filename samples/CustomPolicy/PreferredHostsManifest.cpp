//
// PreferredHostsManifest.cpp
//
// Sample plugin: BlueTuskPreferredHostsPlugin
//
// The Poco ClassLoader manifest: its entry name is the policy name "Host Order=" selects. The manifest's
// base class (BlueTusk::HostOrderPolicy) tells the connector which policy family the library extends.
//

#include "PreferredHostsPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(BlueTusk::Samples::PreferredHostsPolicy, "preferred-hosts")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
