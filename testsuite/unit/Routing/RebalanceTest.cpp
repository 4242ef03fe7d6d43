//
// RebalanceTest.cpp
//
// Storm control's rebalancing (doc/high-availability.md, "Storm control", rule 4) over the scripted fake
// SessionFactory, run by the data source's own pruning thread (every second): with Host Order=random idle
// sessions move from a loaded standby to one that came back, until they differ by at most one; not with a
// sequential order, never a busy session, and not to a server of another role.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>
#include <functional>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Fixture: FakeDataSource
{
	void start(const std::string& order)
		/// a: primary, b: standby, c: down; six standby leases at once pile up on b, then come back.
	{
		world->script("a:5432", FakeHost::primary());
		world->script("b:5432", FakeHost::standby());
		world->script("c:5432", FakeHost::refused());
		dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b,c", "Host Order=" + order +
			";Target Session Attributes=standby;Maximum Pool Size=10;Host Recheck Seconds=1"
			// the rebalancer alone: the health monitor's re-probe of c would add the session it opened to c's pool
			";Health Check Interval=0"), context);
		dataSource->open(TargetSessionAttributes::Primary).close();   // a's role is known: no receiver for standbys
		std::vector<BlueTuskConnection> leases;
		for (int i = 0; i < 6; ++i) leases.push_back(dataSource->open());
	}
};

} // namespace


class RebalanceTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RebalanceTest);
	CPPUNIT_TEST(testRandomOrderBalancesStandbys);
	CPPUNIT_TEST(testSequentialOrderKeepsItsPreference);
	CPPUNIT_TEST(testBusySessionsStay);
	CPPUNIT_TEST(testAnotherRoleReceivesNothingForTheStandbys);
	CPPUNIT_TEST_SUITE_END();

public:
	void testRandomOrderBalancesStandbys()
	{
		Fixture f;
		f.start("random");
		CPPUNIT_ASSERT_EQUAL(6, f.stats("b").total);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("c").total);
		const int primaryTotal = f.stats("a").total;
		f.world->script("c:5432", FakeHost::standby());   // standby 2 is back
		const bool balanced = within([&]
		{
			const int b = f.stats("b").total;
			const int c = f.stats("c").total;
			return b + c == 6 && std::abs(b - c) <= 1;
		}, 15000, 50);
		CPPUNIT_ASSERT_MESSAGE(f.stats("b").toString() + " / " + f.stats("c").toString(), balanced);
		CPPUNIT_ASSERT_EQUAL(3, f.world->live("c:5432"));
		CPPUNIT_ASSERT_EQUAL(3, f.world->live("b:5432"));   // the moved sessions were closed, not leaked
		CPPUNIT_ASSERT_EQUAL(primaryTotal, f.stats("a").total);   // another role: never traded
		CPPUNIT_ASSERT_EQUAL(0, f.stats("c").connecting);
	}

	void testSequentialOrderKeepsItsPreference()
	{
		Fixture f;
		f.start("sequential");
		f.world->script("c:5432", FakeHost::standby());
		Poco::Thread::sleep(2600);   // two pruning passes and more than Host Recheck Seconds
		CPPUNIT_ASSERT_EQUAL(6, f.stats("b").total);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("c").total);
		CPPUNIT_ASSERT_EQUAL(0, f.world->connections("c:5432"));
	}

	void testBusySessionsStay()
	{
		Fixture f;
		f.start("random");
		std::vector<BlueTuskConnection> held;
		for (int i = 0; i < 6; ++i) held.push_back(f.dataSource->open());   // all six of b, busy
		CPPUNIT_ASSERT_EQUAL(6, f.stats("b").busy);
		f.world->script("c:5432", FakeHost::standby());
		Poco::Thread::sleep(2600);
		CPPUNIT_ASSERT_EQUAL(6, f.stats("b").busy);
		CPPUNIT_ASSERT_EQUAL(6, f.stats("b").total);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("c").total);   // nothing idle to move: the total is kept
	}

	void testAnotherRoleReceivesNothingForTheStandbys()
	{
		Fixture f;
		f.start("random");
		f.world->script("c:5432", FakeHost::primaryReadOnly());   // c comes back, but not as a standby
		const bool learned = within([&] { return f.stats("c").lastKnownRole == ServerRole::PrimaryReadOnly; }, 15000, 50);
		CPPUNIT_ASSERT(learned);
		Poco::Thread::sleep(1200);   // one more pass: c is known now, and not a standby
		CPPUNIT_ASSERT_EQUAL(6, f.stats("b").total);   // the donor kept its sessions
		// The one session that told c's role was closed: a standby data source keeps no session on a
		// primary (doc/pooling.md, "Sessions of a role the data source cannot use").
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), f.stats("c").created);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("c").total);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(RebalanceTest);
