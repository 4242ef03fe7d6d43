//
// PreferredHostsPolicy.h
//
// Sample plugin: BlueTuskPreferredHostsPlugin (samples/CustomPolicy, doc/samples.md)
//
// A site's own host-order policy, built against BlueTusk's public headers only.
//

#ifndef BlueTusk_Samples_PreferredHostsPolicy_INCLUDED
#define BlueTusk_Samples_PreferredHostsPolicy_INCLUDED

#include "BlueTusk/HostOrderPolicy.h"
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Samples {

class PreferredHostsPolicy: public HostOrderPolicy
	/// "preferred-hosts": the hosts listed in the "preferredHosts" property come first, in the order that
	/// property lists them; then every other host in the order the connection string writes them. One
	/// attempt at a time (like "sequential"). With no preferredHosts it is exactly "sequential".
	///
	/// An entry of preferredHosts is a host as written in the connection string ("127.0.0.3", "db-c") and
	/// matches every port of that host, or "host:port" ("127.0.0.3:55432", "[::1]:5432") for one endpoint.
	///
	/// Selected by configuration alone (DataSourceSubsystem):
	///     bluetusk.plugins = /path/to/libBlueTuskPreferredHostsPlugin.so
	///     bluetusk.dataSources.main.hostOrder = preferred-hosts
	///     bluetusk.dataSources.main.policy.preferredHosts = 127.0.0.3
	///
	/// Thread-safe: configure() and plan() may run concurrently (the list is guarded by a mutex).
{
public:
	PreferredHostsPolicy();
	~PreferredHostsPolicy() override;

	std::string name() const override;
		/// "preferred-hosts".

	HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const override;
		/// Preferred endpoints first (property order), then the others (written order); concurrency 1.

	void configure(const Poco::Util::AbstractConfiguration& config) override;
		/// Reads "preferredHosts" (comma-separated; empty or absent: no preference).

	std::vector<std::string> preferredHosts() const;
		/// The configured list.

private:
	static bool matches(const std::string& entry, const BlueTuskHostEndpoint& endpoint);

	mutable std::mutex _mutex;
	std::vector<std::string> _preferred;
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_PreferredHostsPolicy_INCLUDED
