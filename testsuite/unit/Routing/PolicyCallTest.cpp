//
// PolicyCallTest.cpp
//
// Where and how a data source calls a site host-order policy (doc/plugin-calls.md, "Where and how policies are
// called"), with libBlueTuskTestMisbehavingHostOrder.so (testsuite/plugins): plan() runs once per checkout
// that goes through the router, whatever the new sessions; a plan() that throws (a std::exception, or
// anything else) fails the checkout with a BlueTuskPluginException naming the family, the policy and the
// library, and is logged; a plan() slower than Checkout Timeout is cut off at the checkout's deadline while
// the data source's other checkouts go on; no lease is lost on the way.
//

#include "BlueTusk/PluginRegistry.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RetryPolicy.h"
#include "BlueTusk/Transaction.h"
#include "PluginCallTestSupport.h"
#include "router/PolicyCallBound.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <dlfcn.h>
#include <stdexcept>
#include <memory>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string LIBRARY = "libBlueTuskTestMisbehavingHostOrder.so";


std::string pluginPath()
{
	return testPluginPath(LIBRARY);
}


template <class Function>
Function control(const char* name)
	/// One of the test plugin's extern "C" functions.
{
	return pluginControl<Function>(pluginPath(), name);
}


int planCalls()
{
	return control<int (*)()>("bluetuskTestPlanCalls")();
}


void resetPlanCalls()
{
	control<void (*)()>("bluetuskTestResetPlanCalls")();
}


void sleepNext(int calls, int milliseconds)
{
	control<void (*)(int, int)>("bluetuskTestSleepNext")(calls, milliseconds);
}


struct Fixture: FakeDataSource
{
	explicit Fixture(const std::string& order, const std::string& extra = "")
	{
		context.loadPlugin(pluginPath());
		resetPlanCalls();
		dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Host Order=" + order + ";Maximum Pool Size=8" +
			(extra.empty() ? std::string() : ";" + extra)), context);
	}

	std::string openFailure(Poco::Clock::ClockDiff& elapsedMs)
		/// The message of the BlueTuskPluginException open() throws (pluginFailure()), and its time.
	{
		Poco::Clock started;
		const std::string message = pluginFailure([this]() { dataSource->open(); });
		elapsedMs = started.elapsed() / 1000;
		return message;
	}
};


std::vector<std::string> sleepyCheckoutsAtOnce(const std::vector<Fixture*>& fixtures, int count)
	/// count checkouts at once, spread over fixtures, whose plan() ("sleepy") sleeps 2.5 s: the message of
	/// each one's BlueTuskPluginException (the plugin's most-at-once count is reset first).
{
	int running = 0;
	control<int (*)(int*)>("bluetuskTestMostSleepyAtOnce")(&running);   // reset
	sleepNext(count, 2500);
	std::vector<std::string> messages(count);
	std::vector<std::thread> threads;
	for (int i = 0; i < count; ++i)
	{
		Fixture& f = *fixtures[i % fixtures.size()];
		threads.emplace_back([&f, &messages, i]() { messages[i] = pluginFailure([&f]() { f.dataSource->open(); }); });
	}
	for (std::thread& thread: threads) thread.join();
	return messages;
}


class ThrowingRetryPolicy: public RetryPolicy
	/// A retry policy whose retry() throws a std::exception.
{
public:
	std::string name() const override
	{
		return "throwing-retry";
	}

	bool retry(const RetryContext&, Poco::Timespan&) const override
	{
		throw std::runtime_error("retry broke on purpose");
	}

	Poco::Timespan budget() const override
	{
		return Poco::Timespan(10, 0);
	}
};



class SleepyRetryPolicy: public RetryPolicy
	/// A retry policy whose retry() sleeps 3 s before saying "retry at once".
{
public:
	std::string name() const override
	{
		return "sleepy-retry";
	}

	bool retry(const RetryContext&, Poco::Timespan& delay) const override
	{
		std::this_thread::sleep_for(std::chrono::seconds(3));
		delay = 0;
		return true;
	}

	Poco::Timespan budget() const override
	{
		return Poco::Timespan(10, 0);
	}
};

} // namespace


class PolicyCallTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PolicyCallTest);
	CPPUNIT_TEST(testPlanOncePerRoutedCheckout);
	CPPUNIT_TEST(testThrowingPlanIsPluginException);
	CPPUNIT_TEST(testNonStandardThrowFromPlan);
	CPPUNIT_TEST(testSlowPlanCutOffAtCheckoutDeadline);
	CPPUNIT_TEST(testThrowingEvictionFallsBackToStandard);
	CPPUNIT_TEST(testThrowingRetryPolicyIsPluginException);
	CPPUNIT_TEST(testHostOrderSeesQueryTimes);
	CPPUNIT_TEST(testLateCallCapIsHard);
	CPPUNIT_TEST(testOnePolicyHoldsItsShare);
	CPPUNIT_TEST(testThrowingNameIsPluginException);
	CPPUNIT_TEST(testSlowRetryPolicyCutOffAtDeadline);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPlanOncePerRoutedCheckout()
	{
		// 80 checkouts with 4 new sessions: 4 held at once, then 76 one after the other on idle sessions.
		Fixture f("counting");
		{
			std::vector<BlueTuskConnection> held;
			for (int i = 0; i < 4; ++i) held.push_back(f.dataSource->open());
		}
		for (int i = 0; i < 76; ++i) f.dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(4, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(80, planCalls());
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testThrowingPlanIsPluginException()
	{
		LogCapture capture;
		Fixture f("throwing");
		Poco::Clock::ClockDiff elapsedMs = 0;
		const std::string message = f.openFailure(elapsedMs);
		const std::string expected = "host order policy \"throwing\" (" + LIBRARY + ") failed in plan(): std::exception: plan broke on purpose";
		CPPUNIT_ASSERT_EQUAL(expected, message);
		CPPUNIT_ASSERT_MESSAGE(expected, anyLineContains(capture, "BlueTusk.Routing: " + expected));
		CPPUNIT_ASSERT_EQUAL(1, planCalls());
		CPPUNIT_ASSERT_EQUAL(0, f.world->opened.load());   // nothing opened, nothing held
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testNonStandardThrowFromPlan()
	{
		Fixture f("throwing-int");
		Poco::Clock::ClockDiff elapsedMs = 0;
		CPPUNIT_ASSERT_EQUAL("host order policy \"throwing-int\" (" + LIBRARY + ") failed in plan(): an exception that is "
			"neither a Poco::Exception nor a std::exception", f.openFailure(elapsedMs));
	}

	void testSlowPlanCutOffAtCheckoutDeadline()
	{
		// The first plan() sleeps 4 s with Checkout Timeout=1: that checkout fails at about 1 s, naming the
		// policy and the time; meanwhile the data source's other checkouts (whose plan() is quick) go on.
		LogCapture capture;
		Fixture f("sleepy", "Checkout Timeout=1");
		f.dataSource->open().close();   // one idle session for the others
		sleepNext(1, 4000);
		std::string message;
		Poco::Clock::ClockDiff slowMs = -1;
		std::atomic<bool> slowDone(false);   // slowMs is the thread's until join()
		std::thread slow([&]() { message = f.openFailure(slowMs); slowDone = true; });
		CPPUNIT_ASSERT(within([&]() { return planCalls() >= 2; }));
		Poco::Clock::ClockDiff longestMs = 0;
		int others = 0;
		Poco::Clock othersStarted;
		while (!slowDone && othersStarted.elapsed() < 3000000)
		{
			Poco::Clock started;
			f.dataSource->open().close();
			longestMs = std::max<Poco::Clock::ClockDiff>(longestMs, started.elapsed() / 1000);
			++others;
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		slow.join();
		CPPUNIT_ASSERT_MESSAGE(message, message.find("host order policy \"sleepy\" (" + LIBRARY + ") did not return from plan() within ") == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(" ms, the checkout's deadline (Checkout Timeout 1000 ms); BlueTusk stops waiting for it") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(slowMs), slowMs >= 950 && slowMs < 1400);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(others), others >= 20);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(longestMs), longestMs < 200);
		CPPUNIT_ASSERT(anyLineContains(capture, "BlueTusk.Routing: host order policy \"sleepy\""));
		CPPUNIT_ASSERT_EQUAL(1, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testThrowingEvictionFallsBackToStandard()
	{
		// A data source whose eviction policy throws from keepOnReturn(): the standard policy decides, the
		// session is reused (one physical session for 20 checkouts), and the failure is logged once.
		LogCapture capture;
		FakeDataSource f;
		const std::string library = std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingEviction.so";
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + library +
			";Eviction Policy=throwing-eviction"), f.context);
		for (int i = 0; i < 20; ++i) f.dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(1, f.world->opened.load());
		CPPUNIT_ASSERT_EQUAL(1, f.stats("a").idle);
		int logged = 0;
		for (const std::string& line: capture.channel().lines())
		{
			if (line.find("keepOnReturn()") == std::string::npos) continue;
			++logged;
			CPPUNIT_ASSERT_MESSAGE(line, line.find("BlueTusk.Pooling: eviction policy \"throwing-eviction\" "
				"(libBlueTuskTestMisbehavingEviction.so) failed in keepOnReturn() for a:5432: std::exception: keepOnReturn broke on purpose; "
				"eviction policy \"standard\" (libBlueTuskEvictionPlugin.so) decides instead (1 failure so far)") == 0);
		}
		CPPUNIT_ASSERT_EQUAL(1, logged);
	}

	void testThrowingRetryPolicyIsPluginException()
	{
		// runInTransaction(): the unit of work fails with a retryable error, the policy's retry() throws: a
		// BlueTuskPluginException naming the policy, with the unit of work's failure; the lease went back.
		LogCapture capture;
		FakeDataSource f;
		f.dataSource = BlueTuskDataSource::create(fakeConnectionString("a", ""), f.context);
		int runs = 0;
		std::string message;
		try
		{
			f.dataSource->runInTransaction([&runs](BlueTuskConnection&, Transaction&)
			{
				++runs;
				throw BlueTuskTransportException("connection lost on purpose");
			}, ThrowingRetryPolicy());
		}
		catch (BlueTuskPluginException& exc)
		{
			message = exc.message();
		}
		CPPUNIT_ASSERT_EQUAL(1, runs);
		CPPUNIT_ASSERT_EQUAL(std::string("retry policy \"throwing-retry\" (BlueTuskRoutingUnitTests) failed in retry(): "
			"std::exception: retry broke on purpose; the unit of work failed with: ") + BlueTuskTransportException("connection lost on purpose").displayText(),
			message);
		CPPUNIT_ASSERT(anyLineContains(capture, "BlueTusk.Routing: " + message));
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
	}

	void testHostOrderSeesQueryTimes()
	{
		// Target primary with Role Recheck Milliseconds=0: every checkout after the first refreshes the pooled
		// session's role with a round trip, which the site policy's next plan() sees as a query timing.
		Fixture f("counting", "Target Session Attributes=primary;Role Recheck Milliseconds=0;Health Check Interval=0");
		for (int i = 0; i < 4; ++i) f.dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(1, f.world->opened.load());
		double last = -3, smoothed = -3;
		unsigned measured = 0;
		control<void (*)(double*, double*, unsigned*)>("bluetuskTestLastQueryTimes")(&last, &smoothed, &measured);
		CPPUNIT_ASSERT_EQUAL(2u, measured);   // checkouts 2 and 3 refreshed before checkout 4 planned
		CPPUNIT_ASSERT_MESSAGE(std::to_string(last), last >= 0 && last < 1000);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(smoothed), smoothed >= 0 && smoothed < 1000);
	}

	void testLateCallCapIsHard()
	{
		// 24 checkouts at once whose plan() sleeps 2.5 s, Checkout Timeout=1, spread over six data sources with
		// a routing context each (six "sleepy" objects, four checkouts each: each within its share of 4): at
		// most 16 plan() calls ever run at once (a slot is taken when a call starts), the other 8 are never
		// called and fail when the 16 are late or at their own deadline, saying so; every checkout fails, no
		// session is opened, none is busy. Before, the cap was counted at the deadline: all 24 started.
		LogCapture capture;
		// Late calls of earlier tests still hold their slots until they return.
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 8000));
		std::vector<std::unique_ptr<Fixture>> fixtures;
		std::vector<Fixture*> spread;
		for (int i = 0; i < 6; ++i)
		{
			fixtures.push_back(std::make_unique<Fixture>("sleepy", "Checkout Timeout=1"));
			spread.push_back(fixtures.back().get());
		}
		const std::vector<std::string> messages = sleepyCheckoutsAtOnce(spread, 24);
		int running = 0;
		const int most = control<int (*)(int*)>("bluetuskTestMostSleepyAtOnce")(&running);
		int late = 0;
		int notCalled = 0;
		for (const std::string& message: messages)
		{
			if (message.find("did not return from plan() within ") != std::string::npos) ++late;
			else if (message.find(") was not called") != std::string::npos) ++notCalled;   // within its deadline, or all 16 late
			else CPPUNIT_FAIL(message);
			// A call refused for the slots names the policy holding most of them (here all 16: one description).
			if (message.find("was not called: 16 earlier calls") != std::string::npos)
				CPPUNIT_ASSERT_MESSAGE(message, message.find("16 of them host order policy \"sleepy\" (" + LIBRARY + ")'s)") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(16, most);
		CPPUNIT_ASSERT_EQUAL(16, late);
		CPPUNIT_ASSERT_EQUAL(8, notCalled);
		for (const auto& f: fixtures)
		{
			CPPUNIT_ASSERT_EQUAL(0, f->world->opened.load());
			CPPUNIT_ASSERT_EQUAL(0, f->stats("a").busy);
		}
		// The late calls end within their 2.5 s: then plan() is called again.
		sleepNext(0, 0);
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 5000));
		CPPUNIT_ASSERT_EQUAL(0, Detail::PolicyCallBound::lateCalls());
		fixtures[0]->dataSource->open().close();
		CPPUNIT_ASSERT_EQUAL(0, fixtures[0]->stats("a").busy);
	}

	void testOnePolicyHoldsItsShare()
	{
		// The same 24 checkouts on ONE data source (one "sleepy" object): it holds at most 4 slots; its
		// other 20 calls are refused, naming it, when its 4 are late or at their own deadline.
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 8000));
		Fixture f("sleepy", "Checkout Timeout=1");
		const std::vector<std::string> messages = sleepyCheckoutsAtOnce({&f}, 24);
		int running = 0;
		const std::string policy = "host order policy \"sleepy\" (" + LIBRARY + ")";
		int late = 0;
		int notCalled = 0;
		for (const std::string& message: messages)
		{
			if (message.find(policy + " did not return from plan() within ") == 0) ++late;
			else if (message.find(policy + " was not called") == 0) ++notCalled;
			else CPPUNIT_FAIL(message);
		}
		CPPUNIT_ASSERT_EQUAL(Detail::PolicyCallBound::POLICY_SHARE, control<int (*)(int*)>("bluetuskTestMostSleepyAtOnce")(&running));
		CPPUNIT_ASSERT_EQUAL(Detail::PolicyCallBound::POLICY_SHARE, late);
		CPPUNIT_ASSERT_EQUAL(24 - Detail::PolicyCallBound::POLICY_SHARE, notCalled);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
		sleepNext(0, 0);
		CPPUNIT_ASSERT(within([]() { return Detail::PolicyCallBound::runningCalls() == 0; }, 5000));
	}

	void testThrowingNameIsPluginException()
	{
		// name() throwing (a std::exception, an int) at the data source's creation: a BlueTuskPluginException
		// naming the family, the registered name and the library, logged once.
		LogCapture capture;
		FakeDataSource f;
		f.context.loadPlugin(pluginPath());
		const std::string stdMessage = "host order policy \"name-throwing\" (" + LIBRARY + ") failed in name(): std::exception: name broke on purpose";
		CPPUNIT_ASSERT_EQUAL(stdMessage, pluginFailure([&f]() { BlueTuskDataSource::create(fakeConnectionString("a", "Host Order=name-throwing"), f.context); }));
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, stdMessage));
		const std::string intMessage = "host order policy \"name-throwing-int\" (" + LIBRARY + ") failed in name(): an exception that is neither a Poco::Exception nor a std::exception";
		CPPUNIT_ASSERT_EQUAL(intMessage, pluginFailure([&f]() { BlueTuskDataSource::create(fakeConnectionString("a", "Host Order=name-throwing-int"), f.context); }));
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, intMessage));
		// An eviction policy's, looked up the same way.
		const std::string eviction = "eviction policy \"name-throwing-eviction\" (libBlueTuskTestMisbehavingEviction.so) failed in name(): "
			"std::exception: name broke on purpose";
		CPPUNIT_ASSERT_EQUAL(eviction, pluginFailure([&f]() { BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" +
			testPluginPath("libBlueTuskTestMisbehavingEviction.so") + ";Eviction Policy=name-throwing-eviction"), f.context); }));
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, eviction));
	}

	void testSlowRetryPolicyCutOffAtDeadline()
	{
		// A site retry policy whose retry() sleeps 3 s, Checkout Timeout=1: runInTransaction() ends at about
		// 1 s with the BlueTuskPluginException saying so (logged once), the unit of work ran once, no lease out.
		static const SleepyRetryPolicy policy;   // a late call still uses it: it lives as long as the process
		LogCapture capture;
		Fixture f("counting", "Checkout Timeout=1");
		int runs = 0;
		Poco::Clock started;
		const std::string message = pluginFailure([&]()
		{
			f.dataSource->runInTransaction([&runs](BlueTuskConnection&, Transaction&)
			{
				++runs;
				throw BlueTuskTransportException("connection lost on purpose");
			}, policy);
		});
		const Poco::Clock::ClockDiff elapsedMs = started.elapsed() / 1000;
		const std::string head = "retry policy \"sleepy-retry\" (BlueTuskRoutingUnitTests) did not return from retry() within ";
		CPPUNIT_ASSERT_MESSAGE(message, message.find(head) == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("the checkout's deadline (Checkout Timeout 1000 ms); the unit of work failed with: ") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs), elapsedMs >= 900 && elapsedMs < 2000);
		CPPUNIT_ASSERT_EQUAL(1, runs);
		CPPUNIT_ASSERT_EQUAL(1, linesContaining(capture, head));
		CPPUNIT_ASSERT_EQUAL(0, f.stats("a").busy);
		CPPUNIT_ASSERT_EQUAL(0, f.stats("b").busy);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PolicyCallTest);
