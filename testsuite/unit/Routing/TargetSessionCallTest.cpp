//
// TargetSessionCallTest.cpp
//
// A site target-session policy that throws (doc/plugin-calls.md, "Where and how policies are called"), with
// libBlueTuskTestMisbehavingTargetSession.so (testsuite/plugins): whatever its needsRole() or classify()
// throws (a std::exception, an int), through a direct open and a pooled checkout (sequential and a
// parallel race), the caller gets a BlueTuskPluginException naming the family, the policy and the library,
// the failure is logged, and no lease or session is lost.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "PluginCallTestSupport.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <dlfcn.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

void sleepClassifyNext(int calls, int milliseconds)
	/// The next calls of "classify-sleepy"'s classify(role, endpoint) sleep (the plugin's extern "C" control).
{
	pluginControl<void (*)(int, int)>(misbehavingTargetPath(), "bluetuskTestSleepClassifyNext")(calls, milliseconds);
}


std::string expected(const std::string& policy, const std::string& call, const std::string& thrown)
{
	return "target session policy \"" + policy + "\" (" + MISBEHAVING_TARGET_LIBRARY + ") failed in " + call + ": " + thrown;
}


const std::string STD_THROWN = "std::exception: classify broke on purpose";
const std::string INT_THROWN = "an exception that is neither a Poco::Exception nor a std::exception";

} // namespace


class TargetSessionCallTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TargetSessionCallTest);
	CPPUNIT_TEST(testPooledCheckoutThrowingClassify);
	CPPUNIT_TEST(testThrownTextRedacted);
	CPPUNIT_TEST(testPooledCheckoutThrowingInt);
	CPPUNIT_TEST(testOwnTargetThrowingClassify);
	CPPUNIT_TEST(testParallelRaceThrowingClassify);
	CPPUNIT_TEST(testDirectOpenThrowingClassify);
	CPPUNIT_TEST(testThrowingNeedsRole);
	CPPUNIT_TEST(testSlowClassifyCutOffAtCheckoutDeadline);
	CPPUNIT_TEST(testOneThrowingAnswerLeavesTheOthers);
	CPPUNIT_TEST(testThrowingAnswerOnlyCandidateIsTheCause);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPooledCheckoutThrowingClassify()
	{
		// First checkout: a's session is opened and probed, classify() throws while the router holds it: it
		// goes back to its pool and a is not acceptable for the pass; so is b, then (its classify() throws
		// too): the checkout fails with the first failure. Second: the roles are known, classify() throws
		// for both while ordering: nothing held, nothing opened.
		LogCapture capture;
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Plugin Path=" + misbehavingTargetPath()), f.context);
		const std::string message = expected("classify-throwing", "classify(primary, a:5432)", STD_THROWN);
		CPPUNIT_ASSERT_EQUAL(message, pluginFailure([&f]() { f.dataSource->open("classify-throwing"); }));
		CPPUNIT_ASSERT_EQUAL(2, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(message, pluginFailure([&f]() { f.dataSource->open("classify-throwing"); }));
		CPPUNIT_ASSERT_EQUAL(2, f.world->opened.load());
		CPPUNIT_ASSERT(anyLineContains(capture, "BlueTusk.Routing: " + message));
		const PoolStatistics stats = f.dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		CPPUNIT_ASSERT_EQUAL(2, stats.idle);   // the healthy sessions stayed pooled
		// The data source goes on with a standard target on the same session.
		BlueTuskConnection lease = f.dataSource->open("primary");
		CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
		lease.close();
		CPPUNIT_ASSERT_EQUAL(2, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testThrownTextRedacted()
	{
		// The policy's own text holds the password: neither the exception nor the log line may.
		LogCapture capture;
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath()), f.context);
		const std::string message = pluginFailure([&f]() { f.dataSource->open("classify-leaking"); });
		CPPUNIT_ASSERT_MESSAGE(message, message.find("failed in classify(primary, a:5432)") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("password ***") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(testPassword()) == std::string::npos);
		CPPUNIT_ASSERT(anyLineContains(capture, "failed in classify(primary, a:5432)"));
		CPPUNIT_ASSERT(!anyLineContains(capture, testPassword()));
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
	}

	void testPooledCheckoutThrowingInt()
	{
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath()), f.context);
		for (int i = 0; i < 3; ++i)
		{
			CPPUNIT_ASSERT_EQUAL(expected("classify-throwing-int", "classify(primary, a:5432)", INT_THROWN),
				pluginFailure([&f]() { f.dataSource->open("classify-throwing-int"); }));
		}
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
		CPPUNIT_ASSERT_EQUAL(1, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testOwnTargetThrowingClassify()
	{
		// The data source's own target (Target Session Attributes=<site name>): created (classify(role)
		// answers), every open() fails with the plugin's exception, no lease is lost.
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Plugin Path=" + misbehavingTargetPath() +
			";Target Session Attributes=classify-throwing;Maximum Pool Size=2"), f.context);
		for (int i = 0; i < 5; ++i)
		{
			CPPUNIT_ASSERT_EQUAL(expected("classify-throwing", "classify(primary, a:5432)", STD_THROWN),
				pluginFailure([&f]() { f.dataSource->open(); }));
		}
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
		CPPUNIT_ASSERT_EQUAL(2, f.world->opened.load());   // a and b, each taken as not acceptable
	}

	void testParallelRaceThrowingClassify()
	{
		// Host Order=parallel: both sessions open at once; the first classified throws, the other one
		// (finished or not) goes back to its pool too.
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Plugin Path=" + misbehavingTargetPath() +
			";Host Order=parallel"), f.context);
		const std::string message = pluginFailure([&f]() { f.dataSource->open("classify-throwing"); });
		CPPUNIT_ASSERT_MESSAGE(message, message.find("target session policy \"classify-throwing\" (" + MISBEHAVING_TARGET_LIBRARY + ") failed in classify(primary, ") == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(STD_THROWN) != std::string::npos);
		CPPUNIT_ASSERT(within([&f]() { return f.dataSource->getPoolStatistics().busy == 0; }));
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("b").busy);
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testDirectOpenThrowingClassify()
	{
		// BlueTuskConnection::open() (no pool): the same exception; the session it opened is closed.
		LogCapture capture;
		FakeRoutingContext f;
		const std::string connectionString = fakeConnectionString("a,b", "Plugin Path=" + misbehavingTargetPath() +
			";Target Session Attributes=classify-throwing");
		const std::string message = expected("classify-throwing", "classify(primary, a:5432)", STD_THROWN);
		CPPUNIT_ASSERT_EQUAL(message, pluginFailure([&]() { BlueTuskConnection::open(connectionString, f.context); }));
		CPPUNIT_ASSERT(anyLineContains(capture, "BlueTusk.Routing: " + message));
		CPPUNIT_ASSERT_EQUAL(expected("classify-throwing-int", "classify(primary, a:5432)", INT_THROWN),
			pluginFailure([&]() { BlueTuskConnection::open(fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath() +
				";Target Session Attributes=classify-throwing-int"), f.context); }));
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testThrowingNeedsRole()
	{
		// needsRole() is asked before anything is held: per checkout, through a direct open, and at a data
		// source's creation when it is the data source's own target.
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath()), f.context);
		const std::string message = expected("needs-role-throwing", "needsRole()", "std::exception: needsRole broke on purpose");
		CPPUNIT_ASSERT_EQUAL(message, pluginFailure([&f]() { f.dataSource->open("needs-role-throwing"); }));
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
		const std::string own = fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath() + ";Target Session Attributes=needs-role-throwing");
		CPPUNIT_ASSERT_EQUAL(message, pluginFailure([&]() { BlueTuskConnection::open(own, f.context); }));
		const std::string created = pluginFailure([&]() { BlueTuskDataSource::create(own, f.context); });
		CPPUNIT_ASSERT_MESSAGE(created, created.find(message) != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive() - f.dataSource->getPoolStatistics().total);
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testOneThrowingAnswerLeavesTheOthers()
	{
		// classify() throws for b only, b written first: b is not acceptable for the pass (logged once per
		// pass, naming the policy and its library), a is, and the checkout succeeds there. First checkout: b
		// opened, probed and asked alone; second: b and a asked in one batch. Before, b's throw failed both.
		LogCapture capture;
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("b,a", "Plugin Path=" + misbehavingTargetPath()), f.context);
		const std::string failure = expected("classify-throwing-on-b", "classify(primary, b:5432)", "std::exception: classify broke on purpose for b");
		for (int i = 0; i < 2; ++i)
		{
			BlueTuskConnection lease = f.dataSource->open("classify-throwing-on-b");
			CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
			lease.close();
			CPPUNIT_ASSERT_EQUAL(i + 1, linesContaining(capture, "BlueTusk.Routing: " + failure + "; b:5432 is taken as not acceptable for this pass"));
		}
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("b").busy);
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testThrowingAnswerOnlyCandidateIsTheCause()
	{
		// No other candidate: the checkout fails with the policy's failure (a BlueTuskPluginException), the
		// route's exception (no acceptable host) nested in it; the session goes back to its pool.
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("b", "Plugin Path=" + misbehavingTargetPath()), f.context);
		const std::string failure = expected("classify-throwing-on-b", "classify(primary, b:5432)", "std::exception: classify broke on purpose for b");
		std::string message;
		std::string nested;
		try
		{
			f.dataSource->open("classify-throwing-on-b");
			CPPUNIT_FAIL("the checkout succeeded");
		}
		catch (BlueTuskPluginException& exc)
		{
			message = exc.message();
			nested = exc.nested() ? exc.nested()->message() : std::string();
		}
		CPPUNIT_ASSERT_EQUAL(failure, message);
		CPPUNIT_ASSERT_MESSAGE(nested, nested.find("no acceptable host for target classify-throwing-on-b") == 0);
		CPPUNIT_ASSERT_EQUAL(0, f.dataSource->getPoolStatistics().busy);
		CPPUNIT_ASSERT_EQUAL(1, f.dataSource->getPoolStatistics().idle);
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}

	void testSlowClassifyCutOffAtCheckoutDeadline()
	{
		// classify() sleeps 3 s with Checkout Timeout=1: the checkout fails at about 1 s (it waited 3 s
		// before), naming the call and the deadline, logged once; the session it held goes back to its pool,
		// and the next checkout (quick classify()) reuses it.
		LogCapture capture;
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + misbehavingTargetPath() + ";Checkout Timeout=1"), f.context);
		sleepClassifyNext(1, 3000);
		Poco::Clock started;
		const std::string message = pluginFailure([&f]() { f.dataSource->open("classify-sleepy"); });
		const Poco::Clock::ClockDiff elapsedMs = started.elapsed() / 1000;
		const std::string head = "target session policy \"classify-sleepy\" (" + MISBEHAVING_TARGET_LIBRARY + ") did not return from classify(primary, a:5432) within ";
		CPPUNIT_ASSERT_MESSAGE(message, message.find(head) == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(" ms, the checkout's deadline (Checkout Timeout 1000 ms); BlueTusk stops waiting for it") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs), elapsedMs >= 900 && elapsedMs < 2000);
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, head));
		PoolStatistics stats = f.dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		BlueTuskConnection lease = f.dataSource->open("classify-sleepy");
		CPPUNIT_ASSERT_EQUAL(1, f.dataSource->getPoolStatistics().busy);
		lease.close();
		stats = f.dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT_EQUAL(1, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TargetSessionCallTest);
