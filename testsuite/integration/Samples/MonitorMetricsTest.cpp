//
// MonitorMetricsTest.cpp
//
// The pool monitor's /metrics scraped by a real Prometheus server (Debian's prometheus, started here on a
// loopback port with a temporary data directory): after a load that opened sessions on all three nodes,
// db_client_connection_count through Prometheus's HTTP query API equals the monitor's /stats per endpoint
// and state (doc/metrics.md). Skipped (with a note) when the monitor was built without BlueTusk::Metrics.
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/JSON/Array.h"
#include "Poco/JSON/Parser.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"
#include "Poco/Thread.h"
#include "Poco/Timestamp.h"
#include "Poco/URI.h"
#include <cppunit/extensions/HelperMacros.h>
#include <iostream>
#include <map>
#include <thread>

using namespace BlueTusk::Test;

namespace {

const char* const PROMETHEUS = "/usr/bin/prometheus";


Poco::UInt16 freePort()
	/// A loopback port nobody listens on right now.
{
	Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
	const Poco::UInt16 port = socket.address().port();
	socket.close();
	return port;
}


std::map<std::string, int> statsCounts(const std::string& monitorUrl)
	/// "<endpoint> idle" / "<endpoint> used" -> the monitor's /stats idle / busy of that endpoint.
{
	Poco::JSON::Object::Ptr hosts = httpGet(monitorUrl, "stats").json()->getObject("hosts");
	std::map<std::string, int> counts;
	for (const auto& endpoint: hosts->getNames())
	{
		counts[endpoint + " idle"] = hosts->getObject(endpoint)->getValue<int>("idle");
		counts[endpoint + " used"] = hosts->getObject(endpoint)->getValue<int>("busy");
	}
	return counts;
}


std::string describe(const std::map<std::string, int>& counts)
	/// "{<endpoint> idle=N, <endpoint> used=N, ...}" for a failure message.
{
	std::string text;
	for (const auto& item: counts) text += (text.empty() ? "{" : ", ") + item.first + "=" + std::to_string(item.second);
	return text.empty() ? "{}" : text + "}";
}


int usedCount(const std::map<std::string, int>& counts)
	/// The sum of the "used" counts.
{
	int used = 0;
	for (const auto& item: counts)
		if (item.first.size() > 5 && item.first.compare(item.first.size() - 5, 5, " used") == 0) used += item.second;
	return used;
}


Poco::JSON::Array::Ptr promQuery(const std::string& prometheusUrl, const std::string& query)
	/// data.result of GET /api/v1/query?query=query (empty when Prometheus is not answering yet).
{
	std::string encoded;
	Poco::URI::encode(query, "&=+{}\"", encoded);
	try
	{
		HttpAnswer answer = httpGet(prometheusUrl, "api/v1/query?query=" + encoded);
		if (answer.status != 200) return new Poco::JSON::Array;
		Poco::JSON::Object::Ptr body = Poco::JSON::Parser().parse(answer.body).extract<Poco::JSON::Object::Ptr>();
		return body->getObject("data")->getArray("result");
	}
	catch (Poco::Exception&)
	{
		return new Poco::JSON::Array;
	}
}


std::map<std::string, int> scrapedCounts(const std::string& prometheusUrl, double& oldest)
	/// The newest db_client_connection_count{db_client_connection_pool_name="main"} samples in Prometheus,
	/// "<endpoint> <state>" -> value; oldest: the earliest of their timestamps (seconds since the epoch,
	/// the start of the scrape that took the sample).
{
	std::map<std::string, int> scraped;
	oldest = 1e300;
	Poco::JSON::Array::Ptr result = promQuery(prometheusUrl, "db_client_connection_count{db_client_connection_pool_name=\"main\"}");
	for (std::size_t i = 0; i < result->size(); ++i)
	{
		Poco::JSON::Object::Ptr item = result->getObject(static_cast<unsigned>(i));
		Poco::JSON::Object::Ptr labels = item->getObject("metric");
		Poco::JSON::Array::Ptr value = item->getArray("value");
		CPPUNIT_ASSERT_EQUAL(std::string("bluetusk-pool-monitor"), labels->getValue<std::string>("job"));
		scraped[labels->getValue<std::string>("endpoint") + " " + labels->getValue<std::string>("db_client_connection_state")] =
			std::stoi(value->getElement<std::string>(1));
		oldest = std::min(oldest, value->getElement<double>(0));
	}
	return scraped;
}

} // namespace


class MonitorMetricsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MonitorMetricsTest);
	CPPUNIT_TEST(testPrometheusScrapeEqualsStats);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPrometheusScrapeEqualsStats()
	{
#ifndef BLUETUSK_HAVE_METRICS
		std::cerr << "(skipped: built without BlueTusk::Metrics, install prometheus-cpp-dev) ";
		return;
#else
		CPPUNIT_ASSERT_MESSAGE(std::string(PROMETHEUS) + " missing: apt-get install prometheus (scripts/setup)", Poco::File(PROMETHEUS).exists());
		Poco::TemporaryFile dir;
		dir.createDirectories();
		const std::string properties = writeTextFile(Poco::Path(dir.path(), "monitor.properties").toString(), threeNodeMonitorProperties());
		BackgroundProgram monitor(monitorProgram(), {"--config=" + properties, "--port=0"});
		const std::string line = monitor.waitForLine("listening on ", 60000);
		const std::string monitorUrl = line.substr(std::string("listening on ").size());
		const std::string monitorAddress = Poco::URI(monitorUrl).getHost() + ":" + std::to_string(Poco::URI(monitorUrl).getPort());

		// The monitor's own /metrics first: the text format, the OpenTelemetry names.
		HttpAnswer metrics = httpGet(monitorUrl, "metrics");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(metrics.body, 200, metrics.status);
		CPPUNIT_ASSERT_EQUAL(std::string("text/plain; version=0.0.4; charset=utf-8"), metrics.contentType);
		CPPUNIT_ASSERT_MESSAGE(metrics.body, metrics.body.find("db_client_connection_count{db_client_connection_pool_name=\"main\",endpoint=\"" + endpointOf(3) + "\",db_client_connection_state=\"idle\"} 1") != std::string::npos);
		CPPUNIT_ASSERT(metrics.body.find(cluster().password) == std::string::npos);

		// Prometheus, scraping the monitor every second.
		const Poco::UInt16 prometheusPort = freePort();
		const std::string config = writeTextFile(Poco::Path(dir.path(), "prometheus.yml").toString(),
			"global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
			"scrape_configs:\n  - job_name: bluetusk-pool-monitor\n    static_configs:\n      - targets: ['" + monitorAddress + "']\n");
		const std::string prometheusUrl = "http://127.0.0.1:" + std::to_string(prometheusPort) + "/";
		BackgroundProgram prometheus(PROMETHEUS, {"--config.file=" + config,
			"--storage.tsdb.path=" + Poco::Path(dir.path(), "data").toString(),
			"--web.listen-address=127.0.0.1:" + std::to_string(prometheusPort), "--log.level=warn"});

		// The load: concurrent queries for the primary and for standbys (pg_sleep keeps them overlapping),
		// so the pools of node1 and node2 grow past their warm-up session; node3 keeps its warm-up session
		// and serves the read-only ones that find node2 full... whatever the router chose, /stats says it.
		std::vector<std::thread> load;
		std::vector<int> statuses(9, 0);
		const char* targets[] = {"primary", "standby", "any"};
		for (int i = 0; i < 9; ++i)
		{
			load.emplace_back([&, i]()
			{
				statuses[i] = httpGet(monitorUrl, std::string("query?sql=SELECT+pg_sleep(0.4)&target=") + targets[i % 3]).status;
			});
		}
		for (auto& thread: load) thread.join();
		for (int status: statuses) CPPUNIT_ASSERT_EQUAL(200, status);

		// /stats, then a Prometheus sample whose scrape began after that read, then /stats again: the three
		// equal per endpoint and state. The pool moves by itself now and then, so a triple that differs is
		// read again (until 60 s): an idle session is "used" for one round trip while its deferred reset is
		// flushed (1 s after its return) or while the health monitor checks its role. Nothing is created
		// or closed after the load (the idle lifetime is 300 s).
		std::map<std::string, int> expected;
		std::map<std::string, int> scraped;
		std::map<std::string, int> after;
		const Poco::Timestamp deadline = Poco::Timestamp() + Poco::Timespan(60, 0).totalMicroseconds();
		for (;;)
		{
			expected = statsCounts(monitorUrl);
			const double statsRead = static_cast<double>(Poco::Timestamp().epochMicroseconds()) / 1e6;
			double oldest = 0;
			do
			{
				if (Poco::Timestamp() > deadline)
					CPPUNIT_FAIL("Prometheus did not scrape the monitor within 60 s: " + prometheus.errors());
				Poco::Thread::sleep(250);
				scraped = scrapedCounts(prometheusUrl, oldest);
			}
			while (scraped.empty() || oldest <= statsRead);
			after = statsCounts(monitorUrl);
			if (expected == after && expected == scraped && usedCount(expected) == 0) break;
			if (Poco::Timestamp() > deadline)
				CPPUNIT_FAIL("/stats and the Prometheus sample never agreed: /stats " + describe(expected) +
					", Prometheus " + describe(scraped) + ", /stats after " + describe(after));
		}
		for (int node = 1; node <= 3; ++node)
			CPPUNIT_ASSERT_MESSAGE(endpointOf(node) + ": " + describe(expected), expected.at(endpointOf(node) + " idle") >= 1);
		CPPUNIT_ASSERT_MESSAGE("node1 pool grew: " + describe(expected), expected.at(endpointOf(1) + " idle") >= 2);
		CPPUNIT_ASSERT_EQUAL(std::size_t(6), expected.size());

		// The histograms too: the sessions the load opened were timed (warm-up ran before metrics attached).
		Poco::JSON::Array::Ptr created = promQuery(prometheusUrl, "sum(db_client_connection_create_time_seconds_count)");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), created->size());
		int total = 0;
		for (const auto& item: expected) total += item.second;
		CPPUNIT_ASSERT_EQUAL(total - 3, std::stoi(created->getObject(0)->getArray("value")->getElement<std::string>(1)));
		Poco::JSON::Array::Ptr waited = promQuery(prometheusUrl, "sum(db_client_connection_wait_time_seconds_count)");
		CPPUNIT_ASSERT_EQUAL(std::string("9"), waited->getObject(0)->getArray("value")->getElement<std::string>(1));

		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
		prometheus.stop();
#endif
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(MonitorMetricsTest);
