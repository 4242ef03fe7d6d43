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
#include "Poco/ClassLibrary.h"
#include "Poco/ClassLoader.h"
#include "Poco/Exception.h"
#include "Poco/Path.h"
#include "Poco/String.h"
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>


#define BLUETUSK_PLUGIN_ABI_VERSION 2
	/// The BlueTusk plugin ABI version: raised whenever a change to a policy base class (its virtual
	/// functions, their argument types) makes a plugin built before it unsafe to load. A plugin records the
	/// value it was compiled with through BLUETUSK_PLUGIN_ABI(); the loader refuses a library whose value
	/// differs from pluginAbiVersion(), or that records none (doc/plugins.md, "ABI version").


#define BLUETUSK_PLUGIN_ABI() \
	extern "C" POCO_LIBRARY_API int bluetuskPluginAbiVersion() { return BLUETUSK_PLUGIN_ABI_VERSION; } \
	extern "C" POCO_LIBRARY_API const char* bluetuskPluginRepeatedNames() { return ::BlueTusk::PluginManifestDetail::repeatedNames().c_str(); } \
	extern "C" POCO_LIBRARY_API int bluetuskPluginAbiVersion()
	/// Declares a plugin library's BlueTusk plugin ABI version. Every plugin library writes it once, at file
	/// scope, in the file that holds its manifest, after including this header (or a policy header that
	/// includes it) and before or after the manifest:
	///     #include "BlueTusk/PluginRegistry.h"
	///     POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	///         POCO_EXPORT_INTERFACE(FastestHostOrder, "fastest")
	///     POCO_END_MANIFEST
	///     BLUETUSK_PLUGIN_ABI();
	/// It exports two C functions the loader reads with Poco::SharedLibrary: bluetuskPluginAbiVersion()
	/// (BLUETUSK_PLUGIN_ABI_VERSION as compiled) and bluetuskPluginRepeatedNames() (the names the manifest
	/// gave more than once, which Poco's manifest would silently drop; the loader refuses such a library).


namespace BlueTusk {
namespace PluginManifestDetail {

static inline std::string& repeatedNames()
	/// The names a manifest in this file exported more than once, one per line (internal linkage: one list
	/// per plugin library). Filled by POCO_EXPORT_INTERFACE as redefined below.
{
	static std::string names;
	return names;
}

static inline void repeated(const char* name)
{
	std::string& names = repeatedNames();
	const std::string line = std::string(name) + "\n";
	if (("\n" + names).find("\n" + line) == std::string::npos) names += line;
}

template <class C, class B>
static inline void exportInterface(Poco::Manifest<B>* manifest, const char* name)
	/// What POCO_EXPORT_INTERFACE(C, name) does, but a name already in the manifest is recorded, not lost.
	/// B is deduced from the manifest (Poco 1.11 calls it _Base in its macros, 1.14 BaseType).
{
	Poco::MetaObject<C, B>* meta = new Poco::MetaObject<C, B>(name);
	if (!manifest->insert(meta))
	{
		repeated(name);
		delete meta;
	}
}

} } // namespace BlueTusk::PluginManifestDetail


#undef POCO_EXPORT_INTERFACE
#define POCO_EXPORT_INTERFACE(cls, itf) \
	::BlueTusk::PluginManifestDetail::exportInterface<cls>(pManifest, itf);
	/// Poco's POCO_EXPORT_INTERFACE (Poco/ClassLibrary.h), redefined so that a name given twice in one manifest
	/// is recorded for the loader (bluetuskPluginRepeatedNames()) instead of silently keeping the first.

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
	/// directory entry, <dir>/lib<baseName>.so if that file exists, else the file's own name when baseName
	/// is one ("libX" is <dir>/libX.so, "libX.so" is <dir>/libX.so); an entry that is itself a file is
	/// used as it is when its file name is lib<baseName>.so, <baseName>.so or <baseName>. Returns ""
	/// when nothing matches. Never throws for unreadable entries (they are skipped).

BlueTusk_Foundation_API std::vector<std::string> pluginLibraryFiles(const std::vector<std::string>& searchPath);
	/// The entries of searchPath that are existing files: libraries a site named directly, to be loaded
	/// as they are. In search path order.

BlueTusk_Foundation_API bool isPluginFile(const std::string& path);
	/// True when path names an existing regular file (a candidate plugin library). Never throws.

BlueTusk_Foundation_API bool isPluginDirectory(const std::string& path);
	/// True when path names an existing directory (a Plugin Path entry whose libraries are all loaded). Never throws.

BlueTusk_Foundation_API std::vector<std::string> pluginLibrariesIn(const std::string& directory);
	/// The shared libraries (files ending in SharedLibrary::suffix(), ".so") directly inside directory, sorted;
	/// empty when directory does not exist or is not a directory. Never throws.

BlueTusk_Foundation_API std::string describePluginSearchPath(const std::vector<std::string>& searchPath);
	/// The entries joined with ", " (or "(empty)"), for "not found" messages.

BlueTusk_Foundation_API int pluginAbiVersion();
	/// BLUETUSK_PLUGIN_ABI_VERSION as this BlueTusk was compiled: the only version the loader accepts.


struct BlueTusk_Foundation_API PluginImage
	/// A plugin library file as this process loaded it (openPluginImage()). Copyable; the library stays
	/// loaded for the life of the process whatever happens to the copies of this description.
{
	std::string file;
		/// The canonical path of the library file named (symbolic links resolved).
	std::string loadedFile;
		/// The path of the private copy that was opened: what the class loaders load. The copy's name is
		/// removed from the file system right after it is opened (the loader finds the open image by name).
	int abiVersion = 0;
		/// The value of its bluetuskPluginAbiVersion(); 0 when it declares none.
	void* buildManifest = nullptr;
		/// Its pocoBuildManifest function, or null when it exports no manifest.
	void* repeatedNamesFunction = nullptr;
		/// Its bluetuskPluginRepeatedNames function, or null.

	std::vector<std::string> repeatedNames() const;
		/// The names its manifest exported more than once (known once the manifest was built at least once).
};


BlueTusk_Foundation_API PluginImage openPluginImage(const std::string& path, const std::string& what);
	/// Opens the plugin library at path for this process, once per file: the first call copies the file to
	/// a private file, opens the copy with Poco::SharedLibrary and keeps it open until the process ends (it is
	/// never unloaded), so writing over or replacing the original on disk cannot touch the loaded code. A
	/// later call for the same file returns the same image when the file's content is unchanged. what names
	/// the library in messages ("host order plugin library").
	/// Throws BlueTuskPluginException ("cannot load <what> "<path>": <reason>") when the file does not exist
	/// or cannot be read, the dynamic loader refuses it, it exports no Poco manifest, it declares no plugin ABI
	/// version or another one than pluginAbiVersion() (naming both versions), or its content changed since
	/// this process loaded it (the first copy stays in use; a restart loads the new file). Thread-safe.

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
	/// that throws). doc/plugin-calls.md, "Where and how policies are called". Never throws. Thread-safe.

BlueTusk_Foundation_API std::string describeThrown(const std::exception_ptr& error);
	/// What a policy threw, for messages: a Poco::Exception's displayText(), "std::exception: " and what()
	/// of a std::exception, else "an exception that is neither a Poco::Exception nor a std::exception".
	/// Never throws.


template <class Base>
class PluginRegistry
	/// The policies of one family (host order, target session, eviction) by name: classes compiled in
	/// (addBuiltin) and classes exported by plugin libraries (loadLibrary).
	///
	/// A plugin library exports its classes with a Poco manifest whose entry names ARE the policy names,
	/// and declares the plugin ABI version it was built for:
	///     #include "BlueTusk/PluginRegistry.h"
	///     POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	///         POCO_EXPORT_INTERFACE(RandomHostOrder, "random")
	///     POCO_END_MANIFEST
	///     BLUETUSK_PLUGIN_ABI();
	/// (Poco ClassLibrary.h; POCO_EXPORT_CLASS would register the C++ class name instead.) Base must be
	/// a class with a virtual destructor that lives in a shared library both sides link.
	///
	/// Names are unique per registry in any letter case, and the standard names (reserve()) belong to their
	/// standard library: every conflict is an error naming the name and both providers.
	///
	/// Lifetime: a library is loaded from a private copy that stays loaded for the life of the process
	/// (openPluginImage()), so objects create() returns may outlive the registry, and the file on disk may be
	/// replaced at any time without affecting them.
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
		/// Loads a plugin library (openPluginImage(): from a private copy, its ABI version checked) and
		/// registers the classes of its manifest under their manifest names. Loading a file that is already
		/// loaded (under any path that resolves to it) does nothing, unless the file changed since (an error).
		/// Throws BlueTuskPluginException naming the file and the reason: see openPluginImage(), and loadImage()
		/// for the name rules; also when the manifest is for another base class than Base.
	{
		const PluginImage image = openPluginImage(path, prefixed("plugin library"));
		if (!loadImage(image, path))
			throw BlueTuskPluginException("cannot load " + prefixed("plugin library") + " \"" + path + "\": its manifest is for another base class than this policy family");
	}

	bool loadImage(const PluginImage& image, const std::string& path)
		/// Registers the classes of an opened library's manifest (path: the name the caller gave, for
		/// messages). Returns false, changing nothing, when its manifest is for another base class (another
		/// family); true when registered or already registered. Names are unique in any letter case: throws
		/// BlueTuskPluginException, registering nothing, when the manifest gives a name twice, when a name
		/// is reserved (reserve()) for a standard library other than this file, or when a built-in class or
		/// another library already provides it; the message names the family, the name and both libraries.
	{
		using BuildManifest = bool (*)(Poco::ManifestBase*);
		std::lock_guard<std::mutex> lock(_mutex);
		if (std::find(_libraries.begin(), _libraries.end(), image.file) != _libraries.end()) return true;
		if (!image.buildManifest) return false;
		std::vector<std::string> provided;
		{
			Poco::Manifest<Base> probe;
			if (!reinterpret_cast<BuildManifest>(image.buildManifest)(&probe)) return false;
			for (auto it = probe.begin(); it != probe.end(); ++it) provided.push_back((*it)->name());
		}
		const std::string what = "cannot load " + prefixed("plugin library") + " \"" + path + "\": ";
		const std::vector<std::string> repeated = image.repeatedNames();
		if (!repeated.empty())
			throw BlueTuskPluginException(what + "its manifest exports \"" + repeated.front() + "\" more than once");
		const std::string fileName = Poco::Path(image.file).getFileName();
		std::map<std::string, std::string> seen; // lower-case name -> name, within this manifest
		for (const auto& name: provided)
		{
			const std::string key = Poco::toLower(name);
			const auto twin = seen.find(key);
			if (twin != seen.end())
				throw BlueTuskPluginException(what + "its manifest exports both \"" + twin->second + "\" and \"" + name + "\" (names are matched in any letter case)");
			seen[key] = name;
			const auto reserved = _reserved.find(key);
			if (reserved != _reserved.end() && reserved->second.second != fileName)
			{
				const std::string owner = findProvider(key);
				throw BlueTuskPluginException(what + "it provides \"" + name + "\", a standard " + prefixed("policy") + " name (\"" +
					reserved->second.first + "\") reserved for " + reserved->second.second +
					(owner.empty() ? std::string() : " (" + owner + ")"));
			}
			const std::string existing = findProvider(key);
			if (!existing.empty())
			{
				const std::string existingName = _names.at(key);
				throw BlueTuskPluginException(what + "it provides \"" + name + "\", which " + existing + " already provides" +
					(existingName == name ? std::string() : " as \"" + existingName + "\""));
			}
		}
		try
		{
			_loader->loadLibrary(image.loadedFile);
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException(what + exc.displayText());
		}
		for (const auto& name: provided)
		{
			_providers[name] = "the library " + image.file;
			_names[Poco::toLower(name)] = name;
		}
		_libraries.push_back(image.file);
		return true;
	}

	void reserve(const std::vector<std::string>& names, const std::string& libraryBaseName)
		/// Reserves the standard names of this family, in any letter case, for the standard library
		/// libraryBaseName ("BlueTuskHostOrderPlugin"): a library with another file name that provides one of
		/// them is refused (loadImage()), so a plugin cannot shadow a standard policy.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		for (const auto& name: names) _reserved[Poco::toLower(name)] = {name, pluginLibraryFileName(libraryBaseName)};
	}

	void addBuiltin(const std::string& name, Factory factory)
		/// Registers a class compiled into the program under name. Throws BlueTuskPluginException when
		/// the name is already provided (in any letter case).
	{
		std::lock_guard<std::mutex> lock(_mutex);
		const std::string existing = findProvider(Poco::toLower(name));
		if (!existing.empty())
			throw BlueTuskPluginException("cannot add the built-in " + prefixed("policy") + " \"" + name + "\": " + existing + " already provides it");
		_builtins[name] = std::move(factory);
		_providers[name] = "a built-in class";
		_names[Poco::toLower(name)] = name;
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

	std::string findProvider(const std::string& lowerName) const
		/// Who provides the name in any letter case ("the library <path>"), or "".
	{
		const auto it = _names.find(lowerName);
		if (it == _names.end()) return std::string();
		return _providers.at(it->second);
	}

	std::vector<std::string> namesLocked() const
	{
		std::vector<std::string> result;
		for (const auto& provider: _providers) result.push_back(provider.first);
		return result; // std::map keeps them sorted
	}

	std::string _family;
	std::shared_ptr<Poco::ClassLoader<Base>> _loader;
	std::map<std::string, Factory> _builtins;
	std::map<std::string, std::string> _providers; /// policy name -> who provides it, for messages
	std::map<std::string, std::string> _names; /// lower-case name -> the name as provided
	std::map<std::string, std::pair<std::string, std::string>> _reserved; /// lower-case -> {name, library file name}
	std::vector<std::string> _libraries;
	mutable std::mutex _mutex;
};

} // namespace BlueTusk

#endif // BlueTusk_PluginRegistry_INCLUDED
