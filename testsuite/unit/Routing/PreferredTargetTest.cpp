//
// PreferredTargetTest.cpp
//
// Preferred targets and kept roles over the scripted fake SessionFactory (doc/pooling.md, "Preferred endpoints"
// and "Sessions of a role the data source cannot use"):
//   - a prefer-standby checkout that finds the standby only opening (Max Connecting opens in flight) waits
//     for it instead of taking the primary, also with an idle primary session at hand, in each host order,
//     and also when it already holds a fallback it opened itself (roles not known yet);
//   - it takes the fallback at once when the standby's pool is full, and after waiting when the open in
//     flight failed (without trying the down standby again) or Checkout Timeout ran out;
//   - a read-write data source opens one session on a standby to learn its role at warm-up and keeps none
//     there, closes the standby sessions its checkouts reject (with Failover Timeout: when the checkout
//     ends, the promotion watch having reused them), keeps what a lease of another target returns, and
//     its health monitor and rebalancing add nothing there.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Fixture: FakeDataSource
{
	void create(const std::string& hosts, const std::string& extra)
	{
		dataSource = BlueTuskDataSource::create(fakeConnectionString(hosts, extra + ";Health Check Interval=0"), context);
	}
};


long elapsedMs(const Poco::Clock& clock)
{
	return static_cast<long>(clock.elapsed() / 1000);
}


struct Background
	/// One checkout in a thread of its own, joined by the destructor.
{
	BlueTuskConnection lease;
	std::string error;
	std::thread thread;

	Background(BlueTuskDataSource::Ptr dataSource, TargetSessionAttributes target)
	{
		thread = std::thread([this, dataSource, target]
		{
			try
			{
				lease = dataSource->open(target);
			}
			catch (Poco::Exception& exc)
			{
				error = exc.displayText();
			}
		});
	}

	~Background()
	{
		if (thread.joinable()) thread.join();
	}

	std::string host()
	{
		if (thread.joinable()) thread.join();
		return error.empty() ? lease.connectedEndpoint().host() : "error: " + error;
	}
};

} // namespace


class PreferredTargetTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PreferredTargetTest);
	CPPUNIT_TEST(testWaitsForOpeningStandbySequential);
	CPPUNIT_TEST(testWaitsForOpeningStandbyRandom);
	CPPUNIT_TEST(testWaitsForOpeningStandbyParallel);
	CPPUNIT_TEST(testPreferPrimaryWaitsForOpeningPrimary);
	CPPUNIT_TEST(testHeldFallbackGivenUpForStandby);
	CPPUNIT_TEST(testFullStandbyFallsBackAtOnce);
	CPPUNIT_TEST(testFailedOpenFallsBackWithoutRetry);
	CPPUNIT_TEST(testCheckoutTimeoutEndsTheWait);
	CPPUNIT_TEST(testReadWriteWarmUpLearnsAndSkipsStandbys);
	CPPUNIT_TEST(testReadWriteBackgroundWarmUp);
	CPPUNIT_TEST(testRejectedStandbyClosed);
	CPPUNIT_TEST(testPromotionWatchReusesThenCloses);
	CPPUNIT_TEST(testOtherTargetLeasesStayPooled);
	CPPUNIT_TEST(testAnyTargetKeepsEveryRole);
	CPPUNIT_TEST_SUITE_END();

public:
	void testWaitsForOpeningStandbySequential()
	{
		waitsForOpeningStandby("Host Order=sequential");
	}

	void testWaitsForOpeningStandbyRandom()
	{
		waitsForOpeningStandby("Load Balance Hosts=true");
	}

	void testWaitsForOpeningStandbyParallel()
	{
		waitsForOpeningStandby("Host Order=parallel");
	}

	void testPreferPrimaryWaitsForOpeningPrimary()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary(200));
		f.world->script("b:5432", FakeHost::standby());
		f.create("b,a", "Max Connecting=1");
		BlueTuskConnection onPrimary = f.dataSource->open(TargetSessionAttributes::Primary);   // roles learned
		f.dataSource->open(TargetSessionAttributes::Standby).close();                        // an idle standby
		Background first(f.dataSource, TargetSessionAttributes::PreferPrimary);
		CPPUNIT_ASSERT(within([&f] { return f.stats("a").connecting == 1; }, 1000));
		Poco::Clock clock;
		BlueTuskConnection second = f.dataSource->open(TargetSessionAttributes::PreferPrimary);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("a"), first.host());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs(clock)), elapsedMs(clock) >= 190);   // its own 200 ms open, after the first
		CPPUNIT_ASSERT_EQUAL(1, f.stats("b").idle);   // the idle standby was not taken
	}

	void testHeldFallbackGivenUpForStandby()
	{
		// a's role is not known yet: the second checkout opens it itself (a primary: the fallback it holds),
		// finds the standby b only opening, waits for it, and gives the fallback back to its pool.
		Fixture f;
		f.world->script("a:5432", FakeHost::primary(0));
		f.world->script("b:5432", FakeHost::standby(300));
		f.create("b,a", "Max Connecting=1");
		BlueTuskConnection held = f.dataSource->open(TargetSessionAttributes::Standby);   // b: learned standby, busy
		CPPUNIT_ASSERT_EQUAL(0, f.world->opens("a:5432"));
		Background first(f.dataSource, TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT(within([&f] { return f.stats("b").connecting == 1; }, 1000));
		BlueTuskConnection second = f.dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("b"), first.host());
		const std::string log = describeLog(second.attemptLog());
		CPPUNIT_ASSERT_MESSAGE(log, log.find("a:5432=fallback retained") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(log, log.size() > 15 && log.compare(log.size() - 15, 15, "b:5432=accepted") == 0);
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("a:5432"));
		CPPUNIT_ASSERT_EQUAL(1, f.stats("a").idle);   // the fallback went back, idle
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testFullStandbyFallsBackAtOnce()
	{
		// At Maximum Pool Size the standby is full, not opening: the fallback is taken at once, as without
		// storm control.
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		f.create("a,b", "Max Connecting=1;Maximum Pool Size=1");
		BlueTuskConnection onStandby = f.dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), onStandby.connectedEndpoint().host());
		Poco::Clock clock;
		BlueTuskConnection fallback = f.dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), fallback.connectedEndpoint().host());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs(clock)), elapsedMs(clock) < 1000);   // no wait: a wait would last until Checkout Timeout (15 s)
	}

	void testFailedOpenFallsBackWithoutRetry()
	{
		// The standby goes away: the open in flight fails after 200 ms and marks it down; the waiting checkout
		// gets the freed slot, sees the standby down and takes the primary, without an open of its own there.
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		f.create("a,b", "Max Connecting=1");
		{
			BlueTuskConnection p = f.dataSource->open(TargetSessionAttributes::Primary);
			BlueTuskConnection s = f.dataSource->open(TargetSessionAttributes::Standby);
			s.session().close();   // broken: not pooled
		}
		FakeHost gone = FakeHost::refused();
		gone.delayMs = 200;
		f.world->script("b:5432", gone);
		const int opensBefore = f.world->opens("b:5432");
		Background first(f.dataSource, TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT(within([&f] { return f.stats("b").connecting == 1; }, 1000));
		Poco::Clock clock;
		BlueTuskConnection second = f.dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("a"), first.host());
		CPPUNIT_ASSERT_EQUAL(opensBefore + 1, f.world->opens("b:5432"));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs(clock)), elapsedMs(clock) < 1000);
	}

	void testCheckoutTimeoutEndsTheWait()
	{
		// A standby whose opens take long: the wait for it ends at Checkout Timeout with the fallback, not an
		// exception.
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		f.create("a,b", "Max Connecting=1;Checkout Timeout=0.4;Timeout=5");
		f.dataSource->open(TargetSessionAttributes::Primary).close();
		BlueTuskConnection s = f.dataSource->open(TargetSessionAttributes::Standby);
		f.world->script("b:5432", FakeHost::standby(1500));
		Background first(f.dataSource, TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT(within([&f] { return f.stats("b").connecting == 1; }, 1000));
		Poco::Clock clock;
		BlueTuskConnection second = f.dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs(clock)), elapsedMs(clock) >= 350 && elapsedMs(clock) < 1200);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), first.host());
	}

	void testReadWriteWarmUpLearnsAndSkipsStandbys()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.world->script("b:5432", FakeHost::primary());
		f.world->script("c:5432", FakeHost::standby());
		f.create("a,b,c", "Target Session Attributes=read-write;Minimum Pool Size=3");
		f.dataSource->warmUp();
		CPPUNIT_ASSERT_EQUAL(3, f.stats("b").idle);
		for (const char* standby: {"a", "c"})
		{
			const PoolStatistics s = f.stats(standby);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(s.toString(), 0, s.total);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(s.toString(), Poco::UInt64(1), s.created);   // one open told the role
			CPPUNIT_ASSERT_EQUAL_MESSAGE(s.toString(), Poco::UInt64(1), s.closed);
			CPPUNIT_ASSERT_EQUAL(ServerRole::Standby, s.lastKnownRole);
		}
		f.dataSource->warmUp();   // the role is known now: no open at all
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("a:5432"));
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("c:5432"));
		CPPUNIT_ASSERT_EQUAL(3, f.world->opens("b:5432"));
		CPPUNIT_ASSERT_EQUAL(3, f.world->totalLive());
	}

	void testReadWriteBackgroundWarmUp()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.world->script("b:5432", FakeHost::primary());
		f.create("a,b", "Target Session Attributes=primary;Minimum Pool Size=2");
		CPPUNIT_ASSERT(within([&f] { return f.stats("b").idle == 2; }, 5000));
		Poco::Thread::sleep(2200);   // two more pruning passes
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").total);
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("a:5432"));
		CPPUNIT_ASSERT_EQUAL(2, f.stats("b").total);
	}

	void testRejectedStandbyClosed()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.world->script("b:5432", FakeHost::primary());
		f.create("a,b", "Target Session Attributes=read-write");
		BlueTuskConnection lease = f.dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("a:5432=rejected,b:5432=accepted"), describeLog(lease.attemptLog()));
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), f.stats("a").closed);
		CPPUNIT_ASSERT_EQUAL(0, f.world->live("a:5432"));
	}

	void testPromotionWatchReusesThenCloses()
	{
		// With Failover Timeout the rejected standby session is asked again in each pass through its pool
		// (no new login per poll); when the checkout ends it is closed.
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.create("a", "Target Session Attributes=read-write;Failover Timeout=0.3");
		CPPUNIT_ASSERT_THROW(f.dataSource->open(), BlueTuskNoAcceptableHostException);
		CPPUNIT_ASSERT_EQUAL(1, f.world->opens("a:5432"));
		CPPUNIT_ASSERT(f.world->probes("a:5432") >= 3);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").total);
		CPPUNIT_ASSERT_EQUAL(0, f.world->live("a:5432"));
		// A promotion seen by the watch: the session it reused is the lease.
		f.world->script("a:5432", FakeHost::standby());
		Background open(f.dataSource, TargetSessionAttributes::ReadWrite);
		Poco::Thread::sleep(120);
		f.world->setRole("a:5432", ServerRole::Primary);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), open.host());
		CPPUNIT_ASSERT_EQUAL(2, f.world->opens("a:5432"));
	}

	void testOtherTargetLeasesStayPooled()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby());
		f.create("a,b", "Target Session Attributes=read-write");
		f.dataSource->open(TargetSessionAttributes::ReadOnly).close();
		CPPUNIT_ASSERT_EQUAL(1, f.stats("b").idle);   // handed out once, so kept for the next one
		BlueTuskConnection again = f.dataSource->open(TargetSessionAttributes::ReadOnly);
		CPPUNIT_ASSERT(again.attemptLog().back().reused);
	}

	void testAnyTargetKeepsEveryRole()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		f.world->script("b:5432", FakeHost::primary());
		f.create("a,b", "Minimum Pool Size=1");
		f.dataSource->warmUp();
		CPPUNIT_ASSERT_EQUAL(1, f.stats("a").idle);
		CPPUNIT_ASSERT_EQUAL(1, f.stats("b").idle);
		BlueTuskConnection lease = f.dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), lease.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(1, f.stats("a").idle);   // the data source's target (any) can use it
	}

private:
	void waitsForOpeningStandby(const std::string& order)
	{
		// The standby's one open slot (Max Connecting=1) is taken by a checkout for 200 ms; a second
		// prefer-standby checkout waits for the slot rather than take the idle primary session.
		Fixture f;
		f.world->script("a:5432", FakeHost::primary());
		f.world->script("b:5432", FakeHost::standby(200));
		f.create("a,b", order + ";Max Connecting=1");
		f.dataSource->open(TargetSessionAttributes::Primary).close();     // a: learned primary, one idle session
		BlueTuskConnection held = f.dataSource->open(TargetSessionAttributes::Standby);   // b: learned standby, busy
		Background first(f.dataSource, TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT(within([&f] { return f.stats("b").connecting == 1; }, 1000));
		Poco::Clock clock;
		BlueTuskConnection second = f.dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(order, std::string("b"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL_MESSAGE(order, std::string("b"), first.host());
		CPPUNIT_ASSERT_MESSAGE(order + ": " + std::to_string(elapsedMs(clock)), elapsedMs(clock) >= 190);   // its own 200 ms open, after the first one's
		CPPUNIT_ASSERT_EQUAL_MESSAGE(order, 1, f.stats("a").idle);   // the fallback was not taken
		CPPUNIT_ASSERT_EQUAL_MESSAGE(order, 0, f.stats("b").connecting);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(PreferredTargetTest);
