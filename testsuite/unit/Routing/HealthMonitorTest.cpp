//
// HealthMonitorTest.cpp
//
// The health monitor without a server (doc/high-availability.md, "The health monitor"): a watched DOWN
// state stays fresh past Host Recheck Seconds (counted watches, Host Recheck Seconds=0 still trusts
// nothing); over the scripted session factory, a refused endpoint is re-probed every round and marked up
// with its session adopted once it answers; the watcher threads end with the data source.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "router/HostStateRegistry.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <functional>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class HealthMonitorTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HealthMonitorTest);
	CPPUNIT_TEST(testWatchedDownStaysFresh);
	CPPUNIT_TEST(testRefusedEndpointReprobedAndAdopted);
	CPPUNIT_TEST_SUITE_END();

public:
	void testWatchedDownStaysFresh()
	{
		HostStateRegistry states;
		const BlueTuskHostEndpoint a("a", 5432);
		const Poco::Timespan recheck(0, 1000);   // 1 ms
		states.markDown(a, "refused");
		Poco::Thread::sleep(20);
		CPPUNIT_ASSERT(states.candidate(a, 0, recheck).state == HostCandidate::UNKNOWN);   // expired
		states.watch(a);
		states.watch(a);
		CPPUNIT_ASSERT(states.isWatched(a));
		CPPUNIT_ASSERT(states.candidate(a, 0, recheck).state == HostCandidate::DOWN);      // watched: fresh
		CPPUNIT_ASSERT(states.candidate(a, 0, 0).state == HostCandidate::UNKNOWN);         // recheck 0: never
		states.unwatch(a);
		CPPUNIT_ASSERT(states.candidate(a, 0, recheck).state == HostCandidate::DOWN);      // one watch left
		states.forget({a});
		CPPUNIT_ASSERT(states.isWatched(a));                                               // kept by forget()
		CPPUNIT_ASSERT(states.candidate(a, 0, recheck).state == HostCandidate::UNKNOWN);
		states.markDown(a, "refused");
		states.unwatch(a);
		CPPUNIT_ASSERT(!states.isWatched(a));
		Poco::Thread::sleep(20);
		CPPUNIT_ASSERT(states.candidate(a, 0, recheck).state == HostCandidate::UNKNOWN);   // expires again
		states.markUp(a, ServerRole::Standby);
		states.watch(a);
		Poco::Thread::sleep(20);
		CPPUNIT_ASSERT(states.candidate(a, 0, recheck).state == HostCandidate::UNKNOWN);   // only DOWN is kept
		states.unwatch(a);
	}

	void testRefusedEndpointReprobedAndAdopted()
	{
		const int threadsBefore = threadCount();
		auto world = std::make_shared<FakeWorld>();
		RoutingContext context(std::make_shared<FakeSessionFactory>(world));
		world->script("a:5432", FakeHost::refused());
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Health Check Interval=0.05"), context);
		CPPUNIT_ASSERT(threadCount() >= threadsBefore + 2);   // a watcher per endpoint (and the pruner)
		CPPUNIT_ASSERT_EQUAL(std::string("a:5432=failed,b:5432=accepted"), describeLog(dataSource->open().attemptLog()));
		// Re-probed in the background, round after round, while checkouts go to b without trying a.
		CPPUNIT_ASSERT(within([&] { return world->opens("a:5432") >= 3; }, 3000));
		{
			BlueTuskConnection held = dataSource->open();   // the idle session of b
			CPPUNIT_ASSERT_EQUAL(std::string("b:5432=accepted"), describeLog(held.attemptLog()));
			CPPUNIT_ASSERT_EQUAL(std::string("b:5432=accepted"), describeLog(dataSource->open().attemptLog()));   // a new one
		}

		world->script("a:5432", FakeHost::standby());
		CPPUNIT_ASSERT(within([&] { return context.hostState(BlueTuskHostEndpoint("a", 5432)).state == HostCandidate::UP; }, 3000));
		CPPUNIT_ASSERT(context.hostState(BlueTuskHostEndpoint("a", 5432)).role == ServerRole::Standby);
		CPPUNIT_ASSERT(within([&] { return dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("a", 5432)).idle == 1; }, 1000));
		CPPUNIT_ASSERT_EQUAL(1, world->connections("a:5432"));   // the probe's session, adopted
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("a", 5432)).lastKnownRole == ServerRole::Standby);
		Poco::Thread::sleep(200);
		CPPUNIT_ASSERT_EQUAL(1, world->connections("a:5432"));   // up: no more probes of its own

		dataSource.reset();
		CPPUNIT_ASSERT(within([&] { return threadCount() == threadsBefore; }, 2000));   // watchers joined, pruner gone
		CPPUNIT_ASSERT_EQUAL(0, world->totalLive());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(HealthMonitorTest);
