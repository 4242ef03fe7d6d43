//
// PolicyShareTest.cpp
//
// One site policy whose calls never return keeps to its share of the bounded-call slots (doc/plugin-calls.md,
// "Where and how policies are called"; PolicyCallBound::POLICY_SHARE), with
// libBlueTuskTestMisbehavingTargetSession.so (testsuite/plugins): "classify-stuck" blocks until released,
// and another site policy on another data source keeps working meanwhile, its leases all given back.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "PluginCallTestSupport.h"
#include "RoutingTestSupport.h"
#include "router/PolicyCallBound.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

void releaseStuck(bool release)
{
	pluginControl<void (*)(int)>(misbehavingTargetPath(), "bluetuskTestReleaseStuck")(release ? 1 : 0);
}


int stuckNow()
{
	return pluginControl<int (*)()>(misbehavingTargetPath(), "bluetuskTestStuckNow")();
}

} // namespace


class PolicyShareTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PolicyShareTest);
	CPPUNIT_TEST(testStuckPolicyKeepsToItsShare);
	CPPUNIT_TEST_SUITE_END();

public:
	void tearDown() override
	{
		releaseStuck(true);
	}

	void testStuckPolicyKeepsToItsShare()
	{
		// 20 checkouts at once whose classify() never returns, Checkout Timeout=1: the policy holds at most 4
		// slots (4 calls late), the other 16 are refused naming it. Before the share, all 16 slots went to it
		// and every other site policy's call then failed at once.
		LogCapture capture;
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 8000));
		releaseStuck(false);
		FakeDataSource stuck;
		stuck.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath() + ";Checkout Timeout=1"), stuck.context);
		FakeDataSource other;
		other.dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Plugin Path=" + misbehavingTargetPath() + ";Checkout Timeout=1"), other.context);
		const std::string policy = "target session policy \"classify-stuck\" (" + MISBEHAVING_TARGET_LIBRARY + ")";

		std::vector<std::string> messages(20);
		std::vector<std::thread> threads;
		for (int i = 0; i < 20; ++i)
			threads.emplace_back([&stuck, &messages, i]() { messages[i] = pluginFailure([&stuck]() { stuck.dataSource->open("classify-stuck"); }); });
		for (std::thread& thread: threads) thread.join();
		int late = 0;
		int refused = 0;
		for (const std::string& message: messages)
		{
			if (message.find(policy + " did not return from classify(primary, a:5432) within ") == 0) ++late;
			else if (message.find(policy + " was not called") == 0) ++refused;
			else CPPUNIT_FAIL(message);
		}
		CPPUNIT_ASSERT_EQUAL(Detail::PolicyCallBound::POLICY_SHARE, late);
		CPPUNIT_ASSERT_EQUAL(20 - Detail::PolicyCallBound::POLICY_SHARE, refused);
		CPPUNIT_ASSERT_EQUAL(Detail::PolicyCallBound::POLICY_SHARE, stuckNow());
		CPPUNIT_ASSERT_EQUAL(Detail::PolicyCallBound::POLICY_SHARE, Detail::PolicyCallBound::lateCalls());

		// Its next call is refused at once (not after waiting for its deadline), naming it as the culprit.
		Poco::Clock refusedIn;
		const std::string again = pluginFailure([&stuck]() { stuck.dataSource->open("classify-stuck"); });
		CPPUNIT_ASSERT_EQUAL(policy + " was not called: its 4 earlier calls have not returned by their deadline and still run "
			"(one policy holds at most 4 of the 16 slots at once; other policies keep theirs)", again);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(refusedIn.elapsed()), refusedIn.elapsed() < 900000);
		CPPUNIT_ASSERT(anyLineContains(capture, "BlueTusk.Routing: " + again));

		// Another site policy on another data source: every checkout succeeds, sequential and 12 at once
		// (the slots the stuck policy left), and no lease is lost.
		for (int i = 0; i < 20; ++i)
		{
			BlueTuskConnection lease = other.dataSource->open("counting");
			CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
			lease.close();
		}
		std::vector<std::string> failures(12);
		threads.clear();
		for (int i = 0; i < 12; ++i)
		{
			threads.emplace_back([&other, &failures, i]()
			{
				try
				{
					other.dataSource->open("counting").close();
				}
				catch (Poco::Exception& exc)
				{
					failures[i] = exc.displayText();
				}
			});
		}
		for (std::thread& thread: threads) thread.join();
		for (const std::string& failure: failures) CPPUNIT_ASSERT_EQUAL(std::string(), failure);
		const PoolStatistics otherStats = other.dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, otherStats.busy);
		CPPUNIT_ASSERT(otherStats.idle >= 1);
		CPPUNIT_ASSERT_EQUAL(otherStats.total, otherStats.idle);
		CPPUNIT_ASSERT_EQUAL(0, other.world->destroyedUnclosed.load());
		// The stuck policy's checkouts gave their session back too.
		CPPUNIT_ASSERT_EQUAL(0, stuck.dataSource->getPoolStatistics().busy);

		// Released, the late calls return and the policy is called again.
		releaseStuck(true);
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 5000));
		CPPUNIT_ASSERT_EQUAL(0, Detail::PolicyCallBound::lateCalls());
		stuck.dataSource->open("classify-stuck").close();
		CPPUNIT_ASSERT_EQUAL(0, stuck.dataSource->getPoolStatistics().busy);
		CPPUNIT_ASSERT_EQUAL(0, stuck.world->destroyedUnclosed.load());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PolicyShareTest);
