//
// CustomPolicyTest.cpp
//
// The site plugin of samples/CustomPolicy ("preferred-hosts") against the local cluster: selected by
// configuration alone (bluetusk.plugins, hostOrder, policy.preferredHosts) in the subsystem and in the
// pool monitor with the shipped example file, and built on its own against an INSTALLED BlueTusk
// (cmake --install, then find_package(BlueTusk) in samples/CustomPolicy).
//

#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "BlueTusk/BlueTuskException.h"
#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/AutoPtr.h"
#include "Poco/File.h"
#include "Poco/Path.h"
#include "Poco/StringTokenizer.h"
#include "Poco/TemporaryFile.h"
#include "Poco/Util/MapConfiguration.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string ALL = "127.0.0.1,127.0.0.2,127.0.0.3";


Poco::AutoPtr<Poco::Util::MapConfiguration> pluginConfiguration()
{
	Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;
	config->setString("bluetusk.plugins", preferredHostsPlugin());
	for (const std::string name: {"third", "second", "none"})
	{
		config->setString("bluetusk.dataSources." + name + ".connectionString", clusterHosts(ALL));
		config->setString("bluetusk.dataSources." + name + ".hostOrder", "preferred-hosts");
	}
	config->setString("bluetusk.dataSources.third.policy.preferredHosts", "127.0.0.3");
	config->setString("bluetusk.dataSources.second.policy.preferredHosts", "127.0.0.9, " + endpointOf(2));
	return config;
}


std::string landedOn(DataSourceSubsystem& subsystem, const std::string& name, TargetSessionAttributes target)
{
	BlueTuskConnection connection = subsystem.dataSource(name)->open(target);
	return connection.connectedEndpoint().toString();
}


int run(const std::string& what, const std::vector<std::string>& args, std::string& output)
{
	ProgramResult r = runProgram("/usr/bin/env", args);
	output += "$ " + what + "\n" + r.out + r.err;
	return r.status;
}

} // namespace


class CustomPolicyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CustomPolicyTest);
	CPPUNIT_TEST(testSelectedByConfiguration);
	CPPUNIT_TEST(testPreferredHostDownFallsBackToWrittenOrder);
	CPPUNIT_TEST(testPoolMonitorWithShippedExample);
	CPPUNIT_TEST(testBuildsAgainstInstalledBlueTusk);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSelectedByConfiguration()
	{
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*pluginConfiguration());
		CPPUNIT_ASSERT_EQUAL(std::string("preferred-hosts"), subsystem.dataSource("third")->settings().hostOrder);
		// preferredHosts=127.0.0.3: written last, tried first.
		CPPUNIT_ASSERT_EQUAL(endpointOf(3), landedOn(subsystem, "third", TargetSessionAttributes::Any));
		CPPUNIT_ASSERT_EQUAL(endpointOf(3), landedOn(subsystem, "third", TargetSessionAttributes::Standby));
		// The target still decides: the preferred standby is passed over for the primary.
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), landedOn(subsystem, "third", TargetSessionAttributes::Primary));
		// Another data source, another preference (an unknown host and an endpoint with its port).
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), landedOn(subsystem, "second", TargetSessionAttributes::Any));
		// No policy properties: written order, like sequential.
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), landedOn(subsystem, "none", TargetSessionAttributes::Any));
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), landedOn(subsystem, "none", TargetSessionAttributes::Standby));
		// The plugin's policy is listed next to the standard ones.
		std::vector<std::string> names = subsystem.routingContext().policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "preferred-hosts") != names.end());
	}

	void testPreferredHostDownFallsBackToWrittenOrder()
	{
		// A preferred host that does not answer costs one refused attempt; then the written order applies.
		Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;
		config->setString("bluetusk.plugins", preferredHostsPlugin());
		config->setString("bluetusk.dataSources.main.connectionString", clusterHosts("127.0.0.1,127.0.0.2,127.0.0.9"));
		config->setString("bluetusk.dataSources.main.hostOrder", "preferred-hosts");
		config->setString("bluetusk.dataSources.main.policy.preferredHosts", "127.0.0.9,127.0.0.2");
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*config);
		BlueTuskConnection connection = subsystem.dataSource("main")->open();
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), connection.connectedEndpoint().toString());
		const HostAttemptList& attempts = connection.attemptLog();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), attempts.size());
		CPPUNIT_ASSERT_EQUAL("127.0.0.9:" + std::to_string(cluster().port), attempts[0].endpoint.toString());
		CPPUNIT_ASSERT(attempts[0].outcome == HostAttempt::FAILED);
	}

	void testPoolMonitorWithShippedExample()
	{
		// samples/CustomPolicy/preferred-hosts.properties as shipped (its plugin path is relative to the
		// program), pointed at this cluster.
		BackgroundProgram monitor(monitorProgram(), {
			"--config=" + std::string(BLUETUSK_SOURCE_DIR) + "/samples/CustomPolicy/preferred-hosts.properties", "--port=0",
			"--set=bluetusk.dataSources.reports.port=" + std::to_string(cluster().port),
			"--set=bluetusk.dataSources.reports.rootCertificate=" + cluster().rootCertificate()});
		const std::string url = monitor.waitForLine("listening on ", 60000).substr(13);
		for (int i = 0; i < 3; ++i)
		{
			HttpAnswer answer = httpGet(url, "query?sql=SELECT+host(inet_server_addr())");
			CPPUNIT_ASSERT_EQUAL_MESSAGE(answer.body, 200, answer.status);
			CPPUNIT_ASSERT_EQUAL(endpointOf(3), answer.json()->getValue<std::string>("endpoint"));
			CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.3"), answer.json()->getArray("rows")->getArray(0)->getElement<std::string>(0));
		}
		HttpAnswer primary = httpGet(url, "query?sql=SELECT+1&target=read-write");
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), primary.json()->getValue<std::string>("endpoint"));
		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
		CPPUNIT_ASSERT_MESSAGE(monitor.errors(), monitor.errors().find("bluetusk.plugins: loaded plugin") != std::string::npos);
	}

	void testBuildsAgainstInstalledBlueTusk()
	{
		// Install this build into a temporary prefix, then build samples/CustomPolicy as a project of its own
		// that sees only that prefix (find_package(BlueTusk)), and load the result.
		Poco::TemporaryFile work;
		work.createDirectories();
		const std::string prefix = work.path() + "/prefix";
		const std::string build = work.path() + "/build";
		std::string log;
		int status = run("cmake --install", {"cmake", "--install", BLUETUSK_BINARY_DIR, "--prefix", prefix}, log);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 0, status);
		CPPUNIT_ASSERT_MESSAGE(log, Poco::File(prefix + "/include/BlueTusk/HostOrderPolicy.h").exists());
		// The prefix, and the Poco this build was made with (empty: the system's): a plugin built against
		// another Poco than the process's would bring a second Poco into it.
		const Poco::StringTokenizer pocoDirs(BLUETUSK_POCO_PREFIX_PATH, ":", Poco::StringTokenizer::TOK_IGNORE_EMPTY);
		std::string prefixPath = prefix;
		for (const auto& dir: pocoDirs) prefixPath += ";" + dir;
		status = run("configure", {"cmake", "-S", std::string(BLUETUSK_SOURCE_DIR) + "/samples/CustomPolicy", "-B", build,
			"-DCMAKE_PREFIX_PATH=" + prefixPath, "-DCMAKE_BUILD_TYPE=Release"}, log);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 0, status);
		status = run("build", {"cmake", "--build", build}, log);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 0, status);
		// The project found the installed package and compiled against the installed headers, never the tree's.
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 0, run("grep BlueTusk_DIR", {"grep", "-q", "^BlueTusk_DIR:PATH=" + prefix + "/", build + "/CMakeCache.txt"}, log));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 0, run("grep installed include", {"grep", "-rqF", prefix + "/include", build}, log));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 1, run("grep source include", {"grep", "-rqF", std::string(BLUETUSK_SOURCE_DIR) + "/Routing/include", build}, log));
		const std::string pocoDir = pocoDirs.count() == 0 ? "/usr/" : pocoDirs[0] + "/";
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log, 0, run("grep Poco_DIR", {"grep", "-qF", "Poco_DIR:PATH=" + pocoDir, build + "/CMakeCache.txt"}, log));
		const std::string plugin = build + "/libBlueTuskPreferredHostsPlugin.so";
		CPPUNIT_ASSERT_MESSAGE(log, Poco::File(plugin).exists());

		RoutingContext connector;
		connector.loadPlugin(plugin);
		std::vector<std::string> names = connector.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "preferred-hosts") != names.end());
		Poco::File(work.path()).remove(true);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CustomPolicyTest);
