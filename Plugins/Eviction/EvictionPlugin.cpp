//
// EvictionPlugin.cpp
//
// Library: BlueTusk/Plugins/Eviction
//
// The Poco ClassLoader manifest of the eviction plugin library (doc/plugins.md).
//

#include "StandardEvictionPolicy.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::EvictionPolicy)
	POCO_EXPORT_INTERFACE(BlueTusk::StandardEvictionPolicy, "standard")
POCO_END_MANIFEST
