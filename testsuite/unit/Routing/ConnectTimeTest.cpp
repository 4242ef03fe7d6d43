//
// ConnectTimeTest.cpp
//
// The opening times a host-order policy sees (HostCandidate::lastConnectMs, smoothedConnectMs): the
// router measures each new session, the registry smooths them as RFC 6298 smooths round-trip times, and a
// reused pooled session measures nothing.
//

#include "RoutingTestSupport.h"
#include "datasource/RoutingContextAccess.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const Poco::Timespan RECHECK(60, 0);

} // namespace


class ConnectTimeTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectTimeTest);
	CPPUNIT_TEST(testSmoothedLikeRfc6298);
	CPPUNIT_TEST(testRouterMeasuresNewSessions);
	CPPUNIT_TEST(testReusedSessionMeasuresNothing);
	CPPUNIT_TEST(testQueryTimesSmoothedLikeRfc6298);
	CPPUNIT_TEST(testPooledRefreshMeasuresQueryTime);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSmoothedLikeRfc6298()
	{
		HostStateRegistry registry;
		const BlueTuskHostEndpoint a("a", 5432);
		HostCandidate none = registry.candidate(a, 0, RECHECK);
		CPPUNIT_ASSERT_EQUAL(-1.0, none.lastConnectMs);
		CPPUNIT_ASSERT_EQUAL(-1.0, none.smoothedConnectMs);
		CPPUNIT_ASSERT_EQUAL(0u, none.connectsMeasured);
		registry.noteConnectTime(a, 80);
		registry.noteConnectTime(a, 16);
		HostCandidate two = registry.candidate(a, 0, RECHECK);
		CPPUNIT_ASSERT_EQUAL(16.0, two.lastConnectMs);
		CPPUNIT_ASSERT_EQUAL(72.0, two.smoothedConnectMs);   // 80 * 7/8 + 16/8
		CPPUNIT_ASSERT_EQUAL(2u, two.connectsMeasured);
		CPPUNIT_ASSERT(two.connectMeasuredAt.epochMicroseconds() > 0);
		// A measurement is no learned state: forgetting the states keeps it.
		registry.markDown(a, "refused");
		registry.forget({a});
		CPPUNIT_ASSERT_EQUAL(72.0, registry.candidate(a, 0, RECHECK).smoothedConnectMs);
		CPPUNIT_ASSERT(registry.candidate(a, 0, RECHECK).state == HostCandidate::UNKNOWN);
	}

	void testRouterMeasuresNewSessions()
	{
		FakeRoutingContext f;
		f.world->script("slow:5432", FakeHost::primary(60));
		f.world->script("quick:5432", FakeHost::primary());
		BlueTuskConnection::open(fakeConnectionString("slow", ""), f.context);
		BlueTuskConnection::open(fakeConnectionString("quick", ""), f.context);
		HostStateRegistry& states = Detail::hostStatesOf(f.context);
		const HostCandidate slow = states.candidate(BlueTuskHostEndpoint("slow", 5432), 0, RECHECK);
		const HostCandidate quick = states.candidate(BlueTuskHostEndpoint("quick", 5432), 1, RECHECK);
		CPPUNIT_ASSERT_EQUAL(1u, slow.connectsMeasured);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(slow.lastConnectMs), slow.lastConnectMs >= 60);
		CPPUNIT_ASSERT_EQUAL(slow.lastConnectMs, slow.smoothedConnectMs);
		CPPUNIT_ASSERT_EQUAL(1u, quick.connectsMeasured);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(quick.lastConnectMs), quick.lastConnectMs >= 0 && quick.lastConnectMs < slow.lastConnectMs);
	}

	void testReusedSessionMeasuresNothing()
	{
		FakeDataSource f;
		f.world->script("a:5432", FakeHost::primary());
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Target Session Attributes=primary"), f.context);
		for (int i = 0; i < 3; ++i) f.dataSource->open();   // one session, reused (each checkout probes the role)
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), f.stats("a").created);
		CPPUNIT_ASSERT_EQUAL(1u, Detail::hostStatesOf(f.context).candidate(BlueTuskHostEndpoint("a", 5432), 0, RECHECK).connectsMeasured);
	}

	void testQueryTimesSmoothedLikeRfc6298()
	{
		CPPUNIT_ASSERT_EQUAL(40.0, HostStateRegistry::smoothed(-1, 0, 40));
		CPPUNIT_ASSERT_EQUAL(36.0, HostStateRegistry::smoothed(40, 1, 8));   // 40 * 7/8 + 8/8
		HostStateRegistry registry;
		const BlueTuskHostEndpoint a("a", 5432);
		HostCandidate none = registry.candidate(a, 0, RECHECK);
		CPPUNIT_ASSERT_EQUAL(-1.0, none.lastQueryMs);
		CPPUNIT_ASSERT_EQUAL(-1.0, none.smoothedQueryMs);
		CPPUNIT_ASSERT_EQUAL(0u, none.queriesMeasured);
		registry.noteQueryTime(a, 40);
		registry.noteQueryTime(a, 8);
		registry.noteQueryTime(a, 4);
		registry.noteQueryTime(a, -1);   // no measurement: ignored
		HostCandidate three = registry.candidate(a, 0, RECHECK);
		CPPUNIT_ASSERT_EQUAL(4.0, three.lastQueryMs);
		CPPUNIT_ASSERT_EQUAL(32.0, three.smoothedQueryMs);   // 36 * 7/8 + 4/8
		CPPUNIT_ASSERT_EQUAL(3u, three.queriesMeasured);
		CPPUNIT_ASSERT(three.queryMeasuredAt.epochMicroseconds() > 0);
		// Query and connect times are separate, and both survive forgetting the learned states.
		CPPUNIT_ASSERT_EQUAL(0u, three.connectsMeasured);
		registry.forget({a});
		CPPUNIT_ASSERT_EQUAL(32.0, registry.candidate(a, 0, RECHECK).smoothedQueryMs);
	}

	void testPooledRefreshMeasuresQueryTime()
	{
		// A targeted checkout of a pooled session refreshes its role (a round trip) unless Role Recheck
		// Milliseconds trusts it: with 0, every reuse is one measured round trip; target any measures none.
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Target Session Attributes=primary;Role Recheck Milliseconds=0;Health Check Interval=0"), f.context);
		for (int i = 0; i < 3; ++i) f.dataSource->open().close();
		const HostCandidate a = Detail::hostStatesOf(f.context).candidate(BlueTuskHostEndpoint("a", 5432), 0, RECHECK);
		CPPUNIT_ASSERT_EQUAL(2u, a.queriesMeasured);
		CPPUNIT_ASSERT(a.lastQueryMs >= 0 && a.smoothedQueryMs >= 0);
		FakeDataSource any;
		any.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Health Check Interval=0"), any.context);
		for (int i = 0; i < 3; ++i) any.dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(0u, Detail::hostStatesOf(any.context).candidate(BlueTuskHostEndpoint("a", 5432), 0, RECHECK).queriesMeasured);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectTimeTest);
