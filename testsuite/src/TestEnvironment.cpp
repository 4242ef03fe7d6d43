//
// TestEnvironment.cpp
//

#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/NumberParser.h"
#include <cstdlib>

namespace BlueTusk {
namespace Test {

std::string ClusterInfo::connectionString(const std::string& hostList, const std::string& extra) const
{
	std::string text = "Host=" + hostList + ";Port=" + std::to_string(port) + ";Username=" + user +
		";Password=" + password + ";Database=" + database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}


std::string ClusterInfo::socketDir(int node) const
{
	return clusterDir + "/node" + std::to_string(node) + "/socket";
}


std::string ClusterInfo::rootCertificate() const
{
	return clusterDir + "/certs/root.crt";
}


int ClusterInfo::runClusterCommand(const std::string& arguments) const
{
	std::string command = "BLUETUSK_CLUSTER_PORT=" + std::to_string(port) + " BLUETUSK_CLUSTER_DIR='" + clusterDir +
		"' '" + scriptsDir + "/cluster' " + arguments + " >/dev/null 2>&1";
	int status = std::system(command.c_str());
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


const ClusterInfo& cluster()
{
	static const ClusterInfo info = []
	{
		ClusterInfo c;
		c.hosts = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
		c.port = Poco::NumberParser::parse(Poco::Environment::get("BLUETUSK_TEST_PORT", "55432"));
		c.user = Poco::Environment::get("BLUETUSK_TEST_USER", c.user);
		c.password = Poco::Environment::get("BLUETUSK_TEST_PASSWORD", c.password);
		c.database = Poco::Environment::get("BLUETUSK_TEST_DATABASE", c.database);
		c.clusterDir = Poco::Environment::get("BLUETUSK_CLUSTER_DIR", "/tmp/bluetusk-cluster-" + std::to_string(c.port));
		c.scriptsDir = std::string(BLUETUSK_SOURCE_DIR) + "/scripts";
		return c;
	}();
	return info;
}

} } // namespace BlueTusk::Test
