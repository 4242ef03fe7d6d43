//
// SocketOptionKeywordTest.cpp
//
// Keepalive (libpq keepalives_idle, whole seconds) and Tcp User Timeout (libpq tcp_user_timeout, whole
// milliseconds): every spelling in the three forms, the defaults, the limits and the round trip.
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class SocketOptionKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SocketOptionKeywordTest);
	CPPUNIT_TEST(testDefaultsAreOff);
	CPPUNIT_TEST(testNpgsqlStyle);
	CPPUNIT_TEST(testLibpqAndUrlForms);
	CPPUNIT_TEST(testInvalidValues);
	CPPUNIT_TEST(testRoundTrip);
	CPPUNIT_TEST(testSet);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaultsAreOff()
	{
		const auto s = parse("Host=db-a;Username=u");
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), s.keepalive.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), s.tcpUserTimeout.totalMicroseconds());
		CPPUNIT_ASSERT(!contains(s.toString(), "Keepalive"));
		CPPUNIT_ASSERT(!contains(s.toString(), "Tcp User Timeout"));
	}

	void testNpgsqlStyle()
	{
		const auto s = parse("Host=db-a;Username=u;Keepalive=30;Tcp User Timeout=2500");
		CPPUNIT_ASSERT_EQUAL(30, s.keepalive.totalSeconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2500), s.tcpUserTimeout.totalMilliseconds());
		const auto compact = parse("Host=db-a;Username=u;keepalive=4;TcpUserTimeout=100");
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(4000000), compact.keepalive.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(100000), compact.tcpUserTimeout.totalMicroseconds());
	}

	void testLibpqAndUrlForms()
	{
		const auto kv = parse("host=db-a user=u keepalives_idle=12 tcp_user_timeout=1500");
		CPPUNIT_ASSERT_EQUAL(12, kv.keepalive.totalSeconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1500), kv.tcpUserTimeout.totalMilliseconds());
		const auto url = parse("postgresql://u@db-a:5432/app?keepalives_idle=7&tcp_user_timeout=900");
		CPPUNIT_ASSERT_EQUAL(7, url.keepalive.totalSeconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(900), url.tcpUserTimeout.totalMilliseconds());
		// the same keyword under two names: the last one wins
		const auto twice = parse("Host=db-a;Username=u;Keepalive=5;keepalives_idle=9");
		CPPUNIT_ASSERT_EQUAL(9, twice.keepalive.totalSeconds());
	}

	void testInvalidValues()
	{
		assertRejections("Host=db-a;Username=u;Password=sekrit-pw;", {
			{"Keepalive=-1", {"Keepalive", "negative"}},
			{"Keepalive=40000", {"Keepalive", "at most 32767"}},
			{"keepalives_idle=1.5", {"keepalives_idle", "not a whole number"}},
			{"Tcp User Timeout=soon", {"Tcp User Timeout", "not a whole number"}},
			{"tcp_user_timeout=99999999999", {"tcp_user_timeout", "too large"}},
		});
	}

	void testRoundTrip()
	{
		const auto s = parse("Host=db-a;Username=u;Keepalive=30;Tcp User Timeout=2500");
		const std::string text = s.toString();
		BLUETUSK_ASSERT_CONTAINS(text, "Keepalive=30;");
		BLUETUSK_ASSERT_CONTAINS(text, "Tcp User Timeout=2500;");
		CPPUNIT_ASSERT(parse(text) == s);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Keepalive=31;Tcp User Timeout=2500") != s);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Keepalive=30;Tcp User Timeout=2501") != s);
	}

	void testSet()
	{
		auto s = parse("Host=db-a;Username=u");
		s.set("keepalives_idle", "6");
		s.set(" Tcp User Timeout ", "750");
		CPPUNIT_ASSERT_EQUAL(6, s.keepalive.totalSeconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(750), s.tcpUserTimeout.totalMilliseconds());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(SocketOptionKeywordTest);
