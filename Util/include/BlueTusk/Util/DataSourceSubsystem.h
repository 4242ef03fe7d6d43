//
// DataSourceSubsystem.h
//
// Library: BlueTusk/Util
//
// The Poco::Util subsystem that creates an application's data sources from its configuration
// (doc/samples.md (the subsystem)).
//

#ifndef BlueTusk_Util_DataSourceSubsystem_INCLUDED
#define BlueTusk_Util_DataSourceSubsystem_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/Util/AbstractConfiguration.h"
#include "Poco/Util/Subsystem.h"
#include <map>
#include <mutex>
#include <string>
#include <vector>

#define BlueTusk_Util_API BlueTusk_API_EXPORT

namespace BlueTusk {

class BlueTusk_Util_API DataSourceSubsystem: public Poco::Util::Subsystem
	/// Creates the BlueTuskDataSource objects an application's configuration describes, keeps them for the
	/// application's life and drains them at shutdown. Register it the Poco way before the application
	/// initializes:
	///
	///     MyApp::MyApp() { addSubsystem(new BlueTusk::DataSourceSubsystem); }
	///     ...
	///     auto orders = Poco::Util::Application::instance().getSubsystem<BlueTusk::DataSourceSubsystem>().dataSource("orders");
	///
	/// Properties (doc/samples.md has the complete reference):
	///
	///     bluetusk.plugins = /opt/site/libSitePolicies.so, libOther     site plugin libraries (comma-separated:
	///                                                                  paths, or base names searched along the
	///                                                                  plugin search path), loaded first
	///     bluetusk.dataSources.<name>.connectionString = Host=a,b;Username=app;...   (required)
	///     bluetusk.dataSources.<name>.<keyword> = value   any connection-string keyword, overriding the string:
	///                                                  camelCase (hostOrder, maximumPoolSize,
	///                                                  targetSessionAttributes), the libpq name
	///                                                  (target_session_attrs) or the canonical keyword without
	///                                                  spaces (HostOrder); all compare case-insensitively
	///     bluetusk.dataSources.<name>.warmUp = true       open Minimum Pool Size per endpoint during initialize
	///                                                  (default true; failures are logged, not fatal)
	///     bluetusk.dataSources.<name>.policy.<key> = value  handed as "<key> = value" to configure() of the
	///                                                  data source's host-order, target-session (standard or
	///                                                  site) and eviction policies and of every retry policy
	///                                                  loaded, once, before the data source is created
	///                                                  (doc/plugins.md, Configuration)
	///
	/// A data source that has policy.* properties gets a policy instance of its own: it is created through a
	/// RoutingContext of its own (same session factory, same site plugins), because a RoutingContext shares one policy
	/// instance per name. Such a data source therefore learns host states on its own; the others share the
	/// subsystem's connector.
	///
	/// Any mistake in the configuration makes initialize() throw, naming the property: a data source without
	/// connectionString (Poco::NotFoundException), an invalid connection string or override
	/// (BlueTuskConnectionStringException), an unknown policy name or an unreadable plugin
	/// (BlueTuskPluginException). Data sources created before the failure are drained and released.
	///
	/// Logging: Poco::Logger "BlueTusk.Routing" (information: plugins loaded, data sources created, warmed up,
	/// drained, with connection strings shown as Password=***).
	///
	/// Thread-safety: dataSource(), names() and has() are thread-safe; open()/close() (initialize and
	/// uninitialize) are called by one thread, as Poco::Util::Application does.
{
public:
	DataSourceSubsystem();
		/// A subsystem using RoutingContext::defaultContext(), so plugins it loads are visible to
		/// BlueTuskConnection::open(connectionString) as well.

	explicit DataSourceSubsystem(const RoutingContext& connector);
		/// A subsystem whose data sources are created through connector (tests pass one with a fake
		/// SessionFactory).

	~DataSourceSubsystem();
		/// close().

	const char* name() const;
		/// "BlueTusk.DataSources".

	void open(const Poco::Util::AbstractConfiguration& config);
		/// What initialize(app) does with app.config(), usable without a Poco::Util::Application: loads
		/// bluetusk.plugins, creates every data source under bluetusk.dataSources, warms them up. Throws as
		/// described above; after a throw nothing stays open. Calling open() while open closes first.

	void close();
		/// What uninitialize() does: drains every data source (idle sessions close now, leased ones when they
		/// return) and releases them. Never throws; safe to call twice.

	bool isOpen() const;
		/// True between a successful open() and close().

	BlueTuskDataSource::Ptr dataSource(const std::string& name) const;
		/// The data source configured under bluetusk.dataSources.<name>. Throws Poco::NotFoundException
		/// listing the configured names.

	bool has(const std::string& name) const;
		/// Whether a data source called name is configured.

	std::vector<std::string> names() const;
		/// The configured data source names, sorted.

	RoutingContext& routingContext();
		/// The routing context the plugins were loaded into and the data sources without policy.* properties
		/// use.

	[[deprecated("use routingContext()")]] RoutingContext& connector()
		/// The old name of routingContext() (from when RoutingContext was called Connector).
	{
		return routingContext();
	}

	static ConnectionSettings settingsFor(const Poco::Util::AbstractConfiguration& config, const std::string& name);
		/// The settings of data source name: bluetusk.dataSources.<name>.connectionString parsed, then each
		/// keyword property applied with ConnectionSettings::set(), then validated. Throws
		/// Poco::NotFoundException or BlueTuskConnectionStringException, the message beginning
		/// with the property at fault.

	static const std::string PLUGINS_PROPERTY;      /// "bluetusk.plugins"
	static const std::string DATA_SOURCES_PROPERTY; /// "bluetusk.dataSources"

protected:
	void initialize(Poco::Util::Application& app);
		/// open(app.config()).

	void uninitialize();
		/// close().

private:
	DataSourceSubsystem(const DataSourceSubsystem&) = delete;
	DataSourceSubsystem& operator = (const DataSourceSubsystem&) = delete;

	void loadPlugins(const Poco::Util::AbstractConfiguration& config, RoutingContext& connector, std::vector<std::string>& loaded, bool announce);
	BlueTuskDataSource::Ptr createDataSource(const Poco::Util::AbstractConfiguration& config, const std::string& name,
		const std::vector<std::string>& plugins);

	RoutingContext _connector;
	mutable std::mutex _mutex;
	std::map<std::string, BlueTuskDataSource::Ptr> _dataSources;
	bool _open = false;
};

} // namespace BlueTusk

#endif // BlueTusk_Util_DataSourceSubsystem_INCLUDED
