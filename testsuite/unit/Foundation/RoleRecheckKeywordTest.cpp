//
// RoleRecheckKeywordTest.cpp
//
// Role Recheck Milliseconds (libpq-style role_recheck_ms): how long a pooled session's role, confirmed by
// its last ReadyForQuery, is trusted by a targeted checkout (doc/pooling.md, "Role refresh"). Every
// spelling in the three forms, the default, the limits and the round trip.
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class RoleRecheckKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RoleRecheckKeywordTest);
	CPPUNIT_TEST(testDefaultRechecksEveryCheckout);
	CPPUNIT_TEST(testSpellings);
	CPPUNIT_TEST(testInvalidValues);
	CPPUNIT_TEST(testRoundTrip);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaultRechecksEveryCheckout()
	{
		const auto s = parse("Host=db-a;Username=u");
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), s.roleRecheck.totalMicroseconds());
		CPPUNIT_ASSERT(!contains(s.toString(), "Role Recheck"));
	}

	void testSpellings()
	{
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(100000), parse("Host=db-a;Username=u;Role Recheck Milliseconds=100").roleRecheck.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(250), parse("Host=db-a;Username=u;rolerecheckmilliseconds=250").roleRecheck.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(40), parse("host=db-a user=u role_recheck_ms=40").roleRecheck.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(7), parse("postgresql://u@db-a:5432/app?role_recheck_ms=7").roleRecheck.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(3600000), parse("Host=db-a;Username=u;Role Recheck Milliseconds=3600000").roleRecheck.totalMilliseconds());
		// one keyword under two names: the last one wins
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(9), parse("Host=db-a;Username=u;Role Recheck Milliseconds=5;role_recheck_ms=9").roleRecheck.totalMilliseconds());
		auto s = parse("Host=db-a;Username=u");
		s.set("role_recheck_ms", "60");
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(60), s.roleRecheck.totalMilliseconds());
	}

	void testInvalidValues()
	{
		assertRejections("Host=db-a;Username=u;Password=sekrit-pw;", {
			{"Role Recheck Milliseconds=-1", {"Role Recheck Milliseconds", "negative"}},
			{"role_recheck_ms=0.5", {"role_recheck_ms", "not a whole number"}},
			{"Role Recheck Milliseconds=soon", {"Role Recheck Milliseconds"}},
			{"Role Recheck Milliseconds=3600001", {"Role Recheck Milliseconds", "at most 3600000"}},
		});
	}

	void testRoundTrip()
	{
		const auto s = parse("Host=db-a;Username=u;Role Recheck Milliseconds=100");
		const std::string text = s.toString();
		BLUETUSK_ASSERT_CONTAINS(text, "Role Recheck Milliseconds=100");
		CPPUNIT_ASSERT(parse(text) == s);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Role Recheck Milliseconds=101") != s);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(RoleRecheckKeywordTest);
