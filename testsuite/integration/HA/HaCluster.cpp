//
// HaCluster.cpp
//

#include "HaCluster.h"
#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/NumberParser.h"
#include "Poco/Thread.h"
#include "Poco/Timestamp.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstdio>
#include <sys/wait.h>

namespace BlueTusk {
namespace Test {

const HaCluster& HaCluster::patroni()
{
	static const HaCluster cluster = []
	{
		HaCluster c;
		c.port = Poco::NumberParser::parse(Poco::Environment::get(c.portVariable, "55462"));
		return c;
	}();
	return cluster;
}


const HaCluster& HaCluster::autoFailover()
{
	static const HaCluster cluster = []
	{
		HaCluster c;
		c.manager = "pg_auto_failover";
		c.script = "pg-auto-failover";
		c.portVariable = "BLUETUSK_PAF_PORT";
		c.port = Poco::NumberParser::parse(Poco::Environment::get(c.portVariable, "55482"));
		c.holdsCommitsAfterPromotion = true;
		return c;
	}();
	return cluster;
}


std::string HaCluster::host(int node) const
{
	return "127.0.0." + std::to_string(node);
}


std::string HaCluster::connectionString(const std::string& extra) const
{
	const ClusterInfo& info = cluster();
	std::string text = "Host=" + host(1) + "," + host(2) + "," + host(3) + ";Port=" + std::to_string(port) +
		";Username=" + info.user + ";Password=" + info.password + ";Database=" + info.database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}


std::string HaCluster::nodeConnectionString(int node, const std::string& extra) const
{
	const ClusterInfo& info = cluster();
	std::string text = "Host=" + host(node) + ";Port=" + std::to_string(port) + ";Username=" + info.user +
		";Password=" + info.password + ";Database=" + info.database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}


int HaCluster::run(const std::string& arguments, std::string* output) const
{
	const std::string command = portVariable + "=" + std::to_string(port) + " '" + cluster().scriptsDir + "/" + script +
		"' " + arguments + (output ? "" : " >/dev/null");
	FILE* pipe = ::popen(command.c_str(), "r");
	if (!pipe) return -1;
	std::string text;
	char buffer[512];
	for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) text.append(buffer, n);
	const int status = ::pclose(pipe);
	if (output) *output = text;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


int HaCluster::leader() const
{
	// The manager reads the members from its REST API or monitor: on a loaded machine one read can fail or
	// catch a member between states right after "wait" found the cluster healthy, so a missing answer is
	// asked again for up to 15 s before the caller is told there is no leader.
	const Poco::Timestamp started;
	for (;;)
	{
		std::string text;
		if (run("leader 2>/dev/null", &text) == 0)
		{
			for (int node = 1; node <= 3; ++node)
			{
				if (text.rfind(host(node) + ":", 0) == 0) return node;
			}
		}
		if (started.elapsed() > 15 * Poco::Timestamp::resolution()) return 0;
		Poco::Thread::sleep(200);
	}
}


void HaCluster::waitHealthy(int seconds) const
{
	std::string text;
	const int status = run("wait " + std::to_string(seconds) + " 2>&1", &text);
	CPPUNIT_ASSERT_MESSAGE("the " + manager + " cluster on port " + std::to_string(port) + " is not healthy (start it with " +
		portVariable + "=" + std::to_string(port) + " scripts/" + script + " start):\n" + text, status == 0);
}

} } // namespace BlueTusk::Test
