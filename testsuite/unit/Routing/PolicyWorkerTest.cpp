//
// PolicyWorkerTest.cpp
//
// What a bounded site policy call costs and how often it is made (doc/plugin-calls.md, "Where and how policies
// are called"): the calls are handed to persistent workers (no thread started per call; a worker held by
// a late call is replaced, never reused before its call returns); a pooled checkout with a site target
// asks classify() once per candidate; name() is asked once per policy object, within the deadline of the
// checkout, open or creation that asks it, and its failure is a BlueTuskPluginException from every route;
// a slow classify() at a data source's creation is cut off at the creation's deadline, and says so. With
// libBlueTuskTestMisbehavingTargetSession.so (testsuite/plugins).
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "PluginCallTestSupport.h"
#include "router/PolicyCallBound.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <chrono>
#include <dlfcn.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

template <class Function>
Function control(const char* name)
	/// One of the test plugin's extern "C" functions.
{
	return pluginControl<Function>(misbehavingTargetPath(), name);
}


void countedCalls(int& names, int& classifies)
	/// The name() and classify() calls of the plugin's "counting" objects so far.
{
	control<void (*)(int*, int*)>("bluetuskTestTargetCalls")(&names, &classifies);
}


void waitForNoRunningCall()
	/// Late calls of earlier tests hold their workers until they return.
{
	CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 8000));
}

} // namespace


class PolicyWorkerTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PolicyWorkerTest);
	CPPUNIT_TEST(testCallsReuseParkedWorkers);
	CPPUNIT_TEST(testLateCallsWorkerIsReplaced);
	CPPUNIT_TEST(testClassifyOncePerCandidate);
	CPPUNIT_TEST(testNameAskedOnce);
	CPPUNIT_TEST(testThrowingNameAtOpenIsPluginException);
	CPPUNIT_TEST(testSlowNameAtOpenBoundByCheckout);
	CPPUNIT_TEST(testSlowClassifyAtCreationNamesCreationDeadline);
	CPPUNIT_TEST(testDeadlineTextNamesTheBoundUsed);
	CPPUNIT_TEST(testShortDeadlineSaysWhatIsWaited);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDeadlineTextNamesTheBoundUsed()
	{
		// The bound of a checkout's policy calls and its text: Checkout Timeout, else Timeout, else 15 s. Before,
		// a plan() with Checkout Timeout=0 said "Checkout Timeout 0 ms" while Timeout (or 15 s) bounded it.
		const SecretRedactor redactor;
		const Poco::Timestamp before;
		Detail::PolicyCallLimit limit = Detail::PolicyDeadline::forCheckout(Poco::Timespan(), Poco::Timespan(), redactor);
		CPPUNIT_ASSERT_EQUAL(std::string("the bound of a checkout with Checkout Timeout=0 and Timeout=0 (15 s)"), limit.deadlineText);
		CPPUNIT_ASSERT(limit.deadline >= before + Detail::PolicyCallBound::BOUND_WITHOUT_DEADLINE.totalMicroseconds());
		CPPUNIT_ASSERT(limit.deadline <= Poco::Timestamp() + Detail::PolicyCallBound::BOUND_WITHOUT_DEADLINE.totalMicroseconds());
		limit = Detail::PolicyDeadline::forCheckout(Poco::Timespan(), Poco::Timespan(2, 0), redactor);
		CPPUNIT_ASSERT_EQUAL(std::string("the checkout's deadline (Checkout Timeout=0: Timeout 2000 ms)"), limit.deadlineText);
		limit = Detail::PolicyDeadline::forCheckout(Poco::Timespan(1, 0), Poco::Timespan(2, 0), redactor);
		CPPUNIT_ASSERT_EQUAL(std::string("the checkout's deadline (Checkout Timeout 1000 ms)"), limit.deadlineText);
	}

	void testShortDeadlineSaysWhatIsWaited()
	{
		// A deadline 20 ms away: the call is still waited for 100 ms (MIN_WAIT), and the message says that
		// is what was waited, past which deadline. Before, it named only the 20 ms.
		waitForNoRunningCall();
		std::exception_ptr thrown;
		Detail::PolicyCallLimit limit;
		limit.deadline = Poco::Timestamp() + 20000;
		limit.deadlineText = "the checkout's deadline (Checkout Timeout 20 ms)";
		const auto description = []() { return std::string("test policy \"short\""); };
		Poco::Clock started;
		const std::string message = pluginFailure([&]()
		{
			Detail::PolicyCallBound::call<int>([]() { std::this_thread::sleep_for(std::chrono::milliseconds(600)); return 1; },
				limit, description, "slow()", thrown);
		});
		CPPUNIT_ASSERT(started.elapsed() >= 95000);   // MIN_WAIT, not the 20 ms
		CPPUNIT_ASSERT_MESSAGE(message, message.find("test policy \"short\" did not return from slow() within ") == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(" ms, the least a call is waited for (100 ms), past the checkout's deadline "
			"(Checkout Timeout 20 ms); BlueTusk stops waiting for it") != std::string::npos);
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 5000));
	}

	void testCallsReuseParkedWorkers()
	{
		// 300 bounded calls one after the other start at most one worker (none when one is parked): before,
		// each call started a thread.
		waitForNoRunningCall();
		Detail::PolicyCallLimit limit;
		std::exception_ptr thrown;
		const auto description = []() { return std::string("test policy"); };
		Detail::PolicyCallBound::call<int>([]() { return 1; }, limit, description, "warm()", thrown);
		const int started = Detail::PolicyCallBound::startedWorkers();
		int sum = 0;
		for (int i = 0; i < 300; ++i)
		{
			sum += Detail::PolicyCallBound::call<int>([i]() { return i; }, limit, description, "f()", thrown);
			CPPUNIT_ASSERT(!thrown);
		}
		CPPUNIT_ASSERT_EQUAL(299 * 300 / 2, sum);
		CPPUNIT_ASSERT_EQUAL(started, Detail::PolicyCallBound::startedWorkers());
		CPPUNIT_ASSERT(Detail::PolicyCallBound::workerThreads() >= 1);
		CPPUNIT_ASSERT(Detail::PolicyCallBound::workerThreads() <= 2 * Detail::PolicyCallBound::MAX_CALLS);
	}

	void testLateCallsWorkerIsReplaced()
	{
		// A call that sleeps past its deadline (300 ms) keeps its worker: the next call is answered at once by
		// another worker, not queued behind the late one; once the late call returns, its worker is parked
		// again (no thread left running a call).
		waitForNoRunningCall();
		std::exception_ptr thrown;
		Detail::PolicyCallLimit late;
		late.deadline = Poco::Timestamp() + 300000;
		const auto description = []() { return std::string("test policy \"late\""); };
		const std::string message = pluginFailure([&]()
		{
			Detail::PolicyCallBound::call<int>([]() { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); return 1; },
				late, description, "slow()", thrown);
		});
		CPPUNIT_ASSERT_MESSAGE(message, message.find("test policy \"late\" did not return from slow() within ") == 0);
		CPPUNIT_ASSERT_EQUAL(1, Detail::PolicyCallBound::lateCalls());
		Detail::PolicyCallLimit quick;
		quick.deadline = Poco::Timestamp() + 1000000;
		Poco::Clock started;
		CPPUNIT_ASSERT_EQUAL(7, Detail::PolicyCallBound::call<int>([]() { return 7; }, quick, description, "quick()", thrown));
		CPPUNIT_ASSERT(!thrown);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(started.elapsed()), started.elapsed() < 900000);   // not behind the late call's 1.5 s
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::lateCalls() == 0; }, 5000));
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 5000));
		const int workers = Detail::PolicyCallBound::startedWorkers();
		CPPUNIT_ASSERT_EQUAL(3, Detail::PolicyCallBound::call<int>([]() { return 3; }, quick, description, "again()", thrown));
		CPPUNIT_ASSERT_EQUAL(workers, Detail::PolicyCallBound::startedWorkers());
	}

	void testClassifyOncePerCandidate()
	{
		// Three hosts whose roles are known: each pooled checkout with a site target asks classify() once per
		// host (the ordering; the session's verdict reuses its host's answer), and the split-brain guard's
		// classify(role) is kept: 20 checkouts, 60 calls. Before: about 4 to 6 a checkout, each a thread.
		FakeDataSource f;
		f.context.loadPlugin(misbehavingTargetPath());
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b,c", "Maximum Pool Size=4"), f.context);
		f.dataSource->open("counting").close();   // learns a's role; the others are probed below
		try
		{
			f.dataSource->open(TargetSessionAttributes::Standby);   // three primaries: fails, every role learned
		}
		catch (BlueTuskNoAcceptableHostException&)
		{
		}
		int names = 0;
		int before = 0;
		countedCalls(names, before);
		for (int i = 0; i < 20; ++i) f.dataSource->open("counting").close();
		int after = 0;
		countedCalls(names, after);
		CPPUNIT_ASSERT_EQUAL(60, after - before);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testNameAskedOnce()
	{
		// name() of a site target is asked once per policy object: at a data source's creation (its own
		// target), and at the first open("counting") of another context; never again by the checkouts.
		int before = 0;
		int classifies = 0;
		{
			FakeDataSource f;
			f.context.loadPlugin(misbehavingTargetPath());
			countedCalls(before, classifies);
			f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Target Session Attributes=counting"), f.context);
			for (int i = 0; i < 5; ++i) f.dataSource->open().close();
			int names = 0;
			countedCalls(names, classifies);
			CPPUNIT_ASSERT_EQUAL(1, names - before);
		}
		FakeDataSource f;
		f.context.loadPlugin(misbehavingTargetPath());
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", ""), f.context);
		countedCalls(before, classifies);
		for (int i = 0; i < 5; ++i) f.dataSource->open("counting").close();
		BlueTuskConnection::open(fakeConnectionString("a", "Target Session Attributes=counting"), f.context).close();
		int names = 0;
		countedCalls(names, classifies);
		CPPUNIT_ASSERT_EQUAL(1, names - before);   // the context's policy object, asked once, then kept
	}

	void testThrowingNameAtOpenIsPluginException()
	{
		// open("<registered name>") whose name() throws: the BlueTuskPluginException naming the policy (not a
		// connection string error); an unregistered name stays a connection string error.
		LogCapture capture;
		FakeDataSource f;
		f.context.loadPlugin(misbehavingTargetPath());
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Checkout Timeout=2"), f.context);
		const std::string expected = "target session policy \"name-throwing\" (" + MISBEHAVING_TARGET_LIBRARY + ") failed in name(): std::exception: name broke on purpose";
		CPPUNIT_ASSERT_EQUAL(expected, pluginFailure([&f]() { f.dataSource->open("name-throwing"); }));
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, expected));
		try
		{
			f.dataSource->open("no-such-target");
			CPPUNIT_FAIL("no exception");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("nor is it a site policy's (loaded: ") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("name-throwing") != std::string::npos);
		}
	}

	void testSlowNameAtOpenBoundByCheckout()
	{
		// open("name-sleepy") whose name() sleeps 3 s, Checkout Timeout=1: cut off at the checkout's deadline
		// (about 1 s, not the 15 s of calls outside a checkout), asked once (not 2-3 times), and saying so.
		waitForNoRunningCall();
		LogCapture capture;
		FakeDataSource f;
		f.context.loadPlugin(misbehavingTargetPath());
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Checkout Timeout=1"), f.context);
		control<void (*)(int, int)>("bluetuskTestSleepNameNext")(1, 3000);
		Poco::Clock started;
		const std::string message = pluginFailure([&f]() { f.dataSource->open("name-sleepy"); });
		const Poco::Clock::ClockDiff elapsedMs = started.elapsed() / 1000;
		const std::string head = "target session policy \"name-sleepy\" (" + MISBEHAVING_TARGET_LIBRARY + ") did not return from name() within ";
		CPPUNIT_ASSERT_MESSAGE(message, message.find(head) == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(" ms, the checkout's deadline (Checkout Timeout 1000 ms); ") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("outside a checkout") == std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs), elapsedMs >= 900 && elapsedMs < 2000);
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, head));
		// The late name() returns after its 3 s: the next open asks it again (a failure is not kept) and works.
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 5000));
		f.dataSource->open("name-sleepy").close();
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testSlowClassifyAtCreationNamesCreationDeadline()
	{
		// Target Session Attributes=classify-sleepy, Timeout=1, Checkout Timeout=5: the creation's
		// classify(role) sleeping 3 s is cut off at the creation's deadline (Timeout, about 1 s; not Checkout
		// Timeout, which no checkout is using), and the message says which deadline it is.
		waitForNoRunningCall();
		LogCapture capture;
		FakeDataSource f;
		f.context.loadPlugin(misbehavingTargetPath());
		control<void (*)(int, int)>("bluetuskTestSleepRoleClassifyNext")(1, 3000);
		Poco::Clock started;
		const std::string message = pluginFailure([&f]()
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Target Session Attributes=classify-sleepy;Checkout Timeout=5"), f.context);
		});
		const Poco::Clock::ClockDiff elapsedMs = started.elapsed() / 1000;
		const std::string head = "target session policy \"classify-sleepy\" (" + MISBEHAVING_TARGET_LIBRARY + ") did not return from classify(";
		CPPUNIT_ASSERT_MESSAGE(message, message.find(head) == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(" ms, the data source creation's deadline (Timeout 1000 ms from its start); "
			"BlueTusk stops waiting for it") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("Checkout Timeout") == std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs), elapsedMs >= 900 && elapsedMs < 2500);
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, head));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PolicyWorkerTest);
