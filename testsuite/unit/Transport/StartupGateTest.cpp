//
// StartupGateTest.cpp
//
// The pacing of a parallel race's startups (StartupGate.h): one attempt at a time, the next one after the
// stagger, first connected first served, a leave lets the next in at once, close() and cancellation end
// the waits, the attempt's deadline bounds the wait, stagger 0 lets everyone in. And the CancellationWatch
// that OpenCancellation::cancel() fires at once (no polling thread).
//

#include "connect/CancellationWatch.h"
#include "connect/Deadline.h"
#include "BlueTusk/Session.h"
#include "BlueTusk/StartupGate.h"
#include "Poco/Clock.h"
#include "Poco/Exception.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/StreamSocket.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

using namespace BlueTusk;

namespace {

long msSince(const Poco::Clock& clock)
{
	return static_cast<long>(clock.elapsed() / 1000);
}


bool waitUntil(const std::function<bool()>& condition, int milliseconds)
{
	Poco::Clock clock;
	while (!condition())
	{
		if (clock.elapsed() > milliseconds * 1000L) return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return true;
}

} // namespace


class StartupGateTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(StartupGateTest);
	CPPUNIT_TEST(testFirstEntersAtOnce);
	CPPUNIT_TEST(testSecondWaitsForLeave);
	CPPUNIT_TEST(testStaggerLetsTheNextIn);
	CPPUNIT_TEST(testFirstComeFirstServed);
	CPPUNIT_TEST(testCloseEndsWaits);
	CPPUNIT_TEST(testCancelledWaiterGivesUp);
	CPPUNIT_TEST(testDeadlineBoundsTheWait);
	CPPUNIT_TEST(testZeroStaggerIsAPlainRace);
	CPPUNIT_TEST(testLeaveIsIdempotent);
	CPPUNIT_TEST(testCancelShutsSocketsAtOnce);
	CPPUNIT_TEST(testConnectsInPlanOrderAtTheConnectStagger);
	CPPUNIT_TEST(testEndedPredecessorLetsTheNextConnect);
	CPPUNIT_TEST(testNoConnectWhileAStartupRunsAlone);
	CPPUNIT_TEST(testNotEnrolledConnectsAtOnce);
	CPPUNIT_TEST_SUITE_END();

public:
	void testFirstEntersAtOnce()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation a;
		Poco::Clock clock;
		CPPUNIT_ASSERT(gate.enter(a, Deadline(Poco::Timespan(1, 0))));
		CPPUNIT_ASSERT(msSince(clock) < 50);
		CPPUNIT_ASSERT(gate.isInside(a));
		CPPUNIT_ASSERT(gate.enter(a, Deadline(Poco::Timespan(1, 0)))); // twice: no-op
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan(10, 0).totalMicroseconds(), gate.stagger().totalMicroseconds());
	}

	void testSecondWaitsForLeave()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation a, b;
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		std::atomic<bool> bEntered{false};
		auto waiter = std::async(std::launch::async, [&] { bool r = gate.enter(b, Deadline()); bEntered = true; return r; });
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
		CPPUNIT_ASSERT(!bEntered);
		CPPUNIT_ASSERT(!gate.isInside(b));
		Poco::Clock clock;
		gate.leave(a);
		CPPUNIT_ASSERT(waiter.get());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(clock)) + " ms", msSince(clock) < 100);
		CPPUNIT_ASSERT(gate.isInside(b));
		CPPUNIT_ASSERT(!gate.isInside(a));
	}

	void testStaggerLetsTheNextIn()
	{
		StartupGate gate(Poco::Timespan(0, 150000));
		OpenCancellation a, b, c;
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		Poco::Clock clock;
		auto second = std::async(std::launch::async, [&] { bool r = gate.enter(b, Deadline()); return std::make_pair(r, msSince(clock)); });
		auto first = second.get();
		CPPUNIT_ASSERT(first.first);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(first.second) + " ms", first.second >= 140 && first.second < 1000);
		// The stagger counts from the last entry: c waits another 150 ms after b, although a entered long ago.
		Poco::Clock again;
		CPPUNIT_ASSERT(gate.enter(c, Deadline()));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(again)) + " ms", msSince(again) >= 140 && msSince(again) < 1000);
		CPPUNIT_ASSERT(gate.isInside(a) && gate.isInside(b) && gate.isInside(c));
	}

	void testFirstComeFirstServed()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation holder;
		CPPUNIT_ASSERT(gate.enter(holder, Deadline()));
		const int WAITERS = 4;
		std::vector<std::unique_ptr<OpenCancellation>> attempts;
		for (int i = 0; i < WAITERS; ++i) attempts.emplace_back(new OpenCancellation);
		std::mutex mutex;
		std::vector<int> order;
		std::vector<std::thread> threads;
		for (int i = 0; i < WAITERS; ++i)
		{
			threads.emplace_back([&, i]
			{
				if (gate.enter(*attempts[i], Deadline()))
				{
					std::lock_guard<std::mutex> lock(mutex);
					order.push_back(i);
				}
			});
			// queue them in a known order: the next starts once this one waits (a fixed sleep let a thread
			// that the scheduler started late queue behind the next one on a loaded machine)
			const bool queued = waitUntil([&] { return gate.waiting() == static_cast<std::size_t>(i + 1); }, 5000);
			if (!queued) break;
		}
		gate.leave(holder);
		std::string seen;   // who was inside at each step, "0 1 2 3" when first come, first served, one at a time
		bool served = threads.size() == static_cast<std::size_t>(WAITERS);
		for (int i = 0; served && i < WAITERS; ++i)
		{
			served = waitUntil([&] { std::lock_guard<std::mutex> lock(mutex); return static_cast<int>(order.size()) == i + 1; }, 5000);
			std::this_thread::sleep_for(std::chrono::milliseconds(30)); // nobody else got in meanwhile
			{
				std::lock_guard<std::mutex> lock(mutex);
				if (served && static_cast<int>(order.size()) == i + 1) seen += (seen.empty() ? "" : " ") + std::to_string(order.back());
				else served = false;
			}
			gate.leave(*attempts[i]);
		}
		// every thread ends (the gate closed) before an assertion can leave the test with joinable threads
		gate.close();
		for (auto& thread: threads) thread.join();
		CPPUNIT_ASSERT_EQUAL(static_cast<std::size_t>(WAITERS), threads.size());
		CPPUNIT_ASSERT(served);
		CPPUNIT_ASSERT_EQUAL(std::string("0 1 2 3"), seen);
	}

	void testCloseEndsWaits()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation a, b, c;
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		auto waitB = std::async(std::launch::async, [&] { return gate.enter(b, Deadline()); });
		auto waitC = std::async(std::launch::async, [&] { return gate.enter(c, Deadline()); });
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		Poco::Clock clock;
		gate.close();
		CPPUNIT_ASSERT(!waitB.get());
		CPPUNIT_ASSERT(!waitC.get());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(clock)) + " ms", msSince(clock) < 100);
		CPPUNIT_ASSERT(!gate.isInside(b));
		OpenCancellation late;
		CPPUNIT_ASSERT(!gate.enter(late, Deadline()));
	}

	void testCancelledWaiterGivesUp()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation a, b, c;
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		auto waitB = std::async(std::launch::async, [&] { return gate.enter(b, Deadline()); });
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		auto waitC = std::async(std::launch::async, [&] { return gate.enter(c, Deadline()); });
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		Poco::Clock clock;
		b.cancel();          // without wakeUp(): the waiter notices within its poll interval
		CPPUNIT_ASSERT(!waitB.get());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(clock)) + " ms", msSince(clock) < 100);
		// b left the queue: c is next once a leaves.
		gate.leave(a);
		CPPUNIT_ASSERT(waitC.get());
		CPPUNIT_ASSERT(gate.isInside(c));
		OpenCancellation cancelled;
		cancelled.cancel();
		CPPUNIT_ASSERT(!gate.enter(cancelled, Deadline()));
	}

	void testDeadlineBoundsTheWait()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation a, b;
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		Poco::Clock clock;
		try
		{
			gate.enter(b, Deadline(Poco::Timespan(0, 120000)));
			CPPUNIT_FAIL("expected Poco::TimeoutException");
		}
		catch (Poco::TimeoutException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("parallel race") != std::string::npos);
		}
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(clock)) + " ms", msSince(clock) >= 110 && msSince(clock) < 1000);
		CPPUNIT_ASSERT(!gate.isInside(b));
		// b is out of the queue: the next attempt is not blocked behind it.
		gate.leave(a);
		OpenCancellation c;
		CPPUNIT_ASSERT(gate.enter(c, Deadline(Poco::Timespan(1, 0))));
	}

	void testZeroStaggerIsAPlainRace()
	{
		StartupGate gate(0);
		std::vector<std::unique_ptr<OpenCancellation>> attempts;
		Poco::Clock clock;
		for (int i = 0; i < 5; ++i)
		{
			attempts.emplace_back(new OpenCancellation);
			CPPUNIT_ASSERT(gate.enter(*attempts.back(), Deadline()));
		}
		CPPUNIT_ASSERT(msSince(clock) < 100);
		for (auto& attempt: attempts) CPPUNIT_ASSERT(gate.isInside(*attempt));
		StartupGate negative(Poco::Timespan(-5, 0));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), negative.stagger().totalMicroseconds());
	}

	void testLeaveIsIdempotent()
	{
		StartupGate gate(Poco::Timespan(10, 0));
		OpenCancellation a, b, stranger;
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		gate.leave(stranger);     // unknown: ignored
		CPPUNIT_ASSERT(gate.isInside(a));
		gate.leave(a);
		gate.leave(a);
		CPPUNIT_ASSERT(!gate.isInside(a));
		Poco::Clock clock;
		CPPUNIT_ASSERT(gate.enter(b, Deadline(Poco::Timespan(1, 0))));
		CPPUNIT_ASSERT(msSince(clock) < 50);
	}

	void testCancelShutsSocketsAtOnce()
	{
		// A receive blocked on a silent server ends as soon as another thread calls cancel(): the watch
		// shuts the socket down in the cancelling thread (no polling). On a loaded machine one trial can
		// be descheduled for tens of milliseconds, so five trials are made: every one must end long before
		// the receive timeout (5 s), and the fastest within 20 ms of cancel().
		Poco::Net::ServerSocket listener(Poco::Net::SocketAddress("127.0.0.1", 0));
		long fastest = -1;
		for (int trial = 0; trial < 5 && (fastest < 0 || fastest >= 20); ++trial)
		{
			const long latency = cancelBlockedReceive(listener);
			CPPUNIT_ASSERT_MESSAGE(std::to_string(latency) + " ms after cancel()", latency < 1000);
			if (fastest < 0 || latency < fastest) fastest = latency;
		}
		CPPUNIT_ASSERT_MESSAGE("the fastest of five ended " + std::to_string(fastest) + " ms after cancel()", fastest < 20);
	}

	static long cancelBlockedReceive(Poco::Net::ServerSocket& listener)
		// One trial of testCancelShutsSocketsAtOnce: the milliseconds from cancel() to the end of the receive.
	{
		Poco::Net::StreamSocket socket(listener.address());
		OpenCancellation cancellation;
		CancellationWatch watch(cancellation);
		watch.add(socket);
		CPPUNIT_ASSERT(!watch.isCancelled());
		Poco::Clock clock;
		std::atomic<long> cancelledAt{-1};
		std::thread canceller([&] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); cancelledAt = msSince(clock); cancellation.cancel(); });
		socket.setReceiveTimeout(Poco::Timespan(5, 0));
		char byte;
		int received = -1;
		try
		{
			received = socket.receiveBytes(&byte, 1);
		}
		catch (Poco::Exception&)
		{
			received = 0;
		}
		const long endedAt = msSince(clock);
		canceller.join();
		CPPUNIT_ASSERT_EQUAL(0, received);
		CPPUNIT_ASSERT(watch.isCancelled());
		CPPUNIT_ASSERT(watch.remove(socket)); // it had been shut down
		// A socket added after the cancellation is shut down at once.
		Poco::Net::StreamSocket late(listener.address());
		watch.add(late);
		CPPUNIT_ASSERT_EQUAL(0, late.receiveBytes(&byte, 1));
		watch.remove(late);
		return endedAt - cancelledAt;
	}

	void testConnectsInPlanOrderAtTheConnectStagger()
	{
		// A black-holed first host (connecting, never ending) holds the second back by one connect
		// stagger only; the third follows the second by another.
		StartupGate gate(Poco::Timespan(10, 0), Poco::Timespan(0, 100000));
		OpenCancellation a, b, c;
		gate.enroll(a);
		gate.enroll(b);
		gate.enroll(c);
		Poco::Clock clock;
		auto third = std::async(std::launch::async, [&] { bool r = gate.awaitConnect(c, Deadline()); return std::make_pair(r, msSince(clock)); });
		auto second = std::async(std::launch::async, [&] { bool r = gate.awaitConnect(b, Deadline()); return std::make_pair(r, msSince(clock)); });
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		CPPUNIT_ASSERT(gate.awaitConnect(a, Deadline()));   // the first in plan order goes at once
		const long aAt = msSince(clock);
		auto b2 = second.get();
		auto c3 = third.get();
		CPPUNIT_ASSERT(b2.first && c3.first);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(b2.second - aAt) + " ms", b2.second - aAt >= 90 && b2.second - aAt < 600);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(c3.second - b2.second) + " ms", c3.second - b2.second >= 90 && c3.second - b2.second < 600);
	}

	void testEndedPredecessorLetsTheNextConnect()
	{
		StartupGate gate(Poco::Timespan(10, 0), Poco::Timespan(10, 0));
		OpenCancellation a, b;
		gate.enroll(a);
		gate.enroll(b);
		CPPUNIT_ASSERT(gate.awaitConnect(a, Deadline()));
		auto second = std::async(std::launch::async, [&] { return gate.awaitConnect(b, Deadline()); });
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		CPPUNIT_ASSERT(second.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready);
		Poco::Clock clock;
		gate.leave(a);   // refused, say: the next one connects now, not after 10 s
		CPPUNIT_ASSERT(second.get());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(clock)) + " ms", msSince(clock) < 100);
	}

	void testNoConnectWhileAStartupRunsAlone()
	{
		// b connected at once and runs its startup: c does not connect (its server would fork a backend for
		// nothing) until b leaves, or b has run for the stagger.
		StartupGate gate(Poco::Timespan(0, 300000), Poco::Timespan(0, 1000));
		OpenCancellation a, b, c;
		gate.enroll(a);
		gate.enroll(b);
		gate.enroll(c);
		CPPUNIT_ASSERT(gate.awaitConnect(a, Deadline()));
		CPPUNIT_ASSERT(gate.awaitConnect(b, Deadline()));
		CPPUNIT_ASSERT(gate.enter(b, Deadline()));
		Poco::Clock clock;
		auto third = std::async(std::launch::async, [&] { bool r = gate.awaitConnect(c, Deadline()); return std::make_pair(r, msSince(clock)); });
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
		CPPUNIT_ASSERT(third.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready);
		gate.leave(b);   // b was rejected: c connects at once
		auto c3 = third.get();
		CPPUNIT_ASSERT(c3.first);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(c3.second) + " ms", c3.second >= 90 && c3.second < 250);

		// Held no longer than the stagger: y connects 300 ms after x entered.
		StartupGate second(Poco::Timespan(0, 300000), Poco::Timespan(0, 1000));
		OpenCancellation x, y;
		firstConnectsAndEnters(second, x, y);
		Poco::Clock held;
		CPPUNIT_ASSERT(second.awaitConnect(y, Deadline()));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(msSince(held)) + " ms", msSince(held) >= 280 && msSince(held) < 1000);

		// Closed while waiting to connect: gives up.
		StartupGate third2(Poco::Timespan(10, 0), Poco::Timespan(0, 1000));
		OpenCancellation p, q;
		firstConnectsAndEnters(third2, p, q);
		auto waiting = std::async(std::launch::async, [&] { return third2.awaitConnect(q, Deadline()); });
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		third2.close();
		CPPUNIT_ASSERT(!waiting.get());
	}

	static void firstConnectsAndEnters(StartupGate& gate, OpenCancellation& first, OpenCancellation& second)
		/// Enrolls both; first connects and enters its startup.
	{
		gate.enroll(first);
		gate.enroll(second);
		CPPUNIT_ASSERT(gate.awaitConnect(first, Deadline()));
		CPPUNIT_ASSERT(gate.enter(first, Deadline()));
	}

	void testNotEnrolledConnectsAtOnce()
	{
		StartupGate gate(Poco::Timespan(10, 0), Poco::Timespan(10, 0));
		OpenCancellation a, loner;
		gate.enroll(a);
		CPPUNIT_ASSERT(gate.awaitConnect(a, Deadline()));
		CPPUNIT_ASSERT(gate.enter(a, Deadline()));
		Poco::Clock clock;
		CPPUNIT_ASSERT(gate.awaitConnect(loner, Deadline()));
		CPPUNIT_ASSERT(msSince(clock) < 50);
		loner.cancel();
		CPPUNIT_ASSERT(!gate.awaitConnect(loner, Deadline()));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(StartupGateTest);
