//
// TargetSessionManifest.cpp
//
// Plugin: BlueTuskTargetSessionPlugin
//
// The Poco ClassLoader manifest: the names "Target Session Attributes=" selects.
//

#include "StandardTargetPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

POCO_BEGIN_MANIFEST(BlueTusk::TargetSessionPolicy)
	POCO_EXPORT_INTERFACE(BlueTusk::AnyTargetPolicy, "any")
	POCO_EXPORT_INTERFACE(BlueTusk::PrimaryTargetPolicy, "primary")
	POCO_EXPORT_INTERFACE(BlueTusk::StandbyTargetPolicy, "standby")
	POCO_EXPORT_INTERFACE(BlueTusk::PreferPrimaryTargetPolicy, "prefer-primary")
	POCO_EXPORT_INTERFACE(BlueTusk::PreferStandbyTargetPolicy, "prefer-standby")
	POCO_EXPORT_INTERFACE(BlueTusk::ReadWriteTargetPolicy, "read-write")
	POCO_EXPORT_INTERFACE(BlueTusk::ReadOnlyTargetPolicy, "read-only")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
