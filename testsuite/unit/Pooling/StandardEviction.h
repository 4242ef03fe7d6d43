//
// StandardEviction.h
//
// The standard eviction policy for the pool suites, loaded from its plugin library the way the library
// loads it (doc/plugins.md): no copy of the plugin's code in the tests.
//

#ifndef BlueTusk_StandardEviction_INCLUDED
#define BlueTusk_StandardEviction_INCLUDED

#include "BlueTusk/EvictionPolicy.h"

namespace BlueTusk {
namespace Test {

EvictionPolicy::Ptr standardEvictionPolicy();
	/// A new "standard" eviction policy from libBlueTuskEvictionPlugin.so, found along pluginSearchPath({})
	/// (first beside the loaded BlueTusk libraries) and loaded once per process through a
	/// PluginRegistry<EvictionPolicy>. The object keeps the library loaded. Throws BlueTuskPluginException
	/// naming the paths searched when the library is missing. Thread-safe.

} } // namespace BlueTusk::Test

#endif // BlueTusk_StandardEviction_INCLUDED
