//
// DataSourceTest.cpp
//
// BlueTuskDataSource checkouts (doc/pooling.md) over a scripted fake SessionFactory: idle before new,
// Accept before Fallback, the role refresh of pooled sessions, overflow and FIFO waiting with one deadline,
// leases returning to their owning pool, parallel race losers joining their pools, draining.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include "datasource/RoutingContextAccess.h"
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Fixture: FakeRoutingContext
{

	BlueTuskDataSource::Ptr create(const std::string& hosts, const std::string& extra = "")
	{
		return BlueTuskDataSource::create(fakeConnectionString(hosts, extra), context);
	}
};

} // namespace


class DataSourceTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DataSourceTest);
	CPPUNIT_TEST(testStatisticsCoverEveryEndpoint);
	CPPUNIT_TEST(testLeaseReturnsAndIsReused);
	CPPUNIT_TEST(testIdleBeforeNew);
	CPPUNIT_TEST(testTargetByName);
	CPPUNIT_TEST(testAcceptBeforeFallback);
	CPPUNIT_TEST(testIdleRoleRefreshed);
	CPPUNIT_TEST(testPromotedStandbyNoticed);
	CPPUNIT_TEST(testTargetsShareEndpointPools);
	CPPUNIT_TEST(testOverflowToNextEndpoint);
	CPPUNIT_TEST(testWaitsForCapacity);
	CPPUNIT_TEST(testCheckoutTimeout);
	CPPUNIT_TEST(testCheckoutTimeoutZeroMeansNoLimit);
	CPPUNIT_TEST(testBrokenLeaseDiscarded);
	CPPUNIT_TEST(testDrainEndpoint);
	CPPUNIT_TEST(testParallelLosersJoinPools);
	CPPUNIT_TEST(testPoolingOff);
	CPPUNIT_TEST(testUnknownEvictionPolicy);
	CPPUNIT_TEST(testLeaseOutlivesDataSource);
	CPPUNIT_TEST(testNoAcceptableHostPooled);
	CPPUNIT_TEST(testWarmUp);
	CPPUNIT_TEST(testBackgroundWarmUp);
	CPPUNIT_TEST(testDownEndpointTriedLast);
	CPPUNIT_TEST(testIdleFastPathFollowsHostStates);
	CPPUNIT_TEST_SUITE_END();

public:
	void testStatisticsCoverEveryEndpoint()
	{
		Fixture f;
		auto dataSource = f.create("a,b,c", "Maximum Pool Size=20");
		auto hosts = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), hosts.size());
		CPPUNIT_ASSERT_EQUAL(20, hosts.at(BlueTuskHostEndpoint("b", 5432)).maxSize);
		CPPUNIT_ASSERT_EQUAL(60, dataSource->getPoolStatistics().maxSize);
		CPPUNIT_ASSERT_EQUAL(0, dataSource->getPoolStatistics().total);
	}

	void testLeaseReturnsAndIsReused()
	{
		Fixture f;
		auto dataSource = f.create("a,b");
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT(lease.isPooled());
			CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
			CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").busy);
		}
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").idle);
		BlueTuskConnection again = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("a:5432"));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), again.attemptLog().size());
		CPPUNIT_ASSERT(again.attemptLog()[0].reused);
		CPPUNIT_ASSERT_EQUAL(0, f.world->probes("a:5432")); // target any: no refresh
	}

	void testIdleBeforeNew()
	{
		Fixture f;
		auto dataSource = f.create("a,b");
		const BlueTuskHostEndpoint a("a", 5432);
		dataSource->drain(a);
		dataSource->open().close(); // a drained: the session is opened on b and returns there
		dataSource->resume(a);
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "b").idle);
		// a (first in order) has room but no idle session; the idle session on b wins.
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
		CPPUNIT_ASSERT(lease.attemptLog().back().reused);
		CPPUNIT_ASSERT_EQUAL(0, f.world->opens("a:5432"));
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("b:5432"));
	}

	void testAcceptBeforeFallback()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		auto dataSource = f.create("a,b");
		{
			BlueTuskConnection onA = dataSource->open(TargetSessionAttributes::Primary);
			CPPUNIT_ASSERT_EQUAL(std::string("a"), onA.connectedEndpoint().host());
		}
		// a has an idle primary session; for prefer-standby the standby b (new) beats the idle fallback.
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("a:5432"));
	}

	void testTargetByName()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		auto dataSource = f.create("a,b");
		{
			BlueTuskConnection lease = dataSource->open("Read-Only");
			CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
			CPPUNIT_ASSERT(lease.role() == ServerRole::Standby);
		}
		try
		{
			dataSource->open("nearest");
			CPPUNIT_FAIL("expected BlueTuskConnectionStringException");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("target") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("prefer-standby") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(0, hostStatistics(dataSource, "a").busy + hostStatistics(dataSource, "b").busy);
	}

	void testIdleRoleRefreshed()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		auto dataSource = f.create("a");
		dataSource->open(TargetSessionAttributes::Standby).close();
		int probesBefore = f.world->probes("a:5432");
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(probesBefore + 1, f.world->probes("a:5432"));
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("a:5432"));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), toString(hostStatistics(dataSource, "a").lastKnownRole));
	}

	void testPromotedStandbyNoticed()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		auto dataSource = f.create("a,b");
		{
			BlueTuskConnection p = dataSource->open(TargetSessionAttributes::Primary);
			BlueTuskConnection s = dataSource->open(TargetSessionAttributes::Standby);
			CPPUNIT_ASSERT_EQUAL(std::string("a"), p.connectedEndpoint().host());
			CPPUNIT_ASSERT_EQUAL(std::string("b"), s.connectedEndpoint().host());
		}
		// Failover while the sessions sit idle: a becomes a standby, b is promoted.
		f.world->setRole("a:5432", ServerRole::Standby);
		f.world->setRole("b:5432", ServerRole::Primary);
		for (int i = 0; i < 3; ++i)
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Primary);
			CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
			CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(lease.role()));
		}
		// The session on a was healthy: it went back to idle, and a's learned role is standby now.
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), toString(hostStatistics(dataSource, "a").lastKnownRole));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(hostStatistics(dataSource, "b").lastKnownRole));
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("a:5432"));
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("b:5432"));
	}

	void testTargetsShareEndpointPools()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		auto dataSource = f.create("a,b", "Maximum Pool Size=2");
		BlueTuskConnection any = dataSource->open(TargetSessionAttributes::Any);
		BlueTuskConnection rw = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), rw.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "a").total); // one pool for a, shared by both targets
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "a").busy);
	}

	void testOverflowToNextEndpoint()
	{
		Fixture f;
		auto dataSource = f.create("a,b,c", "Maximum Pool Size=2");
		std::vector<BlueTuskConnection> leases;
		for (int i = 0; i < 6; ++i) leases.push_back(dataSource->open());
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "a").busy);
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "b").busy);
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "c").busy);
		CPPUNIT_ASSERT_EQUAL(6, dataSource->getPoolStatistics().total);
	}

	void testWaitsForCapacity()
	{
		Fixture f;
		auto dataSource = f.create("a,b", "Maximum Pool Size=1;Checkout Timeout=5");
		BlueTuskConnection one = dataSource->open();
		BlueTuskConnection two = dataSource->open();
		std::thread returner([&two]()
		{
			Poco::Thread::sleep(150);
			two.close();
		});
		Poco::Clock start;
		BlueTuskConnection three = dataSource->open();
		returner.join();
		CPPUNIT_ASSERT(start.elapsed() >= 140000);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), three.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(2, f.world->totalOpens()); // the returned session was handed over
	}

	void testCheckoutTimeout()
	{
		Fixture f;
		auto dataSource = f.create("a", "Maximum Pool Size=1;Checkout Timeout=0.3");
		BlueTuskConnection one = dataSource->open();
		Poco::Clock start;
		try
		{
			dataSource->open();
			CPPUNIT_FAIL("expected BlueTuskPoolTimeoutException");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			CPPUNIT_ASSERT(start.elapsed() >= 290000 && start.elapsed() < 1500000);
			CPPUNIT_ASSERT(exc.message().find("a:5432") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), hostStatistics(dataSource, "a").checkoutTimeouts);
	}

	void testCheckoutTimeoutZeroMeansNoLimit()
	{
		// 0 waited nothing and failed at once; like every other timeout it is "no limit".
		Fixture f;
		auto dataSource = f.create("a", "Maximum Pool Size=1;Checkout Timeout=0");
		BlueTuskConnection one = dataSource->open();
		std::thread returner([&one]()
		{
			Poco::Thread::sleep(600);
			one.close();
		});
		Poco::Clock start;
		BlueTuskConnection two = dataSource->open();
		returner.join();
		CPPUNIT_ASSERT_MESSAGE(std::to_string(start.elapsed()), start.elapsed() >= 590000 && start.elapsed() < 3000000);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), two.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), hostStatistics(dataSource, "a").checkoutTimeouts);
		CPPUNIT_ASSERT_EQUAL(1, f.world->totalOpens());
	}

	void testBrokenLeaseDiscarded()
	{
		Fixture f;
		auto dataSource = f.create("a");
		{
			BlueTuskConnection lease = dataSource->open();
			lease.session().close(); // the connection is lost while leased
		}
		PoolStatistics a = hostStatistics(dataSource, "a");
		CPPUNIT_ASSERT_EQUAL(0, a.total);
		CPPUNIT_ASSERT_EQUAL(0, a.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), a.closed);
	}

	void testDrainEndpoint()
	{
		Fixture f;
		auto dataSource = f.create("a,b");
		dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").idle);
		dataSource->drain(BlueTuskHostEndpoint("a", 5432));
		CPPUNIT_ASSERT_EQUAL(0, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT(hostStatistics(dataSource, "a").draining);
		for (int i = 0; i < 3; ++i)
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
		}
		CPPUNIT_ASSERT_THROW(dataSource->drain(BlueTuskHostEndpoint("z", 5432)), Poco::NotFoundException);
	}

	void testParallelLosersJoinPools()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary(40));
		f.world->script("b:5432", FakeHost::primary(300));
		f.world->script("c:5432", FakeHost::standby(0));
		auto dataSource = f.create("a,b,c", "Host Order=parallel");
		int threadsBefore = threadCount();
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Primary);
		CPPUNIT_ASSERT_EQUAL(threadsBefore, settledThreadCount(threadsBefore));   // every racing thread joined
		CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
		// The standby (rejected) is healthy and joins its pool; b was cancelled.
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "c").idle);
		CPPUNIT_ASSERT_EQUAL(0, hostStatistics(dataSource, "b").total);
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), toString(hostStatistics(dataSource, "c").lastKnownRole));
		// A standby checkout now takes the idle session on c.
		BlueTuskConnection standby = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("c"), standby.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("c:5432"));
	}

	void testPoolingOff()
	{
		Fixture f;
		auto dataSource = f.create("a", "Pooling=false");
		dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(0, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
	}

	void testUnknownEvictionPolicy()
	{
		Fixture f;
		try
		{
			f.create("a", "Eviction Policy=lru");
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("no eviction policy named \"lru\"; available: ") == 0);
			CPPUNIT_ASSERT(exc.message().find("standard") != std::string::npos);
		}
	}

	void testLeaseOutlivesDataSource()
	{
		Fixture f;
		auto dataSource = f.create("a");
		BlueTuskConnection lease = dataSource->open();
		dataSource.reset();
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), lease.executeSimple("SELECT 1").front().commandTag);
		lease.close();
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
	}

	void testNoAcceptableHostPooled()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.world->script("b:5432", FakeHost::refused());
		auto dataSource = f.create("a,b");
		try
		{
			dataSource->open(TargetSessionAttributes::Primary);
			CPPUNIT_FAIL("expected BlueTuskNoAcceptableHostException");
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("no acceptable host for target primary (Host Order=sequential): "
				"a:5432: standby, target primary; b:5432: refused"), exc.message());
		}
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").idle); // the healthy standby session stays pooled
		// A second primary checkout refreshes the idle standby instead of opening a new session.
		CPPUNIT_ASSERT_THROW(dataSource->open(TargetSessionAttributes::Primary), BlueTuskNoAcceptableHostException);
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("a:5432"));
	}

	void testWarmUp()
	{
		Fixture f;
		auto dataSource = f.create("a,b", "Minimum Pool Size=2");
		dataSource->warmUp();
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "b").idle);
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT(lease.attemptLog().back().reused);
		CPPUNIT_ASSERT_EQUAL(4, f.world->totalOpens());
	}

	void testBackgroundWarmUp()
	{
		Fixture f;
		auto dataSource = f.create("a,b", "Minimum Pool Size=1");
		Poco::Clock start;
		while ((hostStatistics(dataSource, "a").idle < 1 || hostStatistics(dataSource, "b").idle < 1) && start.elapsed() < 5000000) Poco::Thread::sleep(20);
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "b").idle);
	}

	void testDownEndpointTriedLast()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		auto dataSource = f.create("a,b");
		dataSource->open().close();
		BlueTuskConnection second = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::string("b"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("a:5432")); // the idle session on b came first
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), hostStatistics(dataSource, "a").connectFailures);
	}

	void testIdleFastPathFollowsHostStates()
	{
		// The idle fast path (target any) skips an endpoint the routing context learned is DOWN, for Host Recheck
		// Seconds, and notices every change of the host states (its per-endpoint cache is per generation).
		Fixture f;
		auto dataSource = f.create("a,b", "Maximum Pool Size=1");
		{
			BlueTuskConnection first = dataSource->open();
			BlueTuskConnection second = dataSource->open();
			CPPUNIT_ASSERT_EQUAL(std::string("a"), first.connectedEndpoint().host());
			CPPUNIT_ASSERT_EQUAL(std::string("b"), second.connectedEndpoint().host());
		}
		auto hostOfNextLease = [&dataSource]() { return dataSource->open().connectedEndpoint().host(); };
		CPPUNIT_ASSERT_EQUAL(std::string("a"), hostOfNextLease());
		const BlueTuskHostEndpoint a("a", 5432);
		BlueTusk::Detail::hostStatesOf(f.context).markDown(a, "refused");
		CPPUNIT_ASSERT_EQUAL(std::string("b"), hostOfNextLease());
		CPPUNIT_ASSERT_EQUAL(std::string("b"), hostOfNextLease());   // cached, same answer
		BlueTusk::Detail::hostStatesOf(f.context).markUp(a, ServerRole::Unknown);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), hostOfNextLease());
		BlueTusk::Detail::hostStatesOf(f.context).markDown(a, "timed out");
		CPPUNIT_ASSERT_EQUAL(std::string("b"), hostOfNextLease());
		BlueTusk::Detail::hostStatesOf(f.context).forget({a});
		CPPUNIT_ASSERT_EQUAL(std::string("a"), hostOfNextLease());
		CPPUNIT_ASSERT_EQUAL(2, dataSource->getPoolStatistics().total);   // idle sessions only, nothing new

		// With Host Recheck Seconds=0 a learned state is never fresh: the host-list order stands.
		auto noRecheck = f.create("a,b", "Maximum Pool Size=1;Host Recheck Seconds=0");
		{
			BlueTuskConnection first = noRecheck->open();
			BlueTuskConnection second = noRecheck->open();
		}
		BlueTusk::Detail::hostStatesOf(f.context).markDown(a, "refused");
		CPPUNIT_ASSERT_EQUAL(std::string("a"), noRecheck->open().connectedEndpoint().host());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DataSourceTest);
