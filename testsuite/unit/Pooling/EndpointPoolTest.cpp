//
// EndpointPoolTest.cpp
//
// EndpointPool and PoolManager with a fake session factory (no server): sizes per endpoint, idle LIFO,
// first-come-first-served waiting, handoff and overflow across pools (doc/pooling.md).
//

#include "EndpointPoolFixture.h"
#include <atomic>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class EndpointPoolTest: public EndpointPoolFixture
{
	CPPUNIT_TEST_SUITE(EndpointPoolTest);
	CPPUNIT_TEST(testMaximumPerEndpoint);
	CPPUNIT_TEST(testIdleIsLifo);
	CPPUNIT_TEST(testDuplicateEndpointsSharePool);
	CPPUNIT_TEST(testWaitTimesOutWithCounts);
	CPPUNIT_TEST(testFifoWaitOrder);
	CPPUNIT_TEST(testHandOffOnRelease);
	CPPUNIT_TEST(testOverflowToOtherPool);
	CPPUNIT_TEST(testFifoAcrossPools);
	CPPUNIT_TEST(testClosedSessionGrantsReservation);
	CPPUNIT_TEST(testOpenFailureGrantsWaiter);
	CPPUNIT_TEST(testCancelReservationGrantsWaiter);
	CPPUNIT_TEST(testNoBargingWhileOthersWait);
	CPPUNIT_TEST(testGrantsRacingTimeoutsLoseNoLease);
	CPPUNIT_TEST_SUITE_END();

public:
	void testMaximumPerEndpoint()
	{
		PoolManager& manager = makeManager(poolSettings(0, 20));
		std::vector<EndpointPool*> pools;
		for (int n = 1; n <= 3; ++n) pools.push_back(&manager.pool(endpointNo(n)));
		std::vector<PoolEntryPtr> leases;
		for (EndpointPool* pool: pools)
		{
			for (int i = 0; i < 20; ++i)
			{
				PoolEntryPtr entry = checkout(*pool);
				CPPUNIT_ASSERT(entry);
				CPPUNIT_ASSERT(entry->pool == pool);
				CPPUNIT_ASSERT(entry->session->endpoint() == pool->endpoint());
				leases.push_back(std::move(entry));
			}
			CPPUNIT_ASSERT(!checkout(*pool));
		}
		CPPUNIT_ASSERT_EQUAL(60, _world->opened.load());
		PoolStatistics all = manager.statistics();
		CPPUNIT_ASSERT_EQUAL(60, all.total);
		CPPUNIT_ASSERT_EQUAL(60, all.busy);
		CPPUNIT_ASSERT_EQUAL(0, all.idle);
		CPPUNIT_ASSERT_EQUAL(60, all.maxSize);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(60), all.created);

		try
		{
			manager.waitForAny(pools, inMilliseconds(30));
			CPPUNIT_FAIL("a 61st session was handed out");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			for (int n = 1; n <= 3; ++n)
			{
				CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(),
					"127.0.0." + std::to_string(n) + ":5432 (total=20, idle=0, busy=20, pending=1, max=20)"));
			}
		}
		CPPUNIT_ASSERT_EQUAL(60, _world->opened.load());
		for (auto& entry: manager.hostStatistics())
		{
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), entry.second.checkoutTimeouts);
			CPPUNIT_ASSERT_EQUAL(0, entry.second.pending);
			CPPUNIT_ASSERT_EQUAL(20, entry.second.total);
		}
		for (auto& entry: leases)
		{
			EndpointPool* pool = entry->pool;
			pool->release(std::move(entry));
		}
		all = manager.statistics();
		CPPUNIT_ASSERT_EQUAL(60, all.idle);
		CPPUNIT_ASSERT_EQUAL(0, all.busy);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), all.closed);
	}

	void testIdleIsLifo()
	{
		PoolManager& manager = makeManager(poolSettings(0, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr a = checkout(pool);
		PoolEntryPtr b = checkout(pool);
		const int idA = fake(a).id();
		const int idB = fake(b).id();
		pool.release(std::move(b));
		pool.release(std::move(a));
		PoolEntryPtr first = pool.tryTakeIdle();
		PoolEntryPtr second = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(idA, fake(first).id());
		CPPUNIT_ASSERT_EQUAL(idB, fake(second).id());
		CPPUNIT_ASSERT(!pool.tryTakeIdle());
		CPPUNIT_ASSERT_EQUAL(2, _world->opened.load());
		pool.release(std::move(first));
		pool.release(std::move(second));
	}

	void testDuplicateEndpointsSharePool()
	{
		PoolManager& manager = makeManager(poolSettings(2, 5));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(BlueTuskHostEndpoint("127.0.0.1", 5432));
		CPPUNIT_ASSERT(&a == &b);
		CPPUNIT_ASSERT(&a != &manager.pool(BlueTuskHostEndpoint("127.0.0.1", 5433)));
		manager.warmUp({endpointNo(1), endpointNo(1), endpointNo(2)});
		CPPUNIT_ASSERT_EQUAL(4, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), manager.pools().size());
		CPPUNIT_ASSERT(manager.pools()[0] == &a);
		CPPUNIT_ASSERT_EQUAL(2, a.statistics().idle);
	}

	void testWaitTimesOutWithCounts()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr held = checkout(pool);
		auto started = std::chrono::steady_clock::now();
		try
		{
			manager.waitForAny({&pool}, inMilliseconds(150));
			CPPUNIT_FAIL("waitForAny returned without capacity");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
			CPPUNIT_ASSERT(waited >= 140);
			CPPUNIT_ASSERT(waited < 2000);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "127.0.0.1:5432 (total=1, idle=0, busy=1, pending=1, max=1)"));
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "Maximum Pool Size"));
		}
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.checkoutTimeouts);
		CPPUNIT_ASSERT_EQUAL(0, stats.pending);
		// A deadline already past fails at once.
		started = std::chrono::steady_clock::now();
		CPPUNIT_ASSERT_THROW(manager.waitForAny({&pool}, Poco::Timestamp() - 1000), BlueTuskPoolTimeoutException);
		CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(100));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), pool.statistics().checkoutTimeouts);
		pool.release(std::move(held));
	}

	void testFifoWaitOrder()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr held = checkout(pool);
		const int sessionId = fake(held).id();

		std::mutex mutex;
		std::vector<int> order;
		std::vector<int> sessionsSeen;
		std::vector<std::thread> threads;
		for (int i = 0; i < 4; ++i)
		{
			threads.emplace_back([&, i]
			{
				PoolGrant grant = manager.waitForAny({&pool}, inMilliseconds(5000));
				{
					std::lock_guard<std::mutex> lock(mutex);
					order.push_back(i);
					sessionsSeen.push_back(grant.entry ? fake(grant.entry).id() : -1);
				}
				std::this_thread::sleep_for(std::chrono::milliseconds(2));
				grant.pool->release(std::move(grant.entry));
			});
			// The next waiter starts only once this one is queued.
			CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == i + 1; }));
		}
		pool.release(std::move(held));
		for (auto& thread: threads) thread.join();
		CPPUNIT_ASSERT((order == std::vector<int>{0, 1, 2, 3}));
		CPPUNIT_ASSERT((sessionsSeen == std::vector<int>{sessionId, sessionId, sessionId, sessionId}));
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		CPPUNIT_ASSERT_EQUAL(0, stats.pending);
	}

	void testHandOffOnRelease()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr held = checkout(pool);
		const int sessionId = fake(held).id();
		PoolGrant received;
		std::thread waiter([&] { received = manager.waitForAny({&pool}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == 1; }));
		fake(held).executeSimple("BEGIN");
		pool.release(std::move(held));
		waiter.join();
		CPPUNIT_ASSERT(received.pool == &pool);
		CPPUNIT_ASSERT(received.entry);
		CPPUNIT_ASSERT_EQUAL(sessionId, fake(received.entry).id());
		CPPUNIT_ASSERT(received.entry->pool == &pool);
		// The session was reset before the handoff.
		CPPUNIT_ASSERT((_world->sqlOf(sessionId) == std::vector<std::string>{"BEGIN", "ROLLBACK", "DISCARD ALL"}));
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT_EQUAL(1, stats.busy);
		CPPUNIT_ASSERT_EQUAL(0, stats.idle);
		pool.release(std::move(received.entry));
	}

	void testOverflowToOtherPool()
	{
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		PoolEntryPtr a1 = checkout(a);
		PoolEntryPtr a2 = checkout(a);
		CPPUNIT_ASSERT(!checkout(a));

		// A saturated: the wait over both gets B's capacity at once.
		auto started = std::chrono::steady_clock::now();
		PoolGrant grant = manager.waitForAny({&a, &b}, inMilliseconds(5000));
		CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(2000));
		CPPUNIT_ASSERT(grant.pool == &b);
		CPPUNIT_ASSERT(grant.isReservation());
		PoolEntryPtr b1 = b.openReserved();
		CPPUNIT_ASSERT(b1->session->endpoint() == endpointNo(2));
		PoolEntryPtr b2 = checkout(b);
		CPPUNIT_ASSERT(b2);

		// Both saturated: a session returning to B goes to the waiter on both.
		PoolGrant received;
		std::thread waiter([&] { received = manager.waitForAny({&a, &b}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return b.statistics().pending == 1 && a.statistics().pending == 1; }));
		CPPUNIT_ASSERT_EQUAL(1, manager.statistics().pending);
		const int b2Id = fake(b2).id();
		b.release(std::move(b2));
		waiter.join();
		CPPUNIT_ASSERT(received.pool == &b);
		CPPUNIT_ASSERT_EQUAL(b2Id, fake(received.entry).id());
		CPPUNIT_ASSERT_EQUAL(0, a.statistics().pending);
		CPPUNIT_ASSERT_EQUAL(4, _world->opened.load());

		a.release(std::move(a1));
		a.release(std::move(a2));
		b.release(std::move(b1));
		b.release(std::move(received.entry));
		CPPUNIT_ASSERT_EQUAL(4, manager.statistics().idle);
	}

	void testFifoAcrossPools()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		PoolEntryPtr heldA = checkout(a);
		PoolEntryPtr heldB = checkout(b);
		PoolGrant first, second;
		std::thread w1([&] { first = manager.waitForAny({&a}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return a.statistics().pending == 1; }));
		std::thread w2([&] { second = manager.waitForAny({&a, &b}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return a.statistics().pending == 2 && b.statistics().pending == 1; }));

		// B's session can only go to the second waiter; the first keeps waiting for A.
		b.release(std::move(heldB));
		w2.join();
		CPPUNIT_ASSERT(second.pool == &b);
		CPPUNIT_ASSERT(second.entry);
		CPPUNIT_ASSERT_EQUAL(1, a.statistics().pending);
		CPPUNIT_ASSERT(first.empty());

		a.release(std::move(heldA));
		w1.join();
		CPPUNIT_ASSERT(first.pool == &a);
		CPPUNIT_ASSERT(first.entry);
		a.release(std::move(first.entry));
		b.release(std::move(second.entry));
	}

	void testClosedSessionGrantsReservation()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr held = checkout(pool);
		const int oldId = fake(held).id();
		PoolGrant received;
		std::thread waiter([&] { received = manager.waitForAny({&pool}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == 1; }));
		pool.release(std::move(held), true);
		waiter.join();
		CPPUNIT_ASSERT(received.pool == &pool);
		CPPUNIT_ASSERT(received.isReservation());
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().busy);
		PoolEntryPtr fresh = pool.openReserved();
		CPPUNIT_ASSERT(fake(fresh).id() != oldId);
		CPPUNIT_ASSERT_EQUAL(2, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(1, _world->closed.load());
		pool.release(std::move(fresh));
	}

	void testOpenFailureGrantsWaiter()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		CPPUNIT_ASSERT(pool.tryReserve());
		PoolGrant received;
		std::thread waiter([&] { received = manager.waitForAny({&pool}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == 1; }));
		_world->failNextOpens = 1;
		try
		{
			pool.openReserved();
			CPPUNIT_FAIL("the injected open failure did not propagate");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT(contains(exc.message(), "127.0.0.1:5432: connection refused (injected)"));
		}
		waiter.join();
		CPPUNIT_ASSERT(received.isReservation());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.connectFailures);
		CPPUNIT_ASSERT_EQUAL(1, stats.busy);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.created);
		pool.cancelReservation();
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
	}

	void testCancelReservationGrantsWaiter()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(!pool.tryReserve());
		PoolGrant received;
		std::thread waiter([&] { received = manager.waitForAny({&pool}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == 1; }));
		pool.cancelReservation();
		waiter.join();
		CPPUNIT_ASSERT(received.isReservation());
		PoolEntryPtr entry = pool.openReserved();
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().total);
		pool.release(std::move(entry));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
	}

	void testNoBargingWhileOthersWait()
	{
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		PoolEntryPtr a1 = checkout(a);
		PoolEntryPtr a2 = checkout(a);
		PoolEntryPtr b1 = checkout(b);
		PoolEntryPtr b2 = checkout(b);
		PoolGrant received;
		std::thread waiter([&] { received = manager.waitForAny({&a}, inMilliseconds(5000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return a.statistics().pending == 1; }));
		CPPUNIT_ASSERT(!a.tryTakeIdle());
		CPPUNIT_ASSERT(!a.tryReserve());
		// A pool nobody waits for still serves at once.
		b.release(std::move(b2));
		PoolEntryPtr again = b.tryTakeIdle();
		CPPUNIT_ASSERT(again);
		// The waiter, not a later checkout, gets A's next session.
		const int a1Id = fake(a1).id();
		a.release(std::move(a1));
		waiter.join();
		CPPUNIT_ASSERT_EQUAL(a1Id, fake(received.entry).id());
		a.release(std::move(a2));
		a.release(std::move(received.entry));
		b.release(std::move(b1));
		b.release(std::move(again));
	}

	void testGrantsRacingTimeoutsLoseNoLease()
	{
		// A waiter is woken after the pool's lock is released, so a grant and the waiter's own timeout can
		// meet: the waiter must take a grant made before it gave up, and a grant must never go to a waiter
		// that already left. 6 threads on 2 sessions with 1-3 ms deadlines for 300 ms: every checkout ends
		// either with a session or with a timeout, and at the end every session is back.
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& pool = manager.pool(endpointNo(1));
		std::atomic<int> granted{0};
		std::atomic<int> timedOut{0};
		std::atomic<int> held{0};
		std::atomic<int> overCapacity{0};
		const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
		std::vector<std::thread> threads;
		for (int i = 0; i < 6; ++i)
		{
			threads.emplace_back([&, i]
			{
				while (std::chrono::steady_clock::now() < until)
				{
					try
					{
						PoolGrant grant = manager.waitForAny({&pool}, inMilliseconds(1 + i % 3));
						PoolEntryPtr entry = grant.entry ? std::move(grant.entry) : grant.pool->openReserved();
						if (++held > 2) ++overCapacity;
						++granted;
						std::this_thread::yield();
						--held;
						grant.pool->release(std::move(entry));
					}
					catch (BlueTuskPoolTimeoutException&)
					{
						++timedOut;
					}
				}
			});
		}
		for (auto& thread: threads) thread.join();
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), 0, stats.busy);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), 0, stats.pending);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), stats.total, stats.idle);
		CPPUNIT_ASSERT(stats.total <= 2);
		CPPUNIT_ASSERT_EQUAL(0, overCapacity.load());
		CPPUNIT_ASSERT(granted.load() > 100);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(timedOut.load()), stats.checkoutTimeouts);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(EndpointPoolTest);
