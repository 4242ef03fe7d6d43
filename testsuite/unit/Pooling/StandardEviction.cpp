//
// StandardEviction.cpp
//
// The standard eviction policy loaded from its plugin library (StandardEviction.h).
//

#include "StandardEviction.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"

namespace BlueTusk {
namespace Test {

namespace {

PluginRegistry<EvictionPolicy>& standardRegistry()
{
	static PluginRegistry<EvictionPolicy>& registry = []() -> PluginRegistry<EvictionPolicy>&
	{
		static PluginRegistry<EvictionPolicy> loaded("eviction");
		const std::vector<std::string> searchPath = pluginSearchPath({});
		const std::string file = findPluginLibrary(searchPath, EVICTION_PLUGIN_LIBRARY);
		if (file.empty())
			throw BlueTuskPluginException(standardPluginsMissingMessage({pluginLibraryFileName(EVICTION_PLUGIN_LIBRARY) + " not found"}, searchPath));
		loaded.loadLibrary(file);
		return loaded;
	}();
	return registry;
}

} // namespace


EvictionPolicy::Ptr standardEvictionPolicy()
{
	return standardRegistry().create("standard");
}

} } // namespace BlueTusk::Test
