//
// EvictionPlugin.cpp
//
// Library: BlueTusk/Plugins/Eviction
//
// The Poco ClassLoader manifest of the eviction plugin library (doc/plugins.md).
//

#include "StandardEvictionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::EvictionPolicy)
	POCO_EXPORT_INTERFACE(BlueTusk::StandardEvictionPolicy, "standard")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
