//
// HighAvailabilityKeywordTest.cpp
//
// The keywords of doc/high-availability.md: Topology Source, Topology Refresh Interval, Health Check
// Interval, Max Connecting. Every spelling, the defaults, the limits, the round trip, and the passwords a
// topology source's location may carry kept out of toString() and of every message.
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class HighAvailabilityKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HighAvailabilityKeywordTest);
	CPPUNIT_TEST(testDefaults);
	CPPUNIT_TEST(testSpellings);
	CPPUNIT_TEST(testInvalidValues);
	CPPUNIT_TEST(testRoundTrip);
	CPPUNIT_TEST(testMonitorPasswordIsSecret);
	CPPUNIT_TEST(testUrlPasswordIsSecret);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaults()
	{
		const auto s = parse("Host=db-a;Username=u");
		CPPUNIT_ASSERT_EQUAL(std::string(), s.topologySource);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000), s.topologyRefresh.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000), s.healthCheckInterval.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(2, s.maxConnecting);
		const std::string text = s.toString();
		CPPUNIT_ASSERT(!contains(text, "Topology"));
		CPPUNIT_ASSERT(!contains(text, "Health Check"));
		CPPUNIT_ASSERT(!contains(text, "Max Connecting"));
	}

	void testSpellings()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("patroni:http://10.0.0.1:8008,http://10.0.0.2:8008"),
			parse("Host=db-a;Username=u;Topology Source=patroni:http://10.0.0.1:8008,http://10.0.0.2:8008").topologySource);
		CPPUNIT_ASSERT_EQUAL(std::string("patroni:http://h1:8008"), parse("host=db-a user=u topology_source=patroni:http://h1:8008").topologySource);
		CPPUNIT_ASSERT_EQUAL(std::string("patroni:http://h1:8008"),
			parse("postgresql://u@db-a/app?topology_source=patroni%3Ahttp%3A%2F%2Fh1%3A8008").topologySource);
		CPPUNIT_ASSERT_EQUAL(std::string("pg_auto_failover:host=m port=5432 dbname=pg_auto_failover"),
			parse("Host=db-a;Username=u;Topology Source=\"pg_auto_failover:host=m port=5432 dbname=pg_auto_failover\"").topologySource);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(250), parse("Host=db-a;Username=u;Topology Refresh Interval=0.25").topologyRefresh.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(5000), parse("host=db-a user=u topology_refresh_interval=5").topologyRefresh.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), parse("Host=db-a;Username=u;Health Check Interval=0").healthCheckInterval.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(500), parse("host=db-a user=u health_check_interval=0.5").healthCheckInterval.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(0, parse("Host=db-a;Username=u;Max Connecting=0").maxConnecting);
		CPPUNIT_ASSERT_EQUAL(8, parse("host=db-a user=u max_connecting=8").maxConnecting);
		CPPUNIT_ASSERT_EQUAL(3, parse("Host=db-a;Username=u;MaxConnecting=3").maxConnecting);
		// one keyword under two names: the last one wins
		CPPUNIT_ASSERT_EQUAL(4, parse("Host=db-a;Username=u;Max Connecting=9;max_connecting=4").maxConnecting);
		auto s = parse("Host=db-a;Username=u");
		s.set("maxConnecting", "6");
		CPPUNIT_ASSERT_EQUAL(6, s.maxConnecting);
		// an empty value means none
		CPPUNIT_ASSERT_EQUAL(std::string(), parse("Host=db-a;Username=u;Topology Source=").topologySource);
	}

	void testInvalidValues()
	{
		assertRejections("Host=db-a;Username=u;Password=sekrit-pw;", {
			{"Topology Source=http://h1:8008", {"Topology Source", "without a source name", "patroni:"}},
			{"Topology Source=:http://h1:8008", {"Topology Source", "no source name"}},
			{"Topology Source=patroni:", {"Topology Source", "patroni", "no location"}},
			{"Topology Source=pat roni:x", {"Topology Source", "only letters"}},
			{"Topology Refresh Interval=0.01", {"Topology Refresh Interval", "at least 0.05"}},
			{"Topology Refresh Interval=soon", {"Topology Refresh Interval"}},
			{"Health Check Interval=-1", {"Health Check Interval"}},
			{"Max Connecting=-1", {"Max Connecting", "negative"}},
			{"max_connecting=1.5", {"max_connecting", "not a whole number"}},
		});
	}

	void testRoundTrip()
	{
		const auto s = parse("Host=db-a;Username=u;Topology Source=patroni:http://h1:8008,http://h2:8008;"
			"Topology Refresh Interval=0.5;Health Check Interval=2;Max Connecting=0");
		const std::string text = s.toString();
		BLUETUSK_ASSERT_CONTAINS(text, "Topology Source=");
		BLUETUSK_ASSERT_CONTAINS(text, "Topology Refresh Interval=0.5");
		BLUETUSK_ASSERT_CONTAINS(text, "Health Check Interval=2");
		BLUETUSK_ASSERT_CONTAINS(text, "Max Connecting=0");
		CPPUNIT_ASSERT(parse(text) == s);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Topology Source=patroni:http://h1:8008,http://h2:8008;"
			"Topology Refresh Interval=0.5;Health Check Interval=2;Max Connecting=1") != s);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Topology Source=patroni:http://h1:8008;"
			"Topology Refresh Interval=0.5;Health Check Interval=2;Max Connecting=0") != s);
	}

	void testMonitorPasswordIsSecret()
	{
		const auto s = parse("Host=db-a;Username=u;Topology Source=\"pg_auto_failover:host=m user=autoctl password=monitor-pw-77 dbname=pg_auto_failover\"");
		CPPUNIT_ASSERT(contains(s.topologySource, "monitor-pw-77"));
		const std::string text = s.toString();
		CPPUNIT_ASSERT_MESSAGE(text, !contains(text, "monitor-pw-77"));
		BLUETUSK_ASSERT_CONTAINS(text, "pg_auto_failover:host=m");
		CPPUNIT_ASSERT(!contains(s.redactor().redact("could not read pg_auto_failover:host=m password=monitor-pw-77"), "monitor-pw-77"));
		const auto quoted = parse("Host=db-a;Username=u;Topology Source=\"pg_auto_failover:host=m password='pw with space' dbname=x\"");
		CPPUNIT_ASSERT(!contains(quoted.toString(), "pw with space"));
		const auto npgsql = parse("Host=db-a;Username=u;Topology Source=\"pg_auto_failover:Host=m;Password=semi-pw;Database=x\"");
		CPPUNIT_ASSERT(!contains(npgsql.toString(), "semi-pw"));
	}

	void testUrlPasswordIsSecret()
	{
		const auto s = parse("Host=db-a;Username=u;Topology Source=patroni:https://admin:rest-pw-42@h1:8008,http://h2:8008");
		const std::string text = s.toString();
		CPPUNIT_ASSERT_MESSAGE(text, !contains(text, "rest-pw-42"));
		BLUETUSK_ASSERT_CONTAINS(text, "h2:8008");
		CPPUNIT_ASSERT(!contains(s.redactor().redact("GET https://admin:rest-pw-42@h1:8008/cluster failed"), "rest-pw-42"));
		const auto monitorUrl = parse("Host=db-a;Username=u;Topology Source=pg_auto_failover:postgresql://autoctl:url-pw-9@m:5432/pg_auto_failover");
		CPPUNIT_ASSERT(!contains(monitorUrl.toString(), "url-pw-9"));
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(HighAvailabilityKeywordTest);
