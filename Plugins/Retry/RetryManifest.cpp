//
// RetryManifest.cpp
//
// Library: BlueTusk/Plugins/Retry
//
// The Poco ClassLoader manifest of the retry plugin library (doc/plugins.md).
//

#include "StandardRetryPolicies.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::RetryPolicy)
	POCO_EXPORT_INTERFACE(BlueTusk::BackoffRetryPolicy, "default")
	POCO_EXPORT_INTERFACE(BlueTusk::NoRetryPolicy, "no-retry")
	POCO_EXPORT_INTERFACE(BlueTusk::ReadOnlyRetryPolicy, "read-only")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
