//
// FrozenLeaderTest.cpp
//
// Scenario (d), a frozen leader: the leader's machine hangs (SIGSTOP of its Patroni and PostgreSQL) and is thawed once
// BlueTusk writes on the new primary. Between the thaw and Patroni demoting it, the deposed primary still
// claims primary; before the split-brain guard (doc/high-availability.md) BlueTusk routed 33 writes to it in
// one run. Now no write may land there. Its own label ("ha-frozen") and a fresh Patroni cluster (scripts/test
// recreates one for it): run after the other scenarios on the same cluster, or twice on one, the thawed
// member's rejoin can still be in progress and the promotion watch then names the wrong member.
//
// Run: scripts/patroni destroy; scripts/patroni start; ctest --test-dir build -L ha-frozen --output-on-failure -V
//

#include "FailoverScenario.h"
#include "HaCluster.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;


class FrozenLeaderTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(FrozenLeaderTest);
	CPPUNIT_TEST(testFrozenLeader);
	CPPUNIT_TEST_SUITE_END();

public:
	void testFrozenLeader()
	{
		// (d) the leader's machine hangs (SIGSTOP of Patroni and PostgreSQL) and is thawed once BlueTusk
		// writes on the new primary. Command Timeout bounds the statements stuck on the frozen server.
		Scenario scenario;
		scenario.name = "frozen";
		scenario.settings = ";Command Timeout=2";
		scenario.fault = [](int leader) { CPPUNIT_ASSERT_EQUAL(0, HaCluster::patroni().run("freeze-node " + std::to_string(leader))); };
		scenario.afterFailover = [](int leader) { CPPUNIT_ASSERT_EQUAL(0, HaCluster::patroni().run("thaw-node " + std::to_string(leader))); };
		scenario.restore = "thaw-node %";
		const Outcome outcome = runScenario(scenario);
		// An open that began a connect to the frozen host just before the promotion pays that host's Timeout
		// (3 s) before it reaches the new primary: the bound is Timeout plus a second.
		CPPUNIT_ASSERT_MESSAGE("first write within Timeout + 1 s of the promotion", outcome.promotionToFirstWriteMs < 4000);
		CPPUNIT_ASSERT_EQUAL(0L, outcome.writesOnDeposed);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(FrozenLeaderTest);
