//
// PoolMonitorTest.cpp
//
// bluetusk-pool-monitor (samples/PoolMonitor) against the local cluster: started as a child process with a
// .properties file, asked over HTTP (/stats JSON with aggregate, per-endpoint counters and learned roles;
// /query; the HTML page; errors), stopped with SIGINT (the pools drain); configuration mistakes make it exit
// with a message naming the property.
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/FileStream.h"
#include "Poco/JSON/Array.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk::Test;

namespace {

bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


std::string writeProperties(Poco::TemporaryFile& file, const std::string& text)
	/// Writes text to "<temporary name>.properties" (the extension tells Poco the format); deleted at exit.
{
	const std::string path = file.path() + ".properties";
	Poco::FileOutputStream out(path);
	out << text;
	out.close();
	Poco::TemporaryFile::registerForDeletion(path);
	return path;
}


std::string monitorProperties(const std::string& extra = "")
{
	return "poolMonitor.dataSource = main\n"
		"bluetusk.dataSources.main.connectionString = " + clusterHosts("127.0.0.1,127.0.0.2,127.0.0.3") + "\n"
		"bluetusk.dataSources.main.minimumPoolSize = 1\n"
		"bluetusk.dataSources.main.maximumPoolSize = 4\n"
		"bluetusk.dataSources.main.targetSessionAttributes = prefer-standby\n"
		"bluetusk.dataSources.second.connectionString = " + clusterHosts("127.0.0.3") + "\n" + extra;
}


std::string baseUrl(BackgroundProgram& monitor)
{
	std::string line = monitor.waitForLine("listening on ", 60000);
	return line.substr(std::string("listening on ").size());
}

} // namespace


class PoolMonitorTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolMonitorTest);
	CPPUNIT_TEST(testStatsQueryAndPage);
	CPPUNIT_TEST(testHttpErrors);
	CPPUNIT_TEST(testSiteTargetSession);
	CPPUNIT_TEST(testBadConfigurationNamesProperty);
	CPPUNIT_TEST(testShippedExampleParses);
	CPPUNIT_TEST_SUITE_END();

public:
	void testStatsQueryAndPage()
	{
		Poco::TemporaryFile file;
		BackgroundProgram monitor(monitorProgram(), {"--config=" + writeProperties(file, monitorProperties()), "--port=0"});
		const std::string url = baseUrl(monitor);

		HttpAnswer stats = httpGet(url, "stats");
		CPPUNIT_ASSERT_EQUAL(200, stats.status);
		CPPUNIT_ASSERT_EQUAL(std::string("application/json"), stats.contentType);
		Poco::JSON::Object::Ptr body = stats.json();
		CPPUNIT_ASSERT_EQUAL(std::string("stats"), body->getValue<std::string>("event"));
		CPPUNIT_ASSERT_EQUAL(std::string("main"), body->getValue<std::string>("dataSource"));
		const std::string shown = body->getValue<std::string>("connectionString");
		CPPUNIT_ASSERT_MESSAGE(shown, contains(shown, "Password=***"));
		CPPUNIT_ASSERT_MESSAGE(shown, !contains(stats.body, cluster().password));
		// Warm-up: Minimum Pool Size=1 on each of the three endpoints.
		Poco::JSON::Object::Ptr aggregate = body->getObject("aggregate");
		CPPUNIT_ASSERT_EQUAL(3, aggregate->getValue<int>("total"));
		CPPUNIT_ASSERT_EQUAL(3, aggregate->getValue<int>("idle"));
		CPPUNIT_ASSERT_EQUAL(12, aggregate->getValue<int>("max"));
		CPPUNIT_ASSERT_EQUAL(3, aggregate->getValue<int>("min"));
		Poco::JSON::Object::Ptr hosts = body->getObject("hosts");
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), hosts->size());
		for (int node = 1; node <= 3; ++node)
		{
			Poco::JSON::Object::Ptr host = hosts->getObject(endpointOf(node));
			CPPUNIT_ASSERT_MESSAGE(stats.body, !host.isNull());
			CPPUNIT_ASSERT_EQUAL(1, host->getValue<int>("total"));
			CPPUNIT_ASSERT_EQUAL(4, host->getValue<int>("max"));
			CPPUNIT_ASSERT_EQUAL(0, host->getValue<int>("busy"));
		}
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), body->getObject("learned")->size());

		// A query for the primary: served by the warmed-up session on node1.
		HttpAnswer query = httpGet(url, "query?sql=SELECT+host(inet_server_addr()),+NULL+AS+n&target=primary");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(query.body, 200, query.status);
		Poco::JSON::Object::Ptr answer = query.json();
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), answer->getValue<std::string>("endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), answer->getValue<std::string>("role"));
		CPPUNIT_ASSERT_EQUAL(true, answer->getValue<bool>("pooled"));
		Poco::JSON::Array::Ptr row = answer->getArray("rows")->getArray(0);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), row->getElement<std::string>(0));
		CPPUNIT_ASSERT(row->isNull(1));

		// The default target of "main" (prefer-standby) lands on the first standby.
		HttpAnswer standby = httpGet(url, "query?sql=SELECT+pg_is_in_recovery()");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(standby.body, 200, standby.status);
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), standby.json()->getValue<std::string>("endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), standby.json()->getArray("rows")->getArray(0)->getElement<std::string>(0));

		// Now the roles are learned, and the pool counters show the sessions came back.
		Poco::JSON::Object::Ptr after = httpGet(url, "stats").json();
		Poco::JSON::Object::Ptr learned = after->getObject("learned");
		CPPUNIT_ASSERT_EQUAL(std::string("up"), learned->getObject(endpointOf(1))->getValue<std::string>("state"));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), learned->getObject(endpointOf(1))->getValue<std::string>("role"));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), learned->getObject(endpointOf(2))->getValue<std::string>("role"));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), after->getObject("hosts")->getObject(endpointOf(1))->getValue<std::string>("role"));
		CPPUNIT_ASSERT_EQUAL(3, after->getObject("aggregate")->getValue<int>("idle"));
		CPPUNIT_ASSERT_EQUAL(0, after->getObject("aggregate")->getValue<int>("busy"));

		// The second data source, by name.
		HttpAnswer second = httpGet(url, "query?sql=SELECT+1&dataSource=second");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(second.body, 200, second.status);
		CPPUNIT_ASSERT_EQUAL(endpointOf(3), second.json()->getValue<std::string>("endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("second"), httpGet(url, "stats?dataSource=second").json()->getValue<std::string>("dataSource"));

		// The page for people.
		HttpAnswer page = httpGet(url, "");
		CPPUNIT_ASSERT_EQUAL(200, page.status);
		CPPUNIT_ASSERT_EQUAL(std::string("text/html; charset=utf-8"), page.contentType);
		CPPUNIT_ASSERT_MESSAGE(page.body, contains(page.body, "<h1>BlueTusk pool monitor</h1>"));
		CPPUNIT_ASSERT_MESSAGE(page.body, contains(page.body, "<td>" + endpointOf(1) + "</td><td data-field=state class=up>up</td><td data-field=role class=\"primary\">primary</td>"));
		CPPUNIT_ASSERT_MESSAGE(page.body, contains(page.body, "Data source &quot;second&quot;"));
		CPPUNIT_ASSERT(!contains(page.body, cluster().password));

		// SIGINT: a clean stop, the pools drained.
		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
		CPPUNIT_ASSERT_MESSAGE(monitor.output(), contains(monitor.output(), "stopped"));
		CPPUNIT_ASSERT_MESSAGE(monitor.errors(), contains(monitor.errors(), "data source \"main\" drained"));
	}

	void testHttpErrors()
	{
		Poco::TemporaryFile file;
		BackgroundProgram monitor(monitorProgram(), {"--config=" + writeProperties(file, monitorProperties()), "--port=0"});
		const std::string url = baseUrl(monitor);

		HttpAnswer noSql = httpGet(url, "query");
		CPPUNIT_ASSERT_EQUAL(400, noSql.status);
		CPPUNIT_ASSERT_EQUAL(std::string("error"), noSql.json()->getValue<std::string>("event"));

		HttpAnswer badTarget = httpGet(url, "query?sql=SELECT+1&target=fastest");
		CPPUNIT_ASSERT_EQUAL(400, badTarget.status);
		CPPUNIT_ASSERT_MESSAGE(badTarget.body, contains(badTarget.json()->getValue<std::string>("message"), "accepted values"));

		HttpAnswer badSql = httpGet(url, "query?sql=SELECT+nonexistent_column");
		CPPUNIT_ASSERT_EQUAL(400, badSql.status);
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskServerException"), badSql.json()->getValue<std::string>("type"));
		CPPUNIT_ASSERT_EQUAL(std::string("42703"), badSql.json()->getValue<std::string>("sqlstate"));

		// the server ending the session mid-query (FATAL 57P01, as at a shutdown) is a 503, not the caller's fault
		HttpAnswer terminated = httpGet(url, "query?sql=SELECT+pg_terminate_backend(pg_backend_pid())");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(terminated.body, 503, terminated.status);
		CPPUNIT_ASSERT_EQUAL(std::string("57P01"), terminated.json()->getValue<std::string>("sqlstate"));

		HttpAnswer noHost = httpGet(url, "query?sql=SELECT+1&dataSource=second&target=primary");
		CPPUNIT_ASSERT_EQUAL(503, noHost.status);
		Poco::JSON::Object::Ptr error = noHost.json();
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskNoAcceptableHostException"), error->getValue<std::string>("type"));
		CPPUNIT_ASSERT_EQUAL(endpointOf(3), error->getArray("attempts")->getObject(0)->getValue<std::string>("endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("rejected"), error->getArray("attempts")->getObject(0)->getValue<std::string>("outcome"));

		CPPUNIT_ASSERT_EQUAL(404, httpGet(url, "stats?dataSource=orders").status);
		CPPUNIT_ASSERT_EQUAL(404, httpGet(url, "nothing-here").status);
		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
	}

	void testSiteTargetSession()
	{
		// A data source whose target is a site policy (samples/SitePolicies "zone-standby": the standby of
		// zone c is node3; never a primary): /query without target= uses it (before: "any", the primary),
		// target=zone-standby names it, a standard name still works, and the page offers the site name.
		const std::string zones = "127.0.0.1=a, 127.0.0.2=b, 127.0.0.3=c";
		Poco::TemporaryFile file;
		BackgroundProgram monitor(monitorProgram(), {"--config=" + writeProperties(file, monitorProperties(
			"bluetusk.plugins = " + builtFile("samples/plugins/libBlueTuskZoneStandbyPlugin.so") + "\n"
			"bluetusk.dataSources.zoned.connectionString = " + clusterHosts("127.0.0.1,127.0.0.2,127.0.0.3") + "\n"
			"bluetusk.dataSources.zoned.minimumPoolSize = 1\n"
			"bluetusk.dataSources.zoned.targetSessionAttributes = zone-standby\n"
			"bluetusk.dataSources.zoned.policy.zone = c\n"
			"bluetusk.dataSources.zoned.policy.zones = " + zones + "\n"
			"bluetusk.dataSources.zoned.policy.primaryFallback = false\n")), "--port=0"});
		const std::string url = baseUrl(monitor);
		for (const std::string query: {"query?sql=SELECT+pg_is_in_recovery()&dataSource=zoned",
			"query?sql=SELECT+pg_is_in_recovery()&dataSource=zoned&target=",
			"query?sql=SELECT+pg_is_in_recovery()&dataSource=zoned&target=zone-standby",
			"query?sql=SELECT+pg_is_in_recovery()&dataSource=zoned&target=Zone-Standby"})
		{
			HttpAnswer answer = httpGet(url, query);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(query + ": " + answer.body, 200, answer.status);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(query + ": " + answer.body, endpointOf(3), answer.json()->getValue<std::string>("endpoint"));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(query, std::string("standby"), answer.json()->getValue<std::string>("role"));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(query, std::string("t"), answer.json()->getArray("rows")->getArray(0)->getElement<std::string>(0));
		}
		HttpAnswer primary = httpGet(url, "query?sql=SELECT+1&dataSource=zoned&target=primary");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(primary.body, 200, primary.status);
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), primary.json()->getValue<std::string>("endpoint"));
		// An unknown name is still the caller's mistake, naming what is loaded.
		HttpAnswer unknown = httpGet(url, "query?sql=SELECT+1&dataSource=zoned&target=zone-standbyy");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(unknown.body, 400, unknown.status);
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskConnectionStringException"), unknown.json()->getValue<std::string>("type"));
		CPPUNIT_ASSERT_MESSAGE(unknown.body, contains(unknown.json()->getValue<std::string>("message"), "zone-standby)"));
		HttpAnswer page = httpGet(url, "");
		CPPUNIT_ASSERT_MESSAGE(page.body, contains(page.body, "<option>read-only</option><option>zone-standby</option></select>"));
		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
	}

	void testBadConfigurationNamesProperty()
	{
		struct Case
		{
			std::string extra;
			std::string expected;
		};
		const std::vector<Case> cases = {
			{"bluetusk.dataSources.main.hostOrder = fastest\n", "bluetusk.dataSources.main.hostOrder: no host order policy named \"fastest\""},
			{"bluetusk.dataSources.third.maximumPoolSize = 4\n", "bluetusk.dataSources.third.connectionString is missing"},
			{"bluetusk.plugins = /nonexistent/libSite.so\n", "bluetusk.plugins: cannot load \"/nonexistent/libSite.so\""},
			{"bluetusk.dataSources.main.sslMode = sometimes\n", "bluetusk.dataSources.main.sslMode: "},
		};
		for (const auto& c: cases)
		{
			Poco::TemporaryFile file;
			ProgramResult r = runProgram(monitorProgram(), {"--config=" + writeProperties(file, monitorProperties(c.extra)), "--port=0"});
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 78, r.status); // EXIT_CONFIG
			CPPUNIT_ASSERT_MESSAGE(c.expected + ": " + r.describe(), contains(r.err, c.expected));
			CPPUNIT_ASSERT_MESSAGE(r.describe(), !contains(r.out, "listening on"));
			CPPUNIT_ASSERT_MESSAGE(r.describe(), !contains(r.out + r.err, cluster().password));
		}
	}

	void testShippedExampleParses()
	{
		// samples/PoolMonitor/bluetusk-pool-monitor.properties, pointed at this cluster's port and certificate.
		const std::string port = std::to_string(cluster().port);
		BackgroundProgram monitor(monitorProgram(), {
			"--config=" + std::string(BLUETUSK_SOURCE_DIR) + "/samples/PoolMonitor/bluetusk-pool-monitor.properties", "--port=0",
			"--set=bluetusk.dataSources.main.port=" + port, "--set=bluetusk.dataSources.writer.port=" + port,
			"--set=bluetusk.dataSources.main.rootCertificate=" + cluster().rootCertificate(),
			"--set=bluetusk.dataSources.writer.rootCertificate=" + cluster().rootCertificate()});
		const std::string url = baseUrl(monitor);
		HttpAnswer writer = httpGet(url, "query?sql=SELECT+1&dataSource=writer");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(writer.body, 200, writer.status);
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), writer.json()->getValue<std::string>("endpoint"));
		HttpAnswer reader = httpGet(url, "query?sql=SELECT+1");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(reader.body, 200, reader.status);
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), reader.json()->getValue<std::string>("role"));
		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolMonitorTest);
