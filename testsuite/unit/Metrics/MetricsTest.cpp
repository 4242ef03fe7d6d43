//
// MetricsTest.cpp
//
// BlueTusk::Metrics (doc/metrics.md) over the Routing unit tests' scripted fake SessionFactory: the names,
// units and labels exactly as the OpenTelemetry conventions spell them, gauges equal to the pools'
// statistics, and histograms that count what the pool did (a checkout that waited 200 ms lands in the
// (0.1, 0.5] bucket).
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/Metrics/MetricsObserver.h"
#include "BlueTusk/Metrics/PrometheusExporter.h"
#include "FakeRoutingContext.h"
#include "MetricsTestSupport.h"
#include "RoutingTestSupport.h"
#include "Poco/Net/HTTPClientSession.h"
#include "Poco/Net/HTTPRequest.h"
#include "Poco/Net/HTTPResponse.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/StreamCopier.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <iostream>
#include <sstream>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Metrics;
using namespace BlueTusk::Test;

namespace {

struct Fixture: FakeRoutingContext
{
	PrometheusExporter exporter;

	BlueTuskDataSource::Ptr create(const std::string& hosts, const std::string& extra = "")
	{
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString(hosts, extra), context);
		exporter.attach(dataSource);
		return dataSource;
	}
};


const MetricsObserver::EndpointSnapshot& of(const MetricsObserver::Snapshot& snapshot, const std::string& host)
{
	for (const auto& e: snapshot.endpoints)
	{
		if (e.endpoint.host() == host) return e;
	}
	throw std::runtime_error("no endpoint " + host);
}


BlueTuskConnection checkoutBehindLease(BlueTuskDataSource& dataSource, long ms)
	/// With Maximum Pool Size=1: takes the one session, has another thread return it after ms, and returns
	/// the checkout that waited for it (about ms).
{
	BlueTuskConnection held = dataSource.open();
	std::thread returner([&held, ms]()
	{
		Poco::Thread::sleep(ms);
		held.close();
	});
	BlueTuskConnection waited = dataSource.open();
	returner.join();
	return waited;
}


std::size_t bucketOf(double seconds)
{
	const auto& bounds = durationBuckets();
	std::size_t b = 0;
	while (b < DURATION_BUCKETS && seconds > bounds[b]) ++b;
	return b;
}

} // namespace


class MetricsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MetricsTest);
	CPPUNIT_TEST(testNamesAndUnits);
	CPPUNIT_TEST(testCountsEqualStatistics);
	CPPUNIT_TEST(testWaitOf200msLandsInItsBucket);
	CPPUNIT_TEST(testCreateAndUseTime);
	CPPUNIT_TEST(testAttemptsByOutcomeAndRoleChanges);
	CPPUNIT_TEST(testTimeoutsAndFailoverWaits);
	CPPUNIT_TEST(testNoObserverByDefault);
	CPPUNIT_TEST(testConcurrentCountsAreExact);
	CPPUNIT_TEST(testListenServesMetrics);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNamesAndUnits()
	{
		struct Expected { const MetricName& name; const char* otel; const char* unit; Instrument kind; const char* prometheus; };
		const Expected expected[] = {
			{Names::CONNECTION_COUNT, "db.client.connection.count", "{connection}", Instrument::UpDownCounter, "db_client_connection_count"},
			{Names::IDLE_MAX, "db.client.connection.idle.max", "{connection}", Instrument::UpDownCounter, "db_client_connection_idle_max"},
			{Names::IDLE_MIN, "db.client.connection.idle.min", "{connection}", Instrument::UpDownCounter, "db_client_connection_idle_min"},
			{Names::MAX, "db.client.connection.max", "{connection}", Instrument::UpDownCounter, "db_client_connection_max"},
			{Names::PENDING_REQUESTS, "db.client.connection.pending_requests", "{request}", Instrument::UpDownCounter, "db_client_connection_pending_requests"},
			{Names::TIMEOUTS, "db.client.connection.timeouts", "{timeout}", Instrument::Counter, "db_client_connection_timeouts_total"},
			{Names::CREATE_TIME, "db.client.connection.create_time", "s", Instrument::Histogram, "db_client_connection_create_time_seconds"},
			{Names::WAIT_TIME, "db.client.connection.wait_time", "s", Instrument::Histogram, "db_client_connection_wait_time_seconds"},
			{Names::USE_TIME, "db.client.connection.use_time", "s", Instrument::Histogram, "db_client_connection_use_time_seconds"},
			{Names::ROUTE_ATTEMPTS, "bluetusk.route.attempts", "{attempt}", Instrument::Counter, "bluetusk_route_attempts_total"},
			{Names::FAILOVER_WAITS, "bluetusk.route.failover_waits", "{wait}", Instrument::Counter, "bluetusk_route_failover_waits_total"},
			{Names::ROLE_CHANGES, "bluetusk.route.role_changes", "{change}", Instrument::Counter, "bluetusk_route_role_changes_total"},
			{Names::SPLIT_BRAIN_REFUSALS, "bluetusk.route.split_brain_refusals", "{refusal}", Instrument::Counter, "bluetusk_route_split_brain_refusals_total"},
		};
		CPPUNIT_ASSERT_EQUAL(sizeof(expected) / sizeof(expected[0]), Names::all().size());
		for (const Expected& e: expected)
		{
			CPPUNIT_ASSERT_EQUAL(std::string(e.otel), std::string(e.name.otelName));
			CPPUNIT_ASSERT_EQUAL(std::string(e.unit), std::string(e.name.unit));
			CPPUNIT_ASSERT(e.kind == e.name.instrument);
			CPPUNIT_ASSERT_EQUAL(std::string(e.prometheus), std::string(e.name.prometheusName));
		}
		CPPUNIT_ASSERT_EQUAL(std::string("db_client_connection_pool_name"), std::string(Labels::POOL_NAME));
		CPPUNIT_ASSERT_EQUAL(std::string("db_client_connection_state"), std::string(Labels::STATE));
		CPPUNIT_ASSERT_EQUAL(std::string("idle"), std::string(Labels::STATE_IDLE));
		CPPUNIT_ASSERT_EQUAL(std::string("used"), std::string(Labels::STATE_USED));
		CPPUNIT_ASSERT_EQUAL(std::string("fallback_retained"), outcomeLabel(HostAttempt::FALLBACK_RETAINED));
		CPPUNIT_ASSERT_EQUAL(std::string("lost_race"), outcomeLabel(HostAttempt::LOST_RACE));
	}

	void testCountsEqualStatistics()
	{
		Fixture f;
		auto dataSource = f.create("a,b,c", "Maximum Pool Size=5;Minimum Pool Size=1");
		BlueTuskConnection one = dataSource->open();
		BlueTuskConnection two = dataSource->open();
		BlueTuskConnection three = dataSource->open();
		three.close();
		const std::string text = f.exporter.text();
		const std::string pool = "db_client_connection_pool_name=\"app@a:5432,b:5432,c:5432/app\",endpoint=\"a:5432\"";
		CPPUNIT_ASSERT_EQUAL(std::string("2"), sample(text, "db_client_connection_count{" + pool + ",db_client_connection_state=\"used\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "db_client_connection_count{" + pool + ",db_client_connection_state=\"idle\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("5"), sample(text, "db_client_connection_max{" + pool + "}"));
		CPPUNIT_ASSERT_EQUAL(std::string("5"), sample(text, "db_client_connection_idle_max{" + pool + "}"));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "db_client_connection_idle_min{" + pool + "}"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), sample(text, "db_client_connection_pending_requests{" + pool + "}"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), sample(text, "db_client_connection_count{db_client_connection_pool_name=\"app@a:5432,b:5432,c:5432/app\",endpoint=\"b:5432\",db_client_connection_state=\"used\"}"));
		// Types and help as Prometheus reads them.
		CPPUNIT_ASSERT(text.find("# TYPE db_client_connection_count gauge") != std::string::npos);
		CPPUNIT_ASSERT(text.find("# TYPE db_client_connection_timeouts_total counter") != std::string::npos);
		CPPUNIT_ASSERT(text.find("# TYPE db_client_connection_wait_time_seconds histogram") != std::string::npos);
		CPPUNIT_ASSERT(text.find("(db.client.connection.count, {connection})") != std::string::npos);
		CPPUNIT_ASSERT(text.find("Password") == std::string::npos && text.find(testPassword()) == std::string::npos);
		// Three checkouts, all accepted at a.
		CPPUNIT_ASSERT_EQUAL(std::string("3"), sample(text, "bluetusk_route_attempts_total{" + pool + ",outcome=\"accepted\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("3"), sample(text, "db_client_connection_wait_time_seconds_count{" + pool + "}"));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "db_client_connection_use_time_seconds_count{" + pool + "}"));
	}

	void testWaitOf200msLandsInItsBucket()
	{
		Fixture f;
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Maximum Pool Size=1;Checkout Timeout=5"), f.context);
		dataSource->open().close();   // one idle session
		MetricsObserver::Ptr observer = f.exporter.attach(dataSource);
		BlueTuskConnection waited = checkoutBehindLease(*dataSource, 200);
		const auto a = of(observer->snapshot(), "a");
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), a.waitTime.count());
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), a.waitTime.counts[0]);            // the idle checkout: <= 1 ms
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), bucketOf(0.2));
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), a.waitTime.counts[5]);            // (0.1, 0.5]
		CPPUNIT_ASSERT(a.waitTime.sum >= 0.19 && a.waitTime.sum < 0.3);
	}

	void testCreateAndUseTime()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary(60));
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Maximum Pool Size=1;Checkout Timeout=5"), f.context);
		MetricsObserver::Ptr observer = f.exporter.attach(dataSource);
		{
			BlueTuskConnection lease = dataSource->open();   // a new session: about 60 ms to create
			Poco::Thread::sleep(120);                         // used for about 120 ms
		}
		// A checkout that waits 200 ms for the one session.
		BlueTuskConnection waited = checkoutBehindLease(*dataSource, 200);
		waited.close();

		const auto a = of(observer->snapshot(), "a");
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), a.createTime.count());
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), a.createTime.counts[bucketOf(0.06)]);   // (0.05, 0.1]
		CPPUNIT_ASSERT(a.createTime.sum >= 0.055 && a.createTime.sum < 0.1);
		// wait times: the first checkout (it created the session: about 60 ms), the second (idle: about 0),
		// the third (about 200 ms: (0.1, 0.5]).
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(3), a.waitTime.count());
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), a.waitTime.counts[bucketOf(0.2)]);
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), bucketOf(0.2));
		CPPUNIT_ASSERT(a.waitTime.sum >= 0.19 + 0.05 && a.waitTime.sum < 0.4);
		// use times: about 120 ms, about 200 ms (both (0.1, 0.5]), and the last, about 0.
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(3), a.useTime.count());
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), a.useTime.counts[bucketOf(0.2)]);
		CPPUNIT_ASSERT(a.useTime.sum >= 0.3 && a.useTime.sum < 0.5);

		// The same in the exposition: cumulative buckets, le as Prometheus spells it.
		const std::string text = f.exporter.text();
		const std::string labels = "db_client_connection_pool_name=\"app@a:5432/app\",endpoint=\"a:5432\"";
		CPPUNIT_ASSERT_EQUAL(std::string("2"), sample(text, "db_client_connection_wait_time_seconds_bucket{" + labels + ",le=\"0.1\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("3"), sample(text, "db_client_connection_wait_time_seconds_bucket{" + labels + ",le=\"0.5\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("3"), sample(text, "db_client_connection_wait_time_seconds_bucket{" + labels + ",le=\"+Inf\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), sample(text, "db_client_connection_create_time_seconds_bucket{" + labels + ",le=\"0.05\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "db_client_connection_create_time_seconds_bucket{" + labels + ",le=\"0.1\"}"));
	}

	void testAttemptsByOutcomeAndRoleChanges()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.world->script("b:5432", FakeHost::primary());
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", ""), f.context);
		MetricsObserver::Ptr observer = f.exporter.attach(dataSource);
		dataSource->open(TargetSessionAttributes::Primary).close();
		auto snapshot = observer->snapshot();
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), of(snapshot, "a").attempts[HostAttempt::REJECTED]);
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), of(snapshot, "b").attempts[HostAttempt::ACCEPTED]);
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), of(snapshot, "a").attempts[HostAttempt::ACCEPTED]);

		// a is promoted, b demoted: the next targeted checkout refreshes the idle sessions' roles.
		f.world->setRole("a:5432", ServerRole::Primary);
		f.world->setRole("b:5432", ServerRole::Standby);
		dataSource->open(TargetSessionAttributes::Primary).close();
		snapshot = observer->snapshot();
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), of(snapshot, "a").roleChanges[static_cast<std::size_t>(ServerRole::Primary)]);
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), of(snapshot, "b").roleChanges[static_cast<std::size_t>(ServerRole::Standby)]);
		const std::string text = f.exporter.text();
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "bluetusk_route_role_changes_total{db_client_connection_pool_name=\"app@a:5432,b:5432/app\",endpoint=\"a:5432\",role=\"" + toString(ServerRole::Primary) + "\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "bluetusk_route_attempts_total{db_client_connection_pool_name=\"app@a:5432,b:5432/app\",endpoint=\"a:5432\",outcome=\"rejected\"}"));
	}

	void testTimeoutsAndFailoverWaits()
	{
		Fixture f;
		auto dataSource = f.create("a", "Maximum Pool Size=1;Checkout Timeout=0.2");
		BlueTuskConnection held = dataSource->open();
		CPPUNIT_ASSERT_THROW(dataSource->open(), BlueTuskPoolTimeoutException);
		std::string text = f.exporter.text();
		CPPUNIT_ASSERT_EQUAL(std::string("1"), sample(text, "db_client_connection_timeouts_total{db_client_connection_pool_name=\"app@a:5432/app\",endpoint=\"a:5432\"}"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), sample(text, "db_client_connection_pending_requests{db_client_connection_pool_name=\"app@a:5432/app\",endpoint=\"a:5432\"}"));

		f.world->script("x:5432", FakeHost::standby());
		auto standbys = f.create("x", "Failover Timeout=0.35;Failover Poll Milliseconds=100");
		CPPUNIT_ASSERT_THROW(standbys->open(TargetSessionAttributes::Primary), BlueTuskNoAcceptableHostException);
		text = f.exporter.text();
		const std::string waits = sample(text, "bluetusk_route_failover_waits_total{db_client_connection_pool_name=\"app@x:5432/app\"}");
		CPPUNIT_ASSERT_MESSAGE(waits, waits == "3" || waits == "4");
		const std::string rejected = sample(text, "bluetusk_route_attempts_total{db_client_connection_pool_name=\"app@x:5432/app\",endpoint=\"x:5432\",outcome=\"rejected\"}");
		CPPUNIT_ASSERT_EQUAL(std::to_string(std::stoi(waits) + 1), rejected);   // one per pass
	}

	void testNoObserverByDefault()
	{
		RoutingContext context{std::make_shared<FakeSessionFactory>()};
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a", ""), context);
		CPPUNIT_ASSERT(dataSource->observer() == nullptr);
		dataSource->open().close();
		PrometheusExporter exporter;
		auto observer = exporter.attach(dataSource);
		CPPUNIT_ASSERT(dataSource->observer() == observer.get());
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), observer->snapshot().endpoints.at(0).waitTime.count());
	}

	void testConcurrentCountsAreExact()
	{
		// Four threads, each its own shard: every checkout and return counted once, fast path or not.
		Fixture f;
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Maximum Pool Size=2;Checkout Timeout=10"), f.context);
		MetricsObserver::Ptr observer = f.exporter.attach(dataSource);
		const int THREADS = 4, ROUNDS = 500;
		std::vector<std::thread> threads;
		for (int t = 0; t < THREADS; ++t)
		{
			threads.emplace_back([&dataSource]()
			{
				for (int i = 0; i < ROUNDS; ++i) dataSource->open().close();
			});
		}
		for (auto& thread: threads) thread.join();
		const auto snapshot = observer->snapshot();
		std::uint64_t waits = 0, uses = 0, accepted = 0;
		for (const auto& e: snapshot.endpoints)
		{
			waits += e.waitTime.count();
			uses += e.useTime.count();
			accepted += e.attempts[HostAttempt::ACCEPTED];
		}
		const std::uint64_t checkouts = THREADS * ROUNDS;
		CPPUNIT_ASSERT_EQUAL(checkouts, waits);
		CPPUNIT_ASSERT_EQUAL(checkouts, uses);
		CPPUNIT_ASSERT_EQUAL(checkouts, accepted);
		const PoolStatistics total = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(total.created), of(snapshot, "a").createTime.count() + of(snapshot, "b").createTime.count());
	}

	void testListenServesMetrics()
	{
		// prometheus-cpp's own HTTP server (bluetusk.metrics.listen) on a free loopback port.
		Fixture f;
		auto dataSource = f.create("a", "");
		dataSource->open().close();
		Poco::UInt16 port = 0;
		{
			Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
			port = probe.address().port();
		}
		f.exporter.listen("127.0.0.1:" + std::to_string(port));
		int status = 0;
		const std::string body = scrape(port, status);
		CPPUNIT_ASSERT_EQUAL(200, status);
		CPPUNIT_ASSERT_MESSAGE(body, body.find("db_client_connection_count{db_client_connection_pool_name=\"app@a:5432/app\",endpoint=\"a:5432\",db_client_connection_state=\"idle\"} 1") != std::string::npos);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(MetricsTest);
