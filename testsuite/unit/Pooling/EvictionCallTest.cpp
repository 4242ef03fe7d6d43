//
// EvictionCallTest.cpp
//
// How the pools call the eviction policy (doc/plugin-calls.md, "Where and how policies are called"): never under
// the pool lock (a policy that reads the pool's statistics from another thread is not blocked, a slow
// policy does not stall another checkout of the same pool), and a policy that throws is logged with its
// family, name and library while the standard policy decides instead, so that sessions are still reused.
//

#include "EndpointPoolFixture.h"
#include "CapturingChannel.h"
#include "Poco/Clock.h"
#include <future>
#include <stdexcept>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

class ScriptedEvictionPolicy: public EvictionPolicy
	/// An eviction policy whose calls run a test's hook first; throws std::runtime_error when told to.
{
public:
	std::function<void()> onCall;        /// run at the start of keepOnReturn() and selectForEviction()
	std::atomic<bool> throwing{false};
	std::atomic<int> keepCalls{0};
	std::atomic<int> selectCalls{0};

	std::string name() const override
	{
		return "scripted";
	}

	bool keepOnReturn(const PooledSessionInfo&, const PoolSizeInfo&, const ConnectionSettings&, Poco::Timestamp) const override
	{
		++const_cast<ScriptedEvictionPolicy*>(this)->keepCalls;
		if (onCall) onCall();
		if (throwing) throw std::runtime_error("keepOnReturn broke on purpose");
		return true;
	}

	std::vector<std::size_t> selectForEviction(const std::vector<PooledSessionInfo>&, const PoolSizeInfo&,
		const ConnectionSettings&, Poco::Timestamp) const override
	{
		++const_cast<ScriptedEvictionPolicy*>(this)->selectCalls;
		if (onCall) onCall();
		if (throwing) throw std::runtime_error("selectForEviction broke on purpose");
		return {};
	}
};


std::vector<std::string> linesWith(const LogCapture& capture, const std::string& part)
{
	std::vector<std::string> found;
	for (const std::string& line: capture.channel().lines())
	{
		if (contains(line, part)) found.push_back(line);
	}
	return found;
}

} // namespace


class EvictionCallTest: public EndpointPoolFixture
{
	CPPUNIT_TEST_SUITE(EvictionCallTest);
	CPPUNIT_TEST(testKeepOnReturnWithoutPoolLock);
	CPPUNIT_TEST(testSelectForEvictionWithoutPoolLock);
	CPPUNIT_TEST(testSlowKeepOnReturnDoesNotStallCheckouts);
	CPPUNIT_TEST(testThrowingKeepOnReturnFallsBackToStandard);
	CPPUNIT_TEST(testThrowingSelectForEvictionFallsBackToStandard);
	CPPUNIT_TEST(testThrowingPolicyWithoutFallbackKeepsReusing);
	CPPUNIT_TEST(testSlowKeepOnReturnIsBounded);
	CPPUNIT_TEST(testSlowCallIsLoggedWithItsTime);
	CPPUNIT_TEST_SUITE_END();

public:
	PoolManager& makeManager(const ConnectionSettings& settings, EvictionPolicy::Ptr policy, EvictionPolicy::Ptr fallback)
	{
		PoolManager::Options options;
		options.startPruning = false;
		options.fallbackEviction = fallback;
		_manager.reset(new PoolManager(settings, _factory, policy, options, _clock));
		return *_manager;
	}

	void setStatisticsProbe(ScriptedEvictionPolicy& policy, std::atomic<int>& blocked, std::atomic<int>& probed)
		/// The policy's hook reads the manager's statistics from another thread (it takes the pool lock) and
		/// waits up to 2 s for it: blocked counts the reads that could not finish, that is, the calls made
		/// while the lock was held.
	{
		policy.onCall = [this, &blocked, &probed]()
		{
			auto read = std::async(std::launch::async, [this]() { return _manager->statistics().total; });
			if (read.wait_for(std::chrono::seconds(2)) != std::future_status::ready) ++blocked;
			read.get();
			++probed;
		};
	}

	void testKeepOnReturnWithoutPoolLock()
	{
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		std::atomic<int> blocked{0}, probed{0};
		setStatisticsProbe(*policy, blocked, probed);
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, standardEvictionPolicy()).pool(endpointNo(1));
		for (int i = 0; i < 3; ++i)
		{
			PoolEntryPtr entry = checkout(pool);
			CPPUNIT_ASSERT(entry);
			pool.release(std::move(entry));
		}
		CPPUNIT_ASSERT_EQUAL(3, policy->keepCalls.load());
		CPPUNIT_ASSERT_EQUAL(3, probed.load());
		CPPUNIT_ASSERT_EQUAL(0, blocked.load());
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());   // kept: reused three times
	}

	void testSelectForEvictionWithoutPoolLock()
	{
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		std::atomic<int> blocked{0}, probed{0};
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, standardEvictionPolicy()).pool(endpointNo(1));
		PoolEntryPtr a = checkout(pool);
		PoolEntryPtr b = checkout(pool);
		pool.release(std::move(a));
		pool.release(std::move(b));
		setStatisticsProbe(*policy, blocked, probed);
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		CPPUNIT_ASSERT_EQUAL(1, policy->selectCalls.load());
		CPPUNIT_ASSERT_EQUAL(1, probed.load());
		CPPUNIT_ASSERT_EQUAL(0, blocked.load());
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);
	}

	void testSlowKeepOnReturnDoesNotStallCheckouts()
	{
		// One lease returns through a policy that takes 600 ms; meanwhile another thread checks out and
		// returns the pool's other idle session: it must not wait for the slow call.
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		std::atomic<bool> slow{true};
		std::atomic<bool> inSlowCall{false};
		policy->onCall = [&]()
		{
			if (!slow.exchange(false)) return;
			inSlowCall = true;
			std::this_thread::sleep_for(std::chrono::milliseconds(600));
		};
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, standardEvictionPolicy()).pool(endpointNo(1));
		PoolEntryPtr first = checkout(pool);
		PoolEntryPtr second = checkout(pool);
		PoolEntryPtr third = checkout(pool);
		slow = false;
		pool.release(std::move(third));   // idle now, for the concurrent checkout
		slow = true;
		std::thread returning([&]() { pool.release(std::move(first)); });
		CPPUNIT_ASSERT(waitUntil([&]() { return inSlowCall.load(); }));
		Poco::Clock started;
		PoolEntryPtr other = pool.tryTakeIdle();
		CPPUNIT_ASSERT(other);
		pool.release(std::move(other));
		pool.release(std::move(second));
		const Poco::Clock::ClockDiff elapsedMs = started.elapsed() / 1000;
		returning.join();
		CPPUNIT_ASSERT_MESSAGE("took " + std::to_string(elapsedMs) + " ms", elapsedMs < 300);
		CPPUNIT_ASSERT_EQUAL(3, pool.statistics().idle);
		CPPUNIT_ASSERT_EQUAL(3, _world->opened.load());
	}

	void testSlowCallIsLoggedWithItsTime()
	{
		// A call slower than SLOW_CALL (100 ms) is logged with its time, read from the coarse clock (1-4 ms
		// resolution); a fast one is not. Without a fallback the call runs on the returning thread.
		LogCapture capture;
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		std::atomic<bool> slow{true};
		policy->onCall = [&]()
		{
			if (slow.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(150));
		};
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, nullptr).pool(endpointNo(1));
		for (int i = 0; i < 3; ++i)
		{
			PoolEntryPtr entry = checkout(pool);
			CPPUNIT_ASSERT(entry);
			pool.release(std::move(entry));
		}
		CPPUNIT_ASSERT_EQUAL(3, policy->keepCalls.load());
		const std::vector<std::string> lines = linesWith(capture, " ms in keepOnReturn()");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lines.size());
		const std::string& line = lines[0];
		const std::string::size_type at = line.find("took ");
		CPPUNIT_ASSERT_MESSAGE(line, at != std::string::npos && contains(line, "eviction policy \"scripted\""));
		const long ms = std::stol(line.substr(at + 5));
		CPPUNIT_ASSERT_MESSAGE(line, ms >= 140 && ms < 2000);
		CPPUNIT_ASSERT_MESSAGE(line, contains(line, "for 127.0.0.1:5432 (no pool lock is held meanwhile; keep it fast)"));
	}

	void testThrowingKeepOnReturnFallsBackToStandard()
	{
		LogCapture capture;
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		policy->throwing = true;
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, standardEvictionPolicy()).pool(endpointNo(1));
		for (int i = 0; i < 20; ++i)
		{
			PoolEntryPtr entry = checkout(pool);
			CPPUNIT_ASSERT(entry);
			pool.release(std::move(entry));
		}
		CPPUNIT_ASSERT_EQUAL(20, policy->keepCalls.load());
		// The standard policy kept the session every time: one physical connection for 20 checkouts.
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), pool.statistics().evicted);
		// Logged once (the first failure, then every hundredth), naming family, policy, library and call.
		const std::vector<std::string> lines = linesWith(capture, "keepOnReturn()");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lines.size());
		const std::string& line = lines[0];
		CPPUNIT_ASSERT_MESSAGE(line, contains(line, "BlueTusk.Pooling: eviction policy \"scripted\" (BlueTuskPoolingUnitTests) failed in "
			"keepOnReturn() for 127.0.0.1:5432: std::exception: keepOnReturn broke on purpose; eviction policy \"standard\" "
			"(libBlueTuskEvictionPlugin.so) decides instead (1 failure so far)"));
	}

	void testThrowingSelectForEvictionFallsBackToStandard()
	{
		LogCapture capture;
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		ConnectionSettings settings = poolSettings(0, 4);
		settings.connectionIdleLifetime = Poco::Timespan(60, 0);
		EndpointPool& pool = makeManager(settings, policy, standardEvictionPolicy()).pool(endpointNo(1));
		PoolEntryPtr a = checkout(pool);
		PoolEntryPtr b = checkout(pool);
		pool.release(std::move(a));
		_clock->advance(Poco::Timespan(30, 0));
		pool.release(std::move(b));
		_clock->advance(Poco::Timespan(31, 0));   // a idle 61 s, b 31 s
		policy->throwing = true;
		CPPUNIT_ASSERT_EQUAL(1, pool.prune());    // the standard policy's answer: a only
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), pool.statistics().evicted);
		const std::vector<std::string> lines = linesWith(capture, "selectForEviction()");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lines.size());
		CPPUNIT_ASSERT_MESSAGE(lines[0], contains(lines[0], "eviction policy \"scripted\" (BlueTuskPoolingUnitTests) failed in "
			"selectForEviction() for 127.0.0.1:5432: std::exception: selectForEviction broke on purpose; eviction policy \"standard\""));
	}

	void testThrowingPolicyWithoutFallbackKeepsReusing()
	{
		// No fallback given (a PoolManager made by hand): the built-in rule keeps a session within its
		// lifetime, so the pool still reuses it.
		LogCapture capture;
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		policy->throwing = true;
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, nullptr).pool(endpointNo(1));
		for (int i = 0; i < 5; ++i)
		{
			PoolEntryPtr entry = checkout(pool);
			pool.release(std::move(entry));
		}
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());
		const std::vector<std::string> lines = linesWith(capture, "keepOnReturn()");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lines.size());
		CPPUNIT_ASSERT_MESSAGE(lines[0], contains(lines[0], "; the built-in lifetime rule decides instead (1 failure so far)"));
	}

	void testSlowKeepOnReturnIsBounded()
	{
		// A site policy (it has a fallback) whose keepOnReturn() sleeps 3 s, 15 times the bound: the return
		// waits the bound (200 ms), then the standard policy keeps the session, with one warning; other
		// threads' checkouts and returns go on meanwhile; destroying the pools does not wait for the late call.
		LogCapture capture;
		auto policy = std::make_shared<ScriptedEvictionPolicy>();
		auto sleepNext = std::make_shared<std::atomic<bool>>(false);   // shared with the late call, which outlives the test
		auto inSlowCall = std::make_shared<std::atomic<bool>>(false);
		policy->onCall = [sleepNext, inSlowCall]()
		{
			if (!sleepNext->exchange(false)) return;
			*inSlowCall = true;
			std::this_thread::sleep_for(std::chrono::milliseconds(3000));
		};
		EndpointPool& pool = makeManager(poolSettings(0, 4), policy, standardEvictionPolicy()).pool(endpointNo(1));
		PoolEntryPtr slow = checkout(pool);
		PoolEntryPtr other = checkout(pool);
		pool.release(std::move(other));   // idle, for the other thread's checkouts
		*sleepNext = true;
		Poco::Clock::ClockDiff returnMs = -1;
		std::atomic<bool> returned{false};
		std::thread returning([&]()
		{
			Poco::Clock started;
			pool.release(std::move(slow));
			returnMs = started.elapsed() / 1000;
			returned = true;
		});
		CPPUNIT_ASSERT(waitUntil([&]() { return inSlowCall->load(); }));
		int others = 0;
		Poco::Clock::ClockDiff longestMs = 0;
		while (!returned || others < 5)
		{
			Poco::Clock started;
			PoolEntryPtr entry = checkout(pool);
			CPPUNIT_ASSERT(entry);
			pool.release(std::move(entry));
			longestMs = std::max<Poco::Clock::ClockDiff>(longestMs, started.elapsed() / 1000);
			++others;
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		returning.join();
		const Poco::Clock::ClockDiff boundMs = 200;   // Pooling/src/EvictionCall.h, CALL_BOUND (doc/plugins.md)
		CPPUNIT_ASSERT_MESSAGE(std::to_string(returnMs) + " ms", returnMs >= boundMs - 5 && returnMs < boundMs + 800);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(longestMs) + " ms", longestMs < boundMs + 800);
		CPPUNIT_ASSERT(others >= 5);
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);   // the standard policy kept the slow one's session
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().busy);
		CPPUNIT_ASSERT_EQUAL(2, _world->opened.load());
		const std::vector<std::string> lines = linesWith(capture, "did not answer within");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lines.size());
		CPPUNIT_ASSERT_MESSAGE(lines[0], contains(lines[0], "BlueTusk.Pooling: eviction policy \"scripted\" (BlueTuskPoolingUnitTests) "
			"did not answer within 200 ms in keepOnReturn() for 127.0.0.1:5432; eviction policy \"standard\" (libBlueTuskEvictionPlugin.so) "
			"decides instead (1 time so far; a late call runs on and its answer is dropped)"));
		// The late call still sleeps: the pools' destructor does not wait for it.
		Poco::Clock destroying;
		_manager.reset();
		CPPUNIT_ASSERT_MESSAGE(std::to_string(destroying.elapsed() / 1000) + " ms", destroying.elapsed() < 1000000);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(EvictionCallTest);
