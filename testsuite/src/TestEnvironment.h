//
// TestEnvironment.h
//
// Where the integration tests find the local cluster started by scripts/cluster, and small helpers.
//

#ifndef BlueTusk_TestEnvironment_INCLUDED
#define BlueTusk_TestEnvironment_INCLUDED

#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

struct ClusterInfo
	/// Defaults match scripts/cluster; each may be overridden with an environment variable:
	/// BLUETUSK_TEST_PORT, BLUETUSK_TEST_USER, BLUETUSK_TEST_PASSWORD, BLUETUSK_TEST_DATABASE,
	/// BLUETUSK_CLUSTER_DIR.
{
	std::vector<std::string> hosts;  /// 127.0.0.1 (node 1, primary at start), 127.0.0.2, 127.0.0.3
	int port = 55432;
	std::string user = "bluetusk";
	std::string password = "tusk-test-secret";
	std::string database = "bluetusk";
	std::string clusterDir;          /// data, sockets, certificates: <clusterDir>/node1/...
	std::string scriptsDir;          /// <source>/scripts

	std::string connectionString(const std::string& hostList, const std::string& extra = "") const;
		/// "Host=<hostList>;Port=<port>;Username=..;Password=..;Database=..;<extra>"

	std::string socketDir(int node) const;  /// <clusterDir>/node<N>/socket
	std::string rootCertificate() const;    /// <clusterDir>/certs/root.crt (the self-signed certificate)

	int runClusterCommand(const std::string& arguments) const;
		/// Runs "<scriptsDir>/cluster <arguments>" (stop-node 2, promote 3, ...) and returns its exit status.
};

const ClusterInfo& cluster();

} } // namespace BlueTusk::Test

#endif // BlueTusk_TestEnvironment_INCLUDED
