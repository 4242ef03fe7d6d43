//
// DataSourceSubsystem.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "BlueTusk/PolicyCallScope.h"
#include "BlueTusk/RetryPolicy.h"
#include "BlueTusk/TargetSessionPolicy.h"
#include "Poco/AutoPtr.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include "Poco/String.h"
#include "Poco/StringTokenizer.h"
#include "Poco/Util/Application.h"
#include <functional>

namespace BlueTusk {

const std::string DataSourceSubsystem::PLUGINS_PROPERTY = "bluetusk.plugins";
const std::string DataSourceSubsystem::DATA_SOURCES_PROPERTY = "bluetusk.dataSources";

namespace {

// Properties under bluetusk.dataSources.<name> that are not connection-string keywords.
const char* const CONNECTION_STRING_KEY = "connectionString";
const char* const WARM_UP_KEY = "warmUp";
const char* const POLICY_KEY = "policy";


Poco::Logger& subsystemLogger()
{
	return Poco::Logger::get("BlueTusk.Routing");
}


std::string prefixOf(const std::string& name)
{
	return DataSourceSubsystem::DATA_SOURCES_PROPERTY + "." + name;
}


std::vector<std::string> pluginList(const Poco::Util::AbstractConfiguration& config)
{
	std::vector<std::string> plugins;
	if (!config.hasProperty(DataSourceSubsystem::PLUGINS_PROPERTY)) return plugins;
	Poco::StringTokenizer tokens(config.getString(DataSourceSubsystem::PLUGINS_PROPERTY), ",",
		Poco::StringTokenizer::TOK_TRIM | Poco::StringTokenizer::TOK_IGNORE_EMPTY);
	plugins.assign(tokens.begin(), tokens.end());
	return plugins;
}


std::string joined(const std::vector<std::string>& items)
{
	std::string text;
	for (const auto& item: items)
	{
		if (!text.empty()) text += ", ";
		text += item;
	}
	return text;
}


struct PolicySources
	/// Which property decided the data source's Host Order, Eviction Policy, Target Session Attributes and
	/// Plugin Path, for error messages.
{
	std::string pluginPath;
	std::string hostOrder;
	std::string eviction;
	std::string target;
};


ConnectionSettings buildSettings(const Poco::Util::AbstractConfiguration& config, const std::string& name, PolicySources& sources)
{
	const std::string prefix = prefixOf(name);
	const std::string stringProperty = prefix + "." + CONNECTION_STRING_KEY;
	if (!config.hasProperty(stringProperty))
	{
		throw Poco::NotFoundException(stringProperty + " is missing: data source \"" + name +
			"\" needs a connection string (e.g. " + stringProperty + " = Host=db-a,db-b;Username=app)");
	}
	ConnectionSettings settings;
	try
	{
		settings = ConnectionSettings::parse(config.getString(stringProperty));
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		throw BlueTuskConnectionStringException(stringProperty + ": " + exc.message());
	}
	sources.pluginPath = stringProperty;
	sources.hostOrder = stringProperty;
	sources.eviction = stringProperty;
	sources.target = stringProperty;

	Poco::Util::AbstractConfiguration::Keys keys;
	config.keys(prefix, keys);
	for (const auto& key: keys)
	{
		if (key == CONNECTION_STRING_KEY || key == WARM_UP_KEY || key == POLICY_KEY) continue;
		const std::string property = prefix + "." + key;
		if (!config.hasProperty(property))
		{
			throw BlueTuskConnectionStringException(property + ": not a connection-string keyword (only " +
				POLICY_KEY + ".* may have sub-properties)");
		}
		const std::string hostOrder = settings.hostOrder;
		const std::string eviction = settings.evictionPolicy;
		const std::string target = settings.targetSessionPolicy;
		const std::vector<std::string> pluginPath = settings.pluginPath;
		try
		{
			// ConnectionSettings::set compares case-insensitively and ignores the spaces of canonical keywords,
			// so camelCase ("maximumPoolSize") and libpq names ("target_session_attrs") both work.
			settings.set(key, config.getString(property));
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			throw BlueTuskConnectionStringException(property + ": " + exc.message());
		}
		if (settings.hostOrder != hostOrder) sources.hostOrder = property;
		if (settings.evictionPolicy != eviction) sources.eviction = property;
		if (settings.targetSessionPolicy != target) sources.target = property;
		if (settings.pluginPath != pluginPath) sources.pluginPath = property;
	}
	try
	{
		settings.validate();
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		throw BlueTuskConnectionStringException(prefix + ".*: " + exc.message());
	}
	return settings;
}

} // namespace


DataSourceSubsystem::DataSourceSubsystem():
	_connector(RoutingContext::defaultContext())
{
}


DataSourceSubsystem::DataSourceSubsystem(const RoutingContext& connector):
	_connector(connector)
{
}


DataSourceSubsystem::~DataSourceSubsystem()
{
	close();
}


const char* DataSourceSubsystem::name() const
{
	return "BlueTusk.DataSources";
}


void DataSourceSubsystem::initialize(Poco::Util::Application& app)
{
	open(app.config());
}


void DataSourceSubsystem::uninitialize()
{
	close();
}


void DataSourceSubsystem::open(const Poco::Util::AbstractConfiguration& config)
{
	const std::vector<std::string> before = names();   // a re-open: these are closed now
	close();
	std::map<std::string, BlueTuskDataSource::Ptr> created;
	try
	{
		std::vector<std::string> plugins;
		loadPlugins(config, _connector, plugins, true);

		Poco::Util::AbstractConfiguration::Keys names;
		config.keys(DATA_SOURCES_PROPERTY, names);
		if (names.empty())
		{
			subsystemLogger().warning("no data sources configured (no %s.<name>.connectionString properties)", DATA_SOURCES_PROPERTY);
		}
		for (const auto& name: names)
		{
			created[name] = createDataSource(config, name, plugins);
		}
	}
	catch (Poco::Exception& exc)
	{
		for (auto& entry: created) entry.second->drain();
		// A failed re-open leaves no data source until open() succeeds: said at error, with what to do (a
		// plugin library replaced on disk, e.g. by a rename-deploy, cannot be loaded again by this process:
		// doc/plugin-loading.md, "Replacing a plugin library").
		if (!before.empty())
		{
			std::string closed;
			for (const std::string& name: before) closed += (closed.empty() ? "" : ", ") + name;
			subsystemLogger().error("re-open failed: no data source is open now (closed for the re-open: %s): %s%s", closed, exc.displayText(),
				exc.displayText().find("changed on disk") != std::string::npos ?
				std::string("; a plugin library replaced while loaded is loaded again only by a new process: restart it") : std::string());
		}
		throw;
	}
	catch (...)
	{
		for (auto& entry: created) entry.second->drain();
		throw;
	}

	std::lock_guard<std::mutex> lock(_mutex);
	_dataSources = std::move(created);
	_open = true;
}


void DataSourceSubsystem::loadPlugins(const Poco::Util::AbstractConfiguration& config, RoutingContext& connector, std::vector<std::string>& loaded, bool announce)
{
	for (const auto& plugin: pluginList(config))
	{
		try
		{
			connector.loadPlugin(plugin);
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException(PLUGINS_PROPERTY + ": cannot load \"" + plugin + "\": " + exc.message());
		}
		loaded.push_back(plugin);
		subsystemLogger().log(Poco::Message(subsystemLogger().name(), PLUGINS_PROPERTY + ": loaded plugin " + plugin,
			announce ? Poco::Message::PRIO_INFORMATION : Poco::Message::PRIO_DEBUG));
	}
}


BlueTuskDataSource::Ptr DataSourceSubsystem::createDataSource(const Poco::Util::AbstractConfiguration& config,
	const std::string& name, const std::vector<std::string>& plugins)
{
	const std::string prefix = prefixOf(name);
	PolicySources sources;
	ConnectionSettings settings = buildSettings(config, name, sources);
	// Everything said below about these settings passes their redactor: a policy name, a plugin's
	// message or a log line may hold a password that malformed input put there (doc/reliability.md,
	// finding 1).
	const SecretRedactor redactor = settings.redactor();
	try
	{
		// A data source with policy properties gets its own connector, hence its own policy instance.
		RoutingContext connector = _connector;
		const std::string policyPrefix = prefix + "." + POLICY_KEY;
		Poco::Util::AbstractConfiguration::Keys policyKeys;
		config.keys(policyPrefix, policyKeys);
		if (!policyKeys.empty())
		{
			connector = RoutingContext(_connector.sessionFactory());
			std::vector<std::string> ignored;
			loadPlugins(config, connector, ignored, false);
		}
		if (!settings.pluginPath.empty())
		{
			try
			{
				connector.loadStandardPlugins(settings.pluginPath);
			}
			catch (Poco::Exception& exc)
			{
				throw BlueTuskPluginException(sources.pluginPath + " (Plugin Path): " + exc.message());
			}
		}
		else
		{
			connector.loadStandardPlugins(); // every standard plugin, or an exception naming the paths searched
		}

		HostOrderPolicy::Ptr hostOrder;
		try
		{
			hostOrder = connector.hostOrderPolicy(settings.hostOrder);
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException(sources.hostOrder + ": " + exc.message() +
				(plugins.empty() ? std::string() : " (site plugins loaded from " + PLUGINS_PROPERTY + ": " + joined(plugins) + ")"));
		}
		EvictionPolicy::Ptr eviction;
		try
		{
			eviction = connector.evictionPolicy(settings.evictionPolicy);
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException(sources.eviction + ": " + exc.message());
		}
		TargetSessionPolicy::Ptr target;
		try
		{
			target = settings.targetSessionPolicy.empty() ? connector.targetSessionPolicy(settings.targetSessionAttributes)
				: connector.targetSessionPolicy(settings.targetSessionPolicy);   // a site target (doc/plugins.md)
		}
		catch (Poco::Exception& exc)
		{
			throw BlueTuskPluginException(sources.target + ": " + exc.message() +
				(plugins.empty() ? std::string() : " (site plugins loaded from " + PLUGINS_PROPERTY + ": " + joined(plugins) + ")"));
		}
		if (!policyKeys.empty())
		{
			// Every family of this data source's own connector gets the same view (doc/plugins.md, Configuration).
			Poco::AutoPtr<Poco::Util::AbstractConfiguration> view(
				const_cast<Poco::Util::AbstractConfiguration&>(config).createView(policyPrefix));
			auto configure = [&](const std::string& family, const std::string& policy, const void* object, const std::function<void()>& call)
			{
				try
				{
					call();
				}
				catch (BlueTuskPluginException& exc)
				{
					// A failure already named (the guard of a site target-session policy turns what its
					// configure() threw into this, logged): not a refusal.
					throw BlueTuskPluginException(redactor.redact(policyPrefix + ".*: " + exc.message()));
				}
				catch (Poco::Exception& exc)
				{
					throw BlueTuskPluginException(policyPrefix + ".*: " + family + " policy \"" + policy + "\" rejected its configuration: " + exc.message());
				}
				catch (...)
				{
					// Not a refusal but a failure (a std::exception, an int): named like every policy failure
					// (doc/plugin-calls.md, "Where and how policies are called"), logged once.
					const std::string message = policyPrefix + ".*: " + describePolicy(family, [&policy]() { return policy; }, object) +
						" failed in configure(): " + describeThrown(std::current_exception());
					subsystemLogger().error(redactor.redact(message));
					throw BlueTuskPluginException(redactor.redact(message));
				}
				subsystemLogger().information("%s: %s policy %s configured with %s", prefix, family, redactor.redact(policy), policyPrefix + ".*");
			};
			// A guarded site policy's failure inside configure() is logged and thrown with this data source's
			// own redactor (its password), as at the data source's creation, not the default one.
			const auto scoped = [&](const std::function<void()>& call) { return [&redactor, &settings, call]() {
				PolicyCallScope::run(redactor, settings.connectTimeout, call); }; };
			configure("host order", settings.hostOrder, hostOrder.get(), scoped([&] { hostOrder->configure(*view); }));
			configure("target session", target->name(), target.get(), scoped([&] { target->configure(*view); }));
			configure("eviction", settings.evictionPolicy, eviction.get(), scoped([&] { eviction->configure(*view); }));
			for (const std::string& retry: connector.policyNames(PolicyFamily::Retry))
			{
				RetryPolicy::Ptr policy;
				try
				{
					policy = connector.retryPolicy(retry);
				}
				catch (Poco::Exception& exc)
				{
					// Every retry policy loaded is configured, used or not: its failure names the data source.
					throw BlueTuskPluginException(redactor.redact(policyPrefix + ".*: " + exc.message()));
				}
				configure("retry", retry, policy.get(), scoped([&] { policy->configure(*view); }));
			}
		}

		BlueTuskDataSource::Ptr dataSource;
		try
		{
			dataSource = BlueTuskDataSource::create(settings, connector);
		}
		catch (BlueTuskPluginException& exc)
		{
			throw BlueTuskPluginException(prefix + ": cannot create data source: " + exc.message());
		}
		if (subsystemLogger().debug()) subsystemLogger().debug("data source \"%s\" created with Host Order=%s, Target Session Attributes=%s", name, redactor.redact(settings.hostOrder),
			settings.targetSessionPolicy.empty() ? toString(settings.targetSessionAttributes) : redactor.redact(settings.targetSessionPolicy));

		if (config.getBool(prefix + "." + WARM_UP_KEY, true) && settings.minPoolSize > 0)
		{
			dataSource->warmUp();
			PoolStatistics stats = dataSource->getPoolStatistics();
			subsystemLogger().information("data source \"%s\" warmed up: %d idle of %d wanted (%s)", name, stats.idle,
				settings.minPoolSize * static_cast<int>(dataSource->getHostPoolStatistics().size()), stats.toString());
		}
		return dataSource;
	}
	catch (...)
	{
		redactor.rethrowCurrent();
	}
}


void DataSourceSubsystem::close()
{
	std::map<std::string, BlueTuskDataSource::Ptr> dataSources;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		dataSources.swap(_dataSources);
		_open = false;
	}
	for (auto& entry: dataSources)
	{
		try
		{
			PoolStatistics stats = entry.second->getPoolStatistics();
			entry.second->drain();
			subsystemLogger().information("data source \"%s\" drained (%s)", entry.first, stats.toString());
		}
		catch (Poco::Exception& exc)
		{
			subsystemLogger().warning("data source \"%s\": drain failed: %s", entry.first, exc.displayText());
		}
		catch (...)
		{
		}
	}
}


bool DataSourceSubsystem::isOpen() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _open;
}


BlueTuskDataSource::Ptr DataSourceSubsystem::dataSource(const std::string& name) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _dataSources.find(name);
	if (it == _dataSources.end())
	{
		std::vector<std::string> available;
		for (const auto& entry: _dataSources) available.push_back(entry.first);
		throw Poco::NotFoundException("no data source \"" + name + "\" (configured: " +
			(available.empty() ? std::string("none") : joined(available)) + "; define " + prefixOf(name) + ".connectionString)");
	}
	return it->second;
}


bool DataSourceSubsystem::has(const std::string& name) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _dataSources.count(name) > 0;
}


std::vector<std::string> DataSourceSubsystem::names() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::vector<std::string> result;
	for (const auto& entry: _dataSources) result.push_back(entry.first);
	return result;
}


RoutingContext& DataSourceSubsystem::routingContext()
{
	return _connector;
}


ConnectionSettings DataSourceSubsystem::settingsFor(const Poco::Util::AbstractConfiguration& config, const std::string& name)
{
	PolicySources sources;
	return buildSettings(config, name, sources);
}

} // namespace BlueTusk
