//
// HostOrderManifest.cpp
//
// Plugin: BlueTuskHostOrderPlugin
//
// The Poco ClassLoader manifest: the names "Host Order=" selects.
//

#include "ParallelHostOrder.h"
#include "RandomHostOrder.h"
#include "SequentialHostOrder.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(BlueTusk::SequentialHostOrder, "sequential")
	POCO_EXPORT_INTERFACE(BlueTusk::RandomHostOrder, "random")
	POCO_EXPORT_INTERFACE(BlueTusk::ParallelHostOrder, "parallel")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
