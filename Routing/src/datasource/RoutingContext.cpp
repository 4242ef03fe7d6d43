//
// RoutingContext.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "ha/HealthMonitor.h"
#include "router/HostStateRegistry.h"
#include "router/TargetSessionCall.h"
#include "router/PolicyCallBound.h"
#include "router/HostOrderCall.h"
#include "Poco/Logger.h"
#include "Poco/Path.h"
#include "Poco/SharedLibrary.h"
#include "Poco/String.h"
#include <map>
#include <mutex>
#include <set>

namespace BlueTusk {

namespace {

std::string joined(const std::vector<std::string>& items, const std::string& separator)
{
	std::string text;
	for (const auto& item: items)
	{
		if (!text.empty()) text += separator;
		text += item;
	}
	return text;
}




} // namespace


std::string toString(PolicyFamily family)
{
	switch (family)
	{
	case PolicyFamily::HostOrder:     return "host order";
	case PolicyFamily::TargetSession: return "target session";
	case PolicyFamily::Eviction:      return "eviction";
	case PolicyFamily::Retry:         return "retry";
	case PolicyFamily::Topology:      break;
	}
	return "topology";
}


struct RoutingContext::Impl
{
	std::mutex mutex;
	PluginRegistry<HostOrderPolicy> hostOrders{"host order"};
	PluginRegistry<TargetSessionPolicy> targets{"target session"};
	PluginRegistry<EvictionPolicy> evictions{"eviction"};
	PluginRegistry<RetryPolicy> retries{"retry"};
	PluginRegistry<TopologySource> topologies{"topology"};
	bool standardTried = false;
	std::set<std::string> loadedStandard;           // base names of standard libraries loaded
	std::map<std::string, std::string> loadFailures; // base name -> why it could not be loaded
	std::vector<std::string> lastSearchPath;
	std::set<std::string> loadedPaths;
	// Cached instances: declared after the registries so they are destroyed before the libraries unload.
	std::map<std::string, HostOrderPolicy::Ptr> hostOrderCache;
	std::map<std::string, TargetSessionPolicy::Ptr> targetCache;
	std::map<std::string, EvictionPolicy::Ptr> evictionCache;
	std::map<std::string, RetryPolicy::Ptr> retryCache;
	std::map<std::string, TopologySource::Ptr> topologyCache; // unused: every source is a fresh instance
	SessionFactory::Ptr factory;
	HostStateRegistry hostStates;
	Detail::HealthMonitor monitor{hostStates}; // last: its threads end before anything else goes

	std::vector<std::string> searchPath(const std::vector<std::string>& pluginPath) const
	{
		return pluginSearchPath(pluginPath);
	}

	Impl()
	{
		// The standard names belong to the standard libraries in any letter case: a plugin cannot shadow them.
		hostOrders.reserve({"sequential", "random", "parallel"}, HOST_ORDER_PLUGIN_LIBRARY);
		targets.reserve({"any", "read-write", "read-only", "primary", "standby", "prefer-primary", "prefer-standby"}, TARGET_SESSION_PLUGIN_LIBRARY);
		evictions.reserve({"standard"}, EVICTION_PLUGIN_LIBRARY);
		retries.reserve({"default", "no-retry", "read-only"}, RETRY_PLUGIN_LIBRARY);
		topologies.reserve({"patroni", "pg_auto_failover"}, TOPOLOGY_PLUGIN_LIBRARY);
	}

	void loadInto(const std::string& path)
		/// Loads path into the registry of the family its manifest is for (the caller holds the mutex).
		/// Throws BlueTuskPluginException with the real cause: the file, its ABI version, a name conflict
		/// (from the registry of its family, naming both libraries), or a manifest for no policy family.
	{
		const PluginImage image = openPluginImage(path, "plugin library");
		if (loadedPaths.count(image.file)) return;
		const bool accepted = hostOrders.loadImage(image, path) || targets.loadImage(image, path) || evictions.loadImage(image, path) ||
			retries.loadImage(image, path) || topologies.loadImage(image, path);
		if (!accepted)
			throw BlueTuskPluginException("cannot load plugin library \"" + path + "\": its manifest is for none of the policy families "
				"(host order, target session, eviction, retry, topology)");
		loadedPaths.insert(image.file);
	}

	void loadStandard(const std::vector<std::string>& pluginPath)
	{
		std::lock_guard<std::mutex> lock(mutex);
		if (standardTried && pluginPath.empty()) return;
		standardTried = true;
		std::vector<std::string> path = searchPath(pluginPath);
		lastSearchPath = path;
		for (const std::string& base: standardPluginLibraries())
		{
			if (loadedStandard.count(base)) continue;
			std::string file = findPluginLibrary(path, base);
			if (file.empty())
			{
				loadFailures[base] = pluginLibraryFileName(base) + " not found";
				continue;
			}
			try
			{
				loadInto(file);
				loadedStandard.insert(base);
				loadFailures.erase(base);
				Poco::Logger& logger = Poco::Logger::get("BlueTusk.Routing");
				if (logger.debug()) logger.debug("loaded plugin library %s", file);
			}
			catch (BlueTuskPluginException& exc)
			{
				loadFailures[base] = file + ": " + exc.message();
				Poco::Logger::get("BlueTusk.Routing").warning("%s", exc.message());
			}
		}
		// Plugin Path entries beyond the standard libraries: a file is a site plugin; in a directory, every
		// library is one. Every entry must exist, and every library must load (no silent drops).
		for (const auto& entry: pluginPath)
		{
			if (isPluginFile(entry))
			{
				loadInto(entry);
			}
			else if (isPluginDirectory(entry))
			{
				for (const auto& file: pluginLibrariesIn(entry)) loadInto(file);
			}
			else
			{
				throw BlueTuskPluginException("Plugin Path entry \"" + entry + "\" does not exist (neither a plugin library file nor a directory)");
			}
		}
	}

	void requireStandard()
		/// Throws BlueTuskPluginException naming every standard library that could not be loaded and every
		/// path searched, when there is one.
	{
		std::lock_guard<std::mutex> lock(mutex);
		if (loadFailures.empty()) return;
		std::vector<std::string> problems;
		for (const std::string& base: standardPluginLibraries())
		{
			auto failure = loadFailures.find(base);
			if (failure != loadFailures.end()) problems.push_back(failure->second);
		}
		throw BlueTuskPluginException(standardPluginsMissingMessage(problems, lastSearchPath));
	}

	std::string notFoundMessage(PolicyFamily family, const std::string& name, const std::vector<std::string>& available, const char* library)
	{
		std::lock_guard<std::mutex> lock(mutex);
		std::string text = "no " + toString(family) + " policy named \"" + name + "\"; available: " +
			(available.empty() ? std::string("(none)") : joined(available, ", "));
		auto failure = loadFailures.find(library);
		if (failure != loadFailures.end())
		{
			text += " (standard plugin library " + failure->second + "; searched " + describePluginSearchPath(lastSearchPath) + ")";
		}
		return text;
	}

	template <class Base>
	static std::string checkName(PolicyFamily family, const std::string& registered, const std::shared_ptr<Base>& policy, const char* library)
		/// Asks a new object's name() once, bounded (PolicyCallBound.h) by this thread's PolicyDeadline (a
		/// checkout's, an open's or a data source creation's; 15 s outside one), and returns it: what it
		/// throws, or a name() that does not return, is a BlueTuskPluginException (logged once) naming the
		/// family, the name it is registered under and its library, instead of an exception of the plugin's
		/// own escaping create(). A standard policy (its code in library) is not asked: registered is returned.
	{
		if (Detail::codeIsInLibrary(policy.get(), library)) return registered;
		const auto description = [family, registered, policy]() { return describePolicy(toString(family), [&registered]() { return registered; }, policy.get()); };
		std::exception_ptr thrown;
		std::string name = Detail::PolicyCallBound::call<std::string>([policy]() { return policy->name(); }, Detail::PolicyDeadline::current(),
			description, "name()", thrown, policy.get());
		if (!thrown) return name;
		const std::string message = description() + " failed in name(): " + describeThrown(thrown);
		Poco::Logger::get("BlueTusk.Routing").error(message);
		throw BlueTuskPluginException(message);
	}

	template <class Base>
	std::shared_ptr<Base> lookup(PluginRegistry<Base>& registry, std::map<std::string, std::shared_ptr<Base>>& cache,
		PolicyFamily family, const std::string& requested, const char* library, bool fresh,
		std::shared_ptr<Base> (*wrap)(std::shared_ptr<Base>, const std::string&) = nullptr)
		/// The policy named requested (cached unless fresh); wrap, when given, is applied once, before caching,
		/// with the name the policy gave (its name() is asked once, by checkName()).
	{
		loadStandard({});
		// Names match case-insensitively, like every other connection-string value ("Host Order=Parallel").
		std::string name = requested;
		if (!registry.has(name))
		{
			for (const auto& available: registry.names())
			{
				if (Poco::icompare(available, requested) == 0)
				{
					name = available;
					break;
				}
			}
		}
		if (!fresh)
		{
			std::lock_guard<std::mutex> lock(mutex);
			auto it = cache.find(name);
			if (it != cache.end()) return it->second;
		}
		if (!registry.has(name))
		{
			throw BlueTuskPluginException(notFoundMessage(family, name, registry.names(), library));
		}
		std::shared_ptr<Base> policy = registry.create(name);
		const std::string own = checkName(family, name, policy, library);
		if (wrap) policy = wrap(std::move(policy), own);
		if (!fresh)
		{
			std::lock_guard<std::mutex> lock(mutex);
			auto inserted = cache.emplace(name, policy);
			policy = inserted.first->second;
		}
		return policy;
	}
};


RoutingContext::RoutingContext():
	_impl(std::make_shared<Impl>())
{
}


RoutingContext::RoutingContext(SessionFactory::Ptr factory):
	_impl(std::make_shared<Impl>())
{
	_impl->factory = std::move(factory);
}


RoutingContext::RoutingContext(const RoutingContext& other):
	_impl(other._impl)
{
}


RoutingContext& RoutingContext::operator = (const RoutingContext& other)
{
	_impl = other._impl;
	return *this;
}


RoutingContext::~RoutingContext()
{
}


RoutingContext& RoutingContext::defaultContext()
{
	static RoutingContext connector;
	return connector;
}


void RoutingContext::loadStandardPlugins(const std::vector<std::string>& pluginPath)
{
	_impl->loadStandard(pluginPath);
	_impl->requireStandard();
}


void RoutingContext::loadPlugin(const std::string& path)
{
	_impl->loadStandard({});
	std::string file = path;
	if (!isPluginFile(file))
	{
		if (file.find('/') != std::string::npos)
			throw BlueTuskPluginException("plugin library " + path + " does not exist or is not a file");
		file = findPluginLibrary(_impl->searchPath({}), path);
		if (file.empty()) throw BlueTuskPluginException("plugin library " + path + " not found (searched " + describePluginSearchPath(_impl->searchPath({})) + ")");
	}
	std::lock_guard<std::mutex> lock(_impl->mutex);
	_impl->loadInto(file);
	Poco::Logger::get("BlueTusk.Routing").information("loaded plugin library %s", file);
}


HostOrderPolicy::Ptr RoutingContext::hostOrderPolicy(const std::string& name)
{
	return _impl->lookup(_impl->hostOrders, _impl->hostOrderCache, PolicyFamily::HostOrder, name, HOST_ORDER_PLUGIN_LIBRARY, false);
}


HostOrderPolicy::Ptr RoutingContext::createHostOrderPolicy(const std::string& name)
{
	return _impl->lookup(_impl->hostOrders, _impl->hostOrderCache, PolicyFamily::HostOrder, name, HOST_ORDER_PLUGIN_LIBRARY, true);
}


TargetSessionPolicy::Ptr RoutingContext::targetSessionPolicy(TargetSessionAttributes target)
{
	return targetSessionPolicy(toString(target));
}


TargetSessionPolicy::Ptr RoutingContext::targetSessionPolicy(const std::string& name)
{
	// A site policy's every call is guarded: what it throws becomes a BlueTuskPluginException naming it
	// (router/TargetSessionCall.h); a standard one is returned as it is.
	return _impl->lookup(_impl->targets, _impl->targetCache, PolicyFamily::TargetSession, name, TARGET_SESSION_PLUGIN_LIBRARY, false,
		&Detail::GuardedTargetSessionPolicy::guard);
}


EvictionPolicy::Ptr RoutingContext::evictionPolicy(const std::string& name)
{
	return _impl->lookup(_impl->evictions, _impl->evictionCache, PolicyFamily::Eviction, name, EVICTION_PLUGIN_LIBRARY, false);
}


RetryPolicy::Ptr RoutingContext::retryPolicy(const std::string& name)
{
	return _impl->lookup(_impl->retries, _impl->retryCache, PolicyFamily::Retry, name, RETRY_PLUGIN_LIBRARY, false);
}


TopologySource::Ptr RoutingContext::createTopologySource(const std::string& name)
{
	return _impl->lookup(_impl->topologies, _impl->topologyCache, PolicyFamily::Topology, name, TOPOLOGY_PLUGIN_LIBRARY, true);
}


std::vector<std::string> RoutingContext::policyNames(PolicyFamily family)
{
	_impl->loadStandard({});
	switch (family)
	{
	case PolicyFamily::HostOrder:     return _impl->hostOrders.names();
	case PolicyFamily::TargetSession: return _impl->targets.names();
	case PolicyFamily::Eviction:      return _impl->evictions.names();
	case PolicyFamily::Retry:         return _impl->retries.names();
	case PolicyFamily::Topology:      break;
	}
	return _impl->topologies.names();
}


std::vector<std::string> RoutingContext::searchPath(const std::vector<std::string>& pluginPath) const
{
	return _impl->searchPath(pluginPath);
}


void RoutingContext::setSessionFactory(SessionFactory::Ptr factory)
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	_impl->factory = std::move(factory);
}


SessionFactory::Ptr RoutingContext::sessionFactory() const
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	if (!_impl->factory) _impl->factory = makeStandardSessionFactory();
	return _impl->factory;
}


HostStateRegistry& RoutingContext::hostStates() const
{
	return _impl->hostStates;
}


RoutingContext::HostState RoutingContext::hostState(const BlueTuskHostEndpoint& endpoint) const
{
	const HostStateRegistry& states = _impl->hostStates;
	const HostStateRegistry::Entry entry = states.entry(endpoint);
	return HostState{entry.state, entry.role, entry.learnedAt, entry.roleLearnedAt, entry.reason,
		states.primaryTimeline(endpoint), states.isWatched(endpoint)};
}


Detail::HealthMonitor& RoutingContext::healthMonitor() const
{
	return _impl->monitor;
}

} // namespace BlueTusk
