//
// SaturatedCheckoutTest.cpp
//
// Checkouts past saturation (doc/pooling.md, checkout step 3): once checkouts wait for every endpoint of a
// data source's idle fast path, a newcomer joins their queue directly (PoolManager::waitBehindWaiters())
// instead of planning a Router pass. It must keep what the Router's wait gives: first come, first served
// across the endpoints, room granted by a closed session opened for the waiter whose turn it is (Router::
// Request::reserved), Checkout Timeout, and no capacity lost. Over the scripted fake SessionFactory.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "CapturingChannel.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Waiters
	/// Checkouts started one at a time, each once the previous one is queued (the pools' pending count), so
	/// that their arrival order is known; each keeps its lease and notes when it was served.
{
	explicit Waiters(BlueTuskDataSource::Ptr source): dataSource(std::move(source))
	{
	}

	~Waiters()
	{
		for (auto& thread: threads) thread.join();
	}

	int pending() const
		/// The checkouts waiting (the data source's statistics count waiters, each endpoint's its own).
	{
		return dataSource->getPoolStatistics().pending;
	}

	void start(int count)
		/// Starts count checkouts (once per Waiters), each once the one before is queued.
	{
		leases.resize(static_cast<std::size_t>(count));   // before any thread: they write their own element
		errors.resize(static_cast<std::size_t>(count));
		for (int i = 0; i < count; ++i)
		{
			const int before = pending();
			threads.emplace_back([this, i]()
			{
				const std::size_t mine = static_cast<std::size_t>(i);
				try
				{
					BlueTuskConnection lease = dataSource->open();
					std::lock_guard<std::mutex> lock(mutex);
					served.push_back(i);
					leases[mine].reset(new BlueTuskConnection(std::move(lease)));
				}
				catch (BlueTuskPoolTimeoutException& exc)
				{
					std::lock_guard<std::mutex> lock(mutex);
					errors[mine] = "timeout: " + exc.message();
					served.push_back(-1 - i);
				}
				catch (Poco::Exception& exc)
				{
					std::lock_guard<std::mutex> lock(mutex);
					errors[mine] = "other: " + exc.displayText();
					served.push_back(-1 - i);
				}
			});
			CPPUNIT_ASSERT_MESSAGE("waiter " + std::to_string(i) + " did not queue",
				within([&] { return pending() == before + 1; }));
		}
	}

	std::size_t servedCount()
	{
		std::lock_guard<std::mutex> lock(mutex);
		return served.size();
	}

	int last()
	{
		std::lock_guard<std::mutex> lock(mutex);
		return served.empty() ? -100 : served.back();
	}

	BlueTuskDataSource::Ptr dataSource;
	std::mutex mutex;
	std::vector<int> served;                                   /// waiter numbers in the order served (-1 - i: failed)
	std::vector<std::unique_ptr<BlueTuskConnection>> leases;   /// per waiter (under mutex while they run)
	std::vector<std::string> errors;
	std::vector<std::thread> threads;
};

} // namespace


class SaturatedCheckoutTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SaturatedCheckoutTest);
	CPPUNIT_TEST(testServedInArrivalOrder);
	CPPUNIT_TEST(testRoomGoesToTheWaiterWhoseTurnItIs);
	CPPUNIT_TEST(testCheckoutTimeout);
	CPPUNIT_TEST_SUITE_END();

public:
	void testServedInArrivalOrder()
	{
		// Two endpoints x Maximum Pool Size 2, all four sessions leased: the first waiter goes through the
		// Router (no one waits yet), the next three join the queue past saturation. Each return serves the
		// oldest waiter, whichever endpoint it comes back to, and nothing new is opened.
		FakeRoutingContext f;
		LogCapture log;
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Maximum Pool Size=2;Checkout Timeout=20"), f.context);
		std::vector<BlueTuskConnection> held;
		for (int i = 0; i < 4; ++i) held.push_back(dataSource->open());
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "a").busy);
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "b").busy);

		Waiters waiters(dataSource);
		waiters.start(4);
		CPPUNIT_ASSERT_EQUAL(4, hostStatistics(dataSource, "a").pending);   // each waits on both pools
		CPPUNIT_ASSERT_EQUAL(4, hostStatistics(dataSource, "b").pending);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), waiters.servedCount());
		// Returned in the order b, a, b, a: the endpoint does not change whose turn it is.
		const int order[] = {3, 0, 2, 1};
		for (int i = 0; i < 4; ++i)
		{
			held[static_cast<std::size_t>(order[i])].close();
			CPPUNIT_ASSERT(within([&] { return waiters.servedCount() == static_cast<std::size_t>(i + 1); }));
			CPPUNIT_ASSERT_EQUAL(i, waiters.last());
		}
		CPPUNIT_ASSERT_EQUAL(0, waiters.pending());
		CPPUNIT_ASSERT_EQUAL(4, f.world->totalOpens());   // every session was handed over, none opened
		// The first waiter went through the Router, the three after it joined the queue directly.
		int direct = 0;
		for (const std::string& message: log.channel().messages())
			direct += message.find("idle session handed over past saturation") != std::string::npos ? 1 : 0;
		CPPUNIT_ASSERT_EQUAL_MESSAGE(log.channel().text(), 3, direct);
		for (auto& lease: waiters.leases) lease->close();
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "a").idle);
		CPPUNIT_ASSERT_EQUAL(2, hostStatistics(dataSource, "b").idle);
	}

	void testRoomGoesToTheWaiterWhoseTurnItIs()
	{
		// Sessions lost while leased free room rather than sessions. The first waiter (through the Router) is
		// granted the first room and opens a session; the second, queued past saturation, is granted the next
		// and opens too (the Router opens on the room it holds) before the third, whose turn comes next, and
		// no room is lost.
		FakeRoutingContext f;
		auto dataSource = BlueTuskDataSource::create(fakeConnectionString("a", "Maximum Pool Size=2;Checkout Timeout=20"), f.context);
		BlueTuskConnection one = dataSource->open();
		BlueTuskConnection two = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(2, f.world->totalOpens());

		Waiters waiters(dataSource);
		waiters.start(3);
		one.session().close();   // the connection is lost while leased
		one.close();
		CPPUNIT_ASSERT(within([&] { return waiters.servedCount() == 1; }));
		CPPUNIT_ASSERT_EQUAL(0, waiters.last());
		CPPUNIT_ASSERT_EQUAL(3, f.world->totalOpens());

		two.session().close();
		two.close();
		CPPUNIT_ASSERT(within([&] { return waiters.servedCount() == 2; }));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(waiters.errors[1], 1, waiters.last());
		CPPUNIT_ASSERT_EQUAL(4, f.world->totalOpens());
		CPPUNIT_ASSERT_EQUAL(std::string("a"), waiters.leases[1]->connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(1, waiters.pending());   // the third still waits, in its place

		waiters.leases[0]->close();   // handed over to the third
		CPPUNIT_ASSERT(within([&] { return waiters.servedCount() == 3; }));
		CPPUNIT_ASSERT_EQUAL(2, waiters.last());
		CPPUNIT_ASSERT_EQUAL(4, f.world->totalOpens());

		for (auto& lease: waiters.leases) lease->close();
		PoolStatistics a = hostStatistics(dataSource, "a");
		CPPUNIT_ASSERT_EQUAL(0, a.busy);
		CPPUNIT_ASSERT_EQUAL(0, a.pending);
		CPPUNIT_ASSERT_EQUAL(2, a.total);
		CPPUNIT_ASSERT_EQUAL(2, a.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), a.closed);
	}

	void testCheckoutTimeout()
	{
		// A checkout queued past saturation ends at Checkout Timeout like any other, counted, its place in
		// the queue given up, the message naming the endpoint and no secret.
		// The endpoint's name is made a secret too, so that the message shows whether it was redacted.
		FakeRoutingContext f;
		ConnectionSettings settings = ConnectionSettings::parse(fakeConnectionString("hidden-host", "Maximum Pool Size=1;Checkout Timeout=0.5"));
		settings.addSecret("hidden-host");
		auto dataSource = BlueTuskDataSource::create(settings, f.context);
		BlueTuskConnection one = dataSource->open();
		Poco::Clock start;
		Waiters waiters(dataSource);
		waiters.start(2);
		CPPUNIT_ASSERT(within([&] { return waiters.servedCount() == 2; }));
		// Each ends at its own deadline, 0.5 s after it began (they began milliseconds apart).
		CPPUNIT_ASSERT_MESSAGE(std::to_string(start.elapsed()), start.elapsed() >= 450000 && start.elapsed() < 1500000);
		for (const std::string& error: waiters.errors)
		{
			CPPUNIT_ASSERT_MESSAGE(error, error.find("timeout: ") == 0);
			CPPUNIT_ASSERT_MESSAGE(error, error.find("***:5432") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(error, error.find("hidden-host") == std::string::npos);
		}
		CPPUNIT_ASSERT(!waiters.leases[0] && !waiters.leases[1]);
		PoolStatistics a = hostStatistics(dataSource, "hidden-host");
		CPPUNIT_ASSERT_EQUAL(0, a.pending);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), a.checkoutTimeouts);
		one.close();
		CPPUNIT_ASSERT_EQUAL(1, hostStatistics(dataSource, "hidden-host").idle);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SaturatedCheckoutTest);
