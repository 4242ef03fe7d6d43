//
// PocoPrometheusTest.cpp
//
// The Poco::Prometheus export (PocoPrometheusCollector, Poco 1.12 and later; doc/metrics.md): a data source
// with known activity over the scripted fake SessionFactory, its metrics served by Poco's own
// MetricsServer on a free loopback port and read with GET /metrics: the names, labels and values, and every
// line equal to the prometheus-cpp export's. On a Poco without Prometheus (Debian's 1.11) this file is empty.
//

#ifdef BLUETUSK_METRICS_POCO_PROMETHEUS

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Metrics/PocoPrometheusCollector.h"
#include "BlueTusk/Metrics/PrometheusExporter.h"
#include "FakeRoutingContext.h"
#include "MetricsTestSupport.h"
#include "RoutingTestSupport.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Prometheus/MetricsServer.h"
#include "Poco/Prometheus/Registry.h"
#include <cppunit/extensions/HelperMacros.h>
#include <set>
#include <utility>
#include <sstream>

using namespace BlueTusk;
using namespace BlueTusk::Metrics;
using namespace BlueTusk::Test;

namespace {

std::multiset<std::string> lines(const std::string& text)
{
	std::multiset<std::string> result;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line))
	{
		if (!line.empty()) result.insert(line);
	}
	return result;
}

} // namespace


class PocoPrometheusTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PocoPrometheusTest);
	CPPUNIT_TEST(testMetricsServerServesBlueTuskMetrics);
	CPPUNIT_TEST(testUnregistersWhenDestroyed);
	CPPUNIT_TEST_SUITE_END();

public:
	void testMetricsServerServesBlueTuskMetrics()
	{
		FakeRoutingContext fake;
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Maximum Pool Size=5"), fake.context);
		auto exporter = std::make_shared<PrometheusExporter>();
		exporter->attach(dataSource, "orders");
		// Known activity: three checkouts at a, one returned: used 2, idle 1; three attempts accepted, three
		// waits, one use.
		BlueTuskConnection one = dataSource->open();
		BlueTuskConnection two = dataSource->open();
		dataSource->open().close();

		Poco::Prometheus::Registry registry;
		PocoPrometheusCollector collector(exporter, "bluetusk", &registry);
		Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));   // a free port, no race
		const Poco::UInt16 port = socket.address().port();
		Poco::Prometheus::MetricsServer server(registry, socket, new Poco::Net::HTTPServerParams, "/metrics");
		server.start();
		int status = 0;
		const std::string body = scrape(port, status);
		server.stop();

		CPPUNIT_ASSERT_EQUAL(200, status);
		const std::string a = "{db_client_connection_pool_name=\"orders\",endpoint=\"a:5432\"";
		const std::string b = "{db_client_connection_pool_name=\"orders\",endpoint=\"b:5432\"";
		const std::pair<std::string, const char*> expected[] = {
			{"db_client_connection_count" + a + ",db_client_connection_state=\"used\"}", "2"},
			{"db_client_connection_count" + a + ",db_client_connection_state=\"idle\"}", "1"},
			{"db_client_connection_count" + b + ",db_client_connection_state=\"used\"}", "0"},
			{"db_client_connection_max" + a + "}", "5"},
			{"db_client_connection_timeouts_total" + a + "}", "0"},
			{"bluetusk_route_attempts_total" + a + ",outcome=\"accepted\"}", "3"},
			{"db_client_connection_wait_time_seconds_count" + a + "}", "3"},
			{"db_client_connection_wait_time_seconds_bucket" + a + ",le=\"+Inf\"}", "3"},
			{"db_client_connection_use_time_seconds_count" + a + "}", "1"},
			{"bluetusk_route_failover_waits_total{db_client_connection_pool_name=\"orders\"}", "0"}};
		for (const auto& line: expected)
			CPPUNIT_ASSERT_EQUAL_MESSAGE(line.first, std::string(line.second), sample(body, line.first));
		CPPUNIT_ASSERT_MESSAGE(body, body.find("# TYPE db_client_connection_count gauge\n") != std::string::npos);
		CPPUNIT_ASSERT(body.find("# TYPE bluetusk_route_attempts_total counter\n") != std::string::npos);
		CPPUNIT_ASSERT(body.find("# TYPE db_client_connection_create_time_seconds histogram\n") != std::string::npos);
		CPPUNIT_ASSERT(body.find("# HELP db_client_connection_count ") != std::string::npos);
		// The same lines as prometheus-cpp's export of the same moment (nothing ran in between).
		const auto poco = lines(body), cpp = lines(exporter->text());
		for (const std::string& line: cpp)
			CPPUNIT_ASSERT_MESSAGE("missing from Poco::Prometheus's export: " + line, poco.count(line) == cpp.count(line));
		CPPUNIT_ASSERT_EQUAL(cpp.size(), poco.size());
	}

	void testUnregistersWhenDestroyed()
	{
		Poco::Prometheus::Registry registry;
		auto exporter = std::make_shared<PrometheusExporter>();
		{
			PocoPrometheusCollector collector(exporter, "bluetusk", &registry);
			CPPUNIT_ASSERT(registry.findCollector("bluetusk") == &collector);
		}
		CPPUNIT_ASSERT(registry.findCollector("bluetusk") == nullptr);
		PocoPrometheusCollector again(exporter, "bluetusk", &registry);   // the name is free again
		CPPUNIT_ASSERT(registry.findCollector("bluetusk") == &again);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PocoPrometheusTest);

#endif // BLUETUSK_METRICS_POCO_PROMETHEUS
