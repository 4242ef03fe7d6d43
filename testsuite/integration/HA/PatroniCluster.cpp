//
// PatroniCluster.cpp
//

#include "PatroniCluster.h"
#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/NumberParser.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstdio>
#include <sys/wait.h>

namespace BlueTusk {
namespace Test {

const PatroniCluster& PatroniCluster::instance()
{
	static const PatroniCluster cluster = []
	{
		PatroniCluster c;
		c.port = Poco::NumberParser::parse(Poco::Environment::get("BLUETUSK_PATRONI_PORT", "55462"));
		return c;
	}();
	return cluster;
}


std::string PatroniCluster::host(int node) const
{
	return "127.0.0." + std::to_string(node);
}


std::string PatroniCluster::connectionString(const std::string& extra) const
{
	const ClusterInfo& info = cluster();
	std::string text = "Host=" + host(1) + "," + host(2) + "," + host(3) + ";Port=" + std::to_string(port) +
		";Username=" + info.user + ";Password=" + info.password + ";Database=" + info.database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}


std::string PatroniCluster::nodeConnectionString(int node, const std::string& extra) const
{
	const ClusterInfo& info = cluster();
	std::string text = "Host=" + host(node) + ";Port=" + std::to_string(port) + ";Username=" + info.user +
		";Password=" + info.password + ";Database=" + info.database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}


int PatroniCluster::run(const std::string& arguments, std::string* output) const
{
	const std::string command = "BLUETUSK_PATRONI_PORT=" + std::to_string(port) + " '" + cluster().scriptsDir +
		"/patroni' " + arguments + (output ? "" : " >/dev/null");
	FILE* pipe = ::popen(command.c_str(), "r");
	if (!pipe) return -1;
	std::string text;
	char buffer[512];
	for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) text.append(buffer, n);
	const int status = ::pclose(pipe);
	if (output) *output = text;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


int PatroniCluster::leader() const
{
	std::string text;
	if (run("leader 2>/dev/null", &text) != 0) return 0;
	for (int node = 1; node <= 3; ++node)
	{
		if (text.rfind(host(node) + ":", 0) == 0) return node;
	}
	return 0;
}


void PatroniCluster::waitHealthy(int seconds) const
{
	std::string text;
	const int status = run("wait " + std::to_string(seconds) + " 2>&1", &text);
	CPPUNIT_ASSERT_MESSAGE("the Patroni cluster on port " + std::to_string(port) + " is not healthy (start it with "
		"BLUETUSK_PATRONI_PORT=" + std::to_string(port) + " scripts/patroni start):\n" + text, status == 0);
}

} } // namespace BlueTusk::Test
