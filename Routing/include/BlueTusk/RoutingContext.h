//
// RoutingContext.h
//
// Library: BlueTusk/Routing
//
// The routing context: the policy registries (one per family), the plugin loading, the session factory and
// the learned host states shared by every open that goes through it (doc/routing.md and doc/plugins.md).
//

#ifndef BlueTusk_RoutingContext_INCLUDED
#define BlueTusk_RoutingContext_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/RetryPolicy.h"
#include "BlueTusk/Session.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "BlueTusk/TargetSessionPolicy.h"
#include "BlueTusk/TopologySource.h"
#include "Poco/Timestamp.h"
#include "Poco/Types.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

class HostStateRegistry;

namespace Detail {
class HealthMonitor;
struct RoutingContextAccess;
}

enum class PolicyFamily
	/// The policy families of doc/plugins.md.
{
	HostOrder,      /// HostOrderPolicy (Routing): library BlueTuskHostOrderPlugin
	TargetSession,  /// TargetSessionPolicy (Routing): library BlueTuskTargetSessionPlugin
	Eviction,       /// EvictionPolicy (Pooling): library BlueTuskEvictionPlugin
	Retry,          /// RetryPolicy (Routing): library BlueTuskRetryPlugin
	Topology        /// TopologySource (Routing): library BlueTuskTopologyPlugin (doc/high-availability.md)
};

BlueTusk_Routing_API std::string toString(PolicyFamily family);
	/// "host order", "target session", "eviction", "retry", "topology".


class BlueTusk_Routing_API RoutingContext
	/// Owns one plugin registry per policy family, the SessionFactory that opens physical sessions, and the
	/// learned host states shared by every BlueTuskConnection::open() and every BlueTuskDataSource created
	/// through it (read with hostState()).
	///
	/// Plugins. On first use of a registry the five standard plugin libraries (BlueTuskHostOrderPlugin,
	/// BlueTuskTargetSessionPlugin, BlueTuskEvictionPlugin, BlueTuskRetryPlugin, BlueTuskTopologyPlugin) are
	/// looked up along the plugin search path (pluginSearchPath()): bluetusk/plugins beside the loaded BlueTusk
	/// libraries first (the build tree's or the installed tree's own plugins), then the directories or files
	/// of the connection string's "Plugin Path", then the BLUETUSK_PLUGIN_PATH environment variable, then the
	/// configured install directory. Creating a data source or opening a connection calls
	/// loadStandardPlugins(), which fails when a standard library is missing; a bare lookup of a name whose
	/// library is missing fails with a BlueTuskPluginException saying where it looked. loadPlugin() adds a
	/// site library; its manifest decides which family it extends.
	///
	/// A RoutingContext is a handle: copies share the same registries, factory and host states; the shared
	/// state lives as long as any copy, data source, connection or policy object obtained from it.
	/// Policy objects are created once per name and shared (policies are thread-safe by contract).
	///
	/// Health monitor: the data sources created through a routing context share one background health monitor
	/// (one thread per watched endpoint, doc/high-availability.md), started when the first data source
	/// with Health Check Interval > 0 registers and stopped when the last one is destroyed; direct opens
	/// (BlueTuskConnection::open()) never start it.
	///
	/// Thread-safety: every member function is thread-safe.
	///
	/// Formerly called Connector (a name that misled beside Poco::Data's connectors): BlueTusk/Connector.h
	/// keeps that name as a deprecated alias.
{
public:
	RoutingContext();
		/// A routing context with the standard search path and the real session factory (ProtocolSessionFactory).

	explicit RoutingContext(SessionFactory::Ptr factory);
		/// A routing context whose physical sessions come from factory (tests use a fake).

	RoutingContext(const RoutingContext& other);
	RoutingContext& operator = (const RoutingContext& other);
	~RoutingContext();

	static RoutingContext& defaultContext();
		/// The process-wide routing context used by BlueTuskConnection::open(connectionString) and
		/// BlueTuskDataSource::create(connectionString). Created on first use. Thread-safe.

	[[deprecated("use RoutingContext::defaultContext()")]] static RoutingContext& defaultConnector()
		/// The old name of defaultContext().
	{
		return defaultContext();
	}

	void loadStandardPlugins(const std::vector<std::string>& pluginPath = {});
		/// Loads the standard libraries not yet loaded along searchPath(pluginPath) (pluginPath: the "Plugin
		/// Path" setting, directories or library files; its directories' site libraries are loaded too).
		/// BlueTuskDataSource creation, BlueTuskConnection::open() and DataSourceSubsystem call it.
		/// Throws BlueTuskPluginException when a standard library is not found or cannot be loaded, naming
		/// each such library and every path searched (standardPluginsMissingMessage()), when a pluginPath
		/// entry does not exist (naming it), or when a site library of a file or directory entry cannot be
		/// loaded (see loadPlugin()). The first use of a registry loads the standard libraries the same way
		/// without throwing for a missing one.

	void loadPlugin(const std::string& path);
		/// Loads a site plugin library (a file path, or a base name found along the search path) into the
		/// family its manifest is for, from a private copy (PluginRegistry.h, openPluginImage()). Loading the
		/// same unchanged library twice is harmless. Throws BlueTuskPluginException with the real cause: it
		/// cannot be loaded, has no manifest or one for no policy family, declares no or another plugin ABI
		/// version, changed on disk since it was loaded, or provides a reserved standard name, a name twice,
		/// or a name another library provides (naming the family, the name and both libraries).

	HostOrderPolicy::Ptr hostOrderPolicy(const std::string& name);
		/// The host-order policy called name ("sequential", "random", "parallel", or a plugin's).
		/// Throws BlueTuskPluginException listing the available names when no loaded plugin provides it.

	TargetSessionPolicy::Ptr targetSessionPolicy(TargetSessionAttributes target);
		/// The policy for a target ("prefer-standby" etc.). Throws BlueTuskPluginException like above.

	TargetSessionPolicy::Ptr targetSessionPolicy(const std::string& name);
		/// The target-session policy called name (a standard target or a plugin's).

	EvictionPolicy::Ptr evictionPolicy(const std::string& name);
		/// The eviction policy called name ("standard", or a plugin's).

	RetryPolicy::Ptr retryPolicy(const std::string& name);
		/// The retry policy called name ("default", "no-retry", "read-only", or a plugin's), for
		/// BlueTuskDataSource::runInTransaction().

	HostOrderPolicy::Ptr createHostOrderPolicy(const std::string& name);
		/// A new, unshared instance (for HostOrderPolicy::configure() with per-data-source properties).

	TopologySource::Ptr createTopologySource(const std::string& name);
		/// A new, unshared topology source called name ("patroni", "pg_auto_failover", or a plugin's), not yet
		/// configured: each data source with a Topology Source owns its own. Throws BlueTuskPluginException
		/// listing the available names when no loaded plugin provides it.

	std::vector<std::string> policyNames(PolicyFamily family);
		/// The names the loaded plugins of family provide, sorted.

	std::vector<std::string> searchPath(const std::vector<std::string>& pluginPath = {}) const;
		/// The plugin search path that loadStandardPlugins(pluginPath) uses, in order.

	void setSessionFactory(SessionFactory::Ptr factory);
		/// Replaces the factory used for connections and data sources created afterwards.

	SessionFactory::Ptr sessionFactory() const;
		/// The factory physical sessions are opened with.

	struct HostState
		/// What the opens through this routing context have learned about one endpoint (doc/routing.md,
		/// step 2), as hostState() copies it.
	{
		HostCandidate::State state = HostCandidate::UNKNOWN; /// UP, DOWN, or UNKNOWN (nothing learned yet)
		ServerRole role = ServerRole::Unknown;  /// the role last seen (kept across a DOWN)
		Poco::Timestamp learnedAt;              /// when state was last set
		Poco::Timestamp roleLearnedAt;          /// when role was last set
		std::string reason;                     /// why DOWN ("refused"), else ""
		Poco::UInt32 primaryTimeline = 0;       /// the timeline it last worked on as a primary (the
		                                        /// split-brain guard, doc/high-availability.md); 0: none
		bool watched = false;                   /// the health monitor watches it now
	};

	HostState hostState(const BlueTuskHostEndpoint& endpoint) const;
		/// A copy of the learned state of endpoint (down / role with their timestamps), shared by all opens
		/// through this routing context and its data sources. The state is as learned, however old: the
		/// router trusts it for Host Recheck Seconds only. Thread-safe; never throws.

private:
	HostStateRegistry& hostStates() const;
		/// The learned host states themselves (Routing/src/router/HostStateRegistry.h), for the router,
		/// the data sources and the project's tests (Detail::RoutingContextAccess).

	Detail::HealthMonitor& healthMonitor() const;
		/// The background health monitor of this routing context's data sources (doc/high-availability.md): its
		/// threads run while a data source with Health Check Interval > 0 is registered with it.

	struct Impl;
	std::shared_ptr<Impl> _impl;

	friend class BlueTuskDataSource;
	friend class BlueTuskConnection;
	friend struct Detail::RoutingContextAccess;
};

} // namespace BlueTusk

#endif // BlueTusk_RoutingContext_INCLUDED
