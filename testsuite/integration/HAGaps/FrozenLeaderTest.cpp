//
// FrozenLeaderTest.cpp
//
// Scenario (d), a frozen leader: the leader's machine hangs (SIGSTOP of its Patroni and PostgreSQL) and is thawed once
// BlueTusk writes on the new primary. This suite states what BlueTusk does NOT do yet, so it has its own
// label ("ha-gaps") and scripts/test does not run it: between the thaw and Patroni demoting it, the
// deposed primary still accepts writes from the sessions BlueTusk routes to it (measured: 33 writes in one
// run), because the split-brain guard (doc/high-availability.md) (a primary on an older timeline is not
// handed out for write targets) is not implemented. It passes once that guard exists.
//
// Run: scripts/patroni start; ctest --test-dir build -L ha-gaps --output-on-failure -V
//

#include "FailoverScenario.h"
#include "PatroniCluster.h"
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
		scenario.fault = [](int leader) { CPPUNIT_ASSERT_EQUAL(0, PatroniCluster::instance().run("freeze-node " + std::to_string(leader))); };
		scenario.afterFailover = [](int leader) { CPPUNIT_ASSERT_EQUAL(0, PatroniCluster::instance().run("thaw-node " + std::to_string(leader))); };
		scenario.restore = "thaw-node %";
		const Outcome outcome = runScenario(scenario);
		CPPUNIT_ASSERT_MESSAGE("first write within 3 s of the promotion", outcome.promotionToFirstWriteMs < 3000);
		CPPUNIT_ASSERT_EQUAL(0L, outcome.writesOnDeposed);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(FrozenLeaderTest);
