//
// PolicyRegistry.h
//
// Library: BlueTusk/Routing
//
// Interim registry of named policies over Poco::ClassLoader, used by the Connector until Foundation's
// PluginRegistry lands (same interface: loadLibrary, names, has, create, addBuiltin).
//

#ifndef BlueTusk_Detail_PolicyRegistry_INCLUDED
#define BlueTusk_Detail_PolicyRegistry_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "Poco/ClassLoader.h"
#include "Poco/Manifest.h"
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

template <class Base>
class PolicyRegistry
	/// Named policies of one family: built-in factories and the classes of loaded plugin libraries (one
	/// Poco manifest per library, POCO_EXPORT_INTERFACE(Cls, "name")). Thread-safe.
{
public:
	using Factory = std::function<std::shared_ptr<Base>()>;

	void loadLibrary(const std::string& path)
		/// Loads path; throws BlueTuskPluginException when it cannot be loaded or has no manifest for Base.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		try
		{
			_loader.loadLibrary(path);
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException("cannot load plugin library " + path + ": " + exc.displayText());
		}
	}

	bool isLoaded(const std::string& path) const
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _loader.isLibraryLoaded(path);
	}

	void addBuiltin(const std::string& name, Factory factory)
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_builtins[name] = std::move(factory);
	}

	std::vector<std::string> names() const
	{
		std::lock_guard<std::mutex> lock(_mutex);
		std::set<std::string> all;
		for (const auto& builtin: _builtins) all.insert(builtin.first);
		for (auto it = _loader.begin(); it != _loader.end(); ++it)
		{
			for (auto m = it->second->begin(); m != it->second->end(); ++m) all.insert(m->name());
		}
		return std::vector<std::string>(all.begin(), all.end());
	}

	bool has(const std::string& name) const
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _builtins.count(name) != 0 || _loader.findClass(name) != nullptr;
	}

	std::shared_ptr<Base> create(const std::string& name) const
		/// A new instance; throws BlueTuskPluginException when no factory or loaded class has name.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto builtin = _builtins.find(name);
		if (builtin != _builtins.end()) return builtin->second();
		const Poco::AbstractMetaObject<Base>* meta = _loader.findClass(name);
		if (!meta) throw BlueTuskPluginException("no policy named " + name);
		return std::shared_ptr<Base>(meta->create());
	}

private:
	mutable std::mutex _mutex;
	Poco::ClassLoader<Base> _loader;
	std::map<std::string, Factory> _builtins;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_PolicyRegistry_INCLUDED
