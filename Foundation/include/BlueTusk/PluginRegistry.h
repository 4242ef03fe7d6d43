//
// PluginRegistry.h
//
// Library: BlueTusk/Foundation
//
// The plugin loading primitive: one registry per policy family over Poco::ClassLoader, and the search path
// its libraries are found along (the standard library names, pluginSearchPath(); doc/plugins.md).
//

#ifndef BlueTusk_PluginRegistry_INCLUDED
#define BlueTusk_PluginRegistry_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/ClassLoader.h"
#include "Poco/Exception.h"
#include "Poco/File.h"
#include "Poco/Path.h"
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
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

BlueTusk_Foundation_API std::string describePolicy(const std::string& family, const std::function<std::string()>& name,
	const void* object);
	/// For messages about one policy object: <family> policy "<name()>" (<file>), where <file> is the file
	/// name of the library (or program) that holds the code of the object's class, found with dladdr on its
	/// vtable (object: the policy, a polymorphic object; null leaves the library out; so does a name()
	/// that throws). doc/plugins.md, "Where and how policies are called". Never throws. Thread-safe.

BlueTusk_Foundation_API std::string describeThrown(const std::exception_ptr& error);
	/// What a policy threw, for messages: a Poco::Exception's displayText(), "std::exception: " and what()
	/// of a std::exception, else "an exception that is neither a Poco::Exception nor a std::exception".
	/// Never throws.


template <class Base>
class PluginRegistry
	/// The policies of one family (host order, target session, eviction) by name: classes compiled in
	/// (addBuiltin) and classes exported by plugin libraries (loadLibrary).
	///
	/// A plugin library exports its classes with a Poco manifest whose entry names ARE the policy names:
	///     POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	///         POCO_EXPORT_INTERFACE(RandomHostOrder, "random")
	///     POCO_END_MANIFEST
	/// (Poco ClassLibrary.h; POCO_EXPORT_CLASS would register the C++ class name instead.) Base must be
	/// a class with a virtual destructor that lives in a shared library both sides link.
	///
	/// Lifetime: libraries are never unloaded while the registry lives, and every object create() returns
	/// keeps the libraries loaded until it is destroyed (its deleter holds the class loader), so objects
	/// may safely outlive the registry.
	///
	/// Thread-safe: every member may be called from several threads at once.
{
public:
	using Ptr = std::shared_ptr<Base>;
	using Factory = std::function<Ptr()>;
		/// Makes a new object of a built-in class; must not return null.

	explicit PluginRegistry(const std::string& family = ""):
		/// family names the kind of policy in messages ("host order" -> "no host order policy named ...").
		_family(family),
		_loader(std::make_shared<Poco::ClassLoader<Base>>())
	{
	}

	PluginRegistry(const PluginRegistry&) = delete;
	PluginRegistry& operator = (const PluginRegistry&) = delete;

	~PluginRegistry() = default;
		/// Releases the class loader; it unloads the libraries once no created object remains.

	const std::string& family() const
	{
		return _family;
	}

	void loadLibrary(const std::string& path)
		/// Loads a plugin library and registers the classes of its manifest under their manifest names.
		/// Loading a file that is already loaded (under any path that resolves to it) does nothing.
		/// Throws BlueTuskPluginException naming the file and the reason: no such file, the dynamic
		/// loader's error, no manifest, a manifest for another base class, or a policy name that a
		/// built-in class or another library already provides (the library is then unloaded again).
	{
		std::lock_guard<std::mutex> lock(_mutex);
		const std::string file = canonicalPath(path);
		if (std::find(_libraries.begin(), _libraries.end(), file) != _libraries.end()) return;
		if (!fileExists(file))
			throw BlueTuskPluginException("cannot load " + prefixed("plugin library") + " \"" + path + "\": no such file");
		try
		{
			_loader->loadLibrary(file);
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException("cannot load " + prefixed("plugin library") + " \"" + path + "\": " + loaderReason(exc, file));
		}
		std::vector<std::string> provided;
		for (const auto* meta: _loader->manifestFor(file))
		{
			const std::string name = meta->name();
			const auto existing = _providers.find(name);
			if (existing != _providers.end())
			{
				_loader->unloadLibrary(file);
				throw BlueTuskPluginException("cannot load " + prefixed("plugin library") + " \"" + path + "\": it provides \"" + name +
					"\", which " + existing->second + " already provides");
			}
			provided.push_back(name);
		}
		for (const auto& name: provided) _providers[name] = "the library " + file;
		_libraries.push_back(file);
	}

	void addBuiltin(const std::string& name, Factory factory)
		/// Registers a class compiled into the program under name. Throws BlueTuskPluginException when
		/// the name is already provided.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		const auto existing = _providers.find(name);
		if (existing != _providers.end())
			throw BlueTuskPluginException("cannot add the built-in " + prefixed("policy") + " \"" + name + "\": " + existing->second + " already provides it");
		_builtins[name] = std::move(factory);
		_providers[name] = "a built-in class";
	}

	std::vector<std::string> names() const
		/// The sorted names of every policy available (built in and loaded).
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return namesLocked();
	}

	bool has(const std::string& name) const
		/// Whether a policy of that name is available (names are case-sensitive).
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _providers.count(name) > 0;
	}

	std::string providerOf(const std::string& name) const
		/// "a built-in class" or "the library <path>"; empty when the name is unknown.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		const auto it = _providers.find(name);
		return it == _providers.end() ? std::string() : it->second;
	}

	std::vector<std::string> libraries() const
		/// The loaded library files (canonical paths), in load order.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _libraries;
	}

	Ptr create(const std::string& name) const
		/// A new object of the named policy. Throws BlueTuskPluginException for an unknown name (listing
		/// the available names) or when the class cannot be made.
	{
		Factory factory;
		const Poco::AbstractMetaObject<Base>* meta = nullptr;
		std::shared_ptr<Poco::ClassLoader<Base>> loader;
		{
			std::lock_guard<std::mutex> lock(_mutex);
			const auto builtin = _builtins.find(name);
			if (builtin != _builtins.end())
			{
				factory = builtin->second;
			}
			else if (_providers.count(name))
			{
				meta = _loader->findClass(name);
				loader = _loader;
			}
			if (!factory && !meta)
			{
				const std::vector<std::string> available = namesLocked();
				std::string list;
				for (const auto& item: available) list += (list.empty() ? "" : ", ") + item;
				throw BlueTuskPluginException("no " + prefixed("policy") + " named \"" + name + "\"; available: " +
					(list.empty() ? std::string("none (no plugin library loaded)") : list));
			}
		}
		if (factory)
		{
			Ptr object = factory();
			if (!object) throw BlueTuskPluginException("the built-in " + prefixed("policy") + " \"" + name + "\" returned no object");
			return object;
		}
		try
		{
			// The deleter holds the loader, so the library stays loaded until the object is gone.
			if (meta->canCreate()) return Ptr(meta->create(), [loader](Base* object) { delete object; });
			return Ptr(&meta->instance(), [loader](Base*) {});
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException("cannot create the " + prefixed("policy") + " \"" + name + "\": " + exc.displayText());
		}
	}

private:
	std::string prefixed(const std::string& what) const
		/// "host order policy", or "policy" when the family has no name.
	{
		return _family.empty() ? what : _family + " " + what;
	}

	std::vector<std::string> namesLocked() const
	{
		std::vector<std::string> result;
		for (const auto& provider: _providers) result.push_back(provider.first);
		return result; // std::map keeps them sorted
	}

	static std::string canonicalPath(const std::string& path)
		/// The real path of an existing file (symbolic links resolved), else the absolute path.
	{
		char buffer[PATH_MAX];
		if (::realpath(path.c_str(), buffer)) return buffer;
		try
		{
			return Poco::Path(path).makeAbsolute().toString();
		}
		catch (Poco::Exception&)
		{
			return path;
		}
	}

	static bool fileExists(const std::string& path)
	{
		try
		{
			Poco::File file(path);
			return file.exists() && file.isFile();
		}
		catch (Poco::Exception&)
		{
			return false;
		}
	}

	static std::string loaderReason(const Poco::Exception& exc, const std::string& file)
	{
		const std::string message = exc.message();
		if (message.find("No manifest") == 0) return "it exports no Poco class manifest (POCO_BEGIN_MANIFEST)";
		if (message.find("Manifest class mismatch") == 0) return "its manifest is for another base class than this policy family";
		std::string reason = exc.displayText();
		return reason.empty() ? "unknown error loading " + file : reason;
	}

	std::string _family;
	std::shared_ptr<Poco::ClassLoader<Base>> _loader;
	std::map<std::string, Factory> _builtins;
	std::map<std::string, std::string> _providers; /// policy name -> who provides it, for messages
	std::vector<std::string> _libraries;
	mutable std::mutex _mutex;
};

} // namespace BlueTusk

#endif // BlueTusk_PluginRegistry_INCLUDED
