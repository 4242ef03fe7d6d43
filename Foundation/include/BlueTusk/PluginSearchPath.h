//
// PluginSearchPath.h
//
// Library: BlueTusk/Foundation
//
// Where policy plugin libraries are looked for (doc/plugins.md).
//

#ifndef BlueTusk_PluginSearchPath_INCLUDED
#define BlueTusk_PluginSearchPath_INCLUDED

#include "BlueTusk/Foundation.h"
#include <string>
#include <vector>

namespace BlueTusk {

constexpr const char* HOST_ORDER_PLUGIN_LIBRARY = "BlueTuskHostOrderPlugin";
	/// Base name of the standard host-order plugin library (libBlueTuskHostOrderPlugin.so).
constexpr const char* TARGET_SESSION_PLUGIN_LIBRARY = "BlueTuskTargetSessionPlugin";
	/// Base name of the standard target-session plugin library.
constexpr const char* EVICTION_PLUGIN_LIBRARY = "BlueTuskEvictionPlugin";
	/// Base name of the standard eviction plugin library.
constexpr const char* RETRY_PLUGIN_LIBRARY = "BlueTuskRetryPlugin";
	/// Base name of the standard retry plugin library.
constexpr const char* TOPOLOGY_PLUGIN_LIBRARY = "BlueTuskTopologyPlugin";
	/// Base name of the standard topology source plugin library (patroni, pg_auto_failover).

BlueTusk_Foundation_API std::vector<std::string> pluginSearchPath(const std::vector<std::string>& pluginPathSetting);
	/// The plugin search path, in order: pluginRelocatedDirectory() (the standard plugins beside the loaded
	/// library, in the build tree and after installing), then the entries of the Plugin Path setting, then the
	/// ':'-separated entries of the environment variable BLUETUSK_PLUGIN_PATH, then pluginInstallDirectory().
	/// Empty entries are dropped; a repeated entry is kept only the first time. Entries may be directories or
	/// library files. Thread-safe (reads the environment).

BlueTusk_Foundation_API std::vector<std::string> pluginSearchPath(const std::vector<std::string>& pluginPathSetting, const std::string& environmentValue);
	/// As above, with the value of BLUETUSK_PLUGIN_PATH given explicitly (for tests).

BlueTusk_Foundation_API std::string pluginRelocatedDirectory();
	/// <dir>/bluetusk/plugins, where <dir> is the directory of the loaded libBlueTuskFoundation (found with
	/// dladdr): build/lib/bluetusk/plugins in the build tree, <libdir>/bluetusk/plugins after `cmake --install`
	/// (whatever --prefix) or in a package, wherever the tree was moved. Returned whether or not it exists
	/// (a search path entry, named in "not found" messages); "" only when dladdr fails. Thread-safe.

BlueTusk_Foundation_API std::string pluginInstallDirectory();
	/// Where `cmake --install` puts plugins for the configured prefix: <prefix>/<libdir>/bluetusk/plugins.

BlueTusk_Foundation_API std::string pluginBuildDirectory();
	/// Where the build tree puts the standard plugins: <build>/lib/bluetusk/plugins (which is
	/// pluginRelocatedDirectory() for libraries loaded from the build tree; not itself a search path entry).

BlueTusk_Foundation_API std::string pluginLibraryFileName(const std::string& baseName);
	/// "lib<baseName>.so" (CMake's name for a MODULE library on this platform).

BlueTusk_Foundation_API std::string findPluginLibrary(const std::vector<std::string>& searchPath, const std::string& baseName);
	/// The first match along searchPath for the library baseName ("BlueTuskHostOrderPlugin"): for a
	/// directory entry, <dir>/lib<baseName>.so if that file exists; an entry that is itself a file is
	/// used as it is when its file name is lib<baseName>.so, <baseName>.so or <baseName>. Returns ""
	/// when nothing matches. Never throws for unreadable entries (they are skipped).

BlueTusk_Foundation_API std::vector<std::string> pluginLibraryFiles(const std::vector<std::string>& searchPath);
	/// The entries of searchPath that are existing files: libraries a site named directly, to be loaded
	/// as they are. In search path order.

BlueTusk_Foundation_API bool isPluginFile(const std::string& path);
	/// True when path names an existing regular file (a candidate plugin library). Never throws.

BlueTusk_Foundation_API std::vector<std::string> pluginLibrariesIn(const std::string& directory);
	/// The shared libraries (files ending in SharedLibrary::suffix(), ".so") directly inside directory, sorted;
	/// empty when directory does not exist or is not a directory. Never throws.

BlueTusk_Foundation_API std::string describePluginSearchPath(const std::vector<std::string>& searchPath);
	/// The entries joined with ", " (or "(empty)"), for "not found" messages.

BlueTusk_Foundation_API const std::vector<std::string>& standardPluginLibraries();
	/// The base names of the standard plugin libraries, one per policy family: HOST_ORDER_PLUGIN_LIBRARY,
	/// TARGET_SESSION_PLUGIN_LIBRARY, EVICTION_PLUGIN_LIBRARY, RETRY_PLUGIN_LIBRARY, TOPOLOGY_PLUGIN_LIBRARY.
	/// Every data source needs all of them. Thread-safe.

BlueTusk_Foundation_API std::string standardPluginsMissingMessage(const std::vector<std::string>& problems, const std::vector<std::string>& searchPath);
	/// The message for standard plugin libraries that could not be loaded: each problem (such as
	/// "libBlueTuskTargetSessionPlugin.so not found"), then every entry of searchPath:
	///     a standard plugin library is missing: libX.so not found (searched /a, /b)
	/// Paths and library names only: nothing from a connection string but the Plugin Path entries.

} // namespace BlueTusk

#endif // BlueTusk_PluginSearchPath_INCLUDED
