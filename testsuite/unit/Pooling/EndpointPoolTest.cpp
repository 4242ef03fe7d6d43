//
// EndpointPoolTest.cpp
//
// EndpointPool and PoolManager with a fake session factory (no server): sizes per endpoint, idle LIFO,
// first-come-first-served waiting, handoff, overflow across pools, reset on return, broken sessions,
// draining, adopt(), statistics and unpooled pools (doc/pooling.md).
//

#include "PoolTestSupport.h"
#include "../../../Plugins/Eviction/StandardEvictionPolicy.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <functional>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

bool waitUntil(const std::function<bool()>& condition, int milliseconds = 5000)
{
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
	while (std::chrono::steady_clock::now() < until)
	{
		if (condition()) return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return condition();
}


Poco::Timestamp inMilliseconds(int milliseconds)
{
	return Poco::Timestamp() + Poco::Timespan::TimeDiff(milliseconds) * 1000;
}


PoolEntryPtr checkout(EndpointPool& pool)
	/// Immediate capacity only: an idle session, else a new one; null when neither.
{
	PoolEntryPtr entry = pool.tryTakeIdle();
	if (entry) return entry;
	if (pool.tryReserve()) return pool.openReserved();
	return nullptr;
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class EndpointPoolTest: public CppUnit::TestFixture
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
	CPPUNIT_TEST(testResetOnReturn);
	CPPUNIT_TEST(testDeferredResetOnReturn);
	CPPUNIT_TEST(testPruningFlushesPendingResets);
	CPPUNIT_TEST(testNoResetOnClose);
	CPPUNIT_TEST(testResetFailureCloses);
	CPPUNIT_TEST(testBrokenSessionDiscarded);
	CPPUNIT_TEST(testBrokenIdleSessionSkipped);
	CPPUNIT_TEST(testDrainWhileLeasesOut);
	CPPUNIT_TEST(testDrainFailsWaitersFast);
	CPPUNIT_TEST(testManagerDrain);
	CPPUNIT_TEST(testAdopt);
	CPPUNIT_TEST(testStatisticsConsistent);
	CPPUNIT_TEST(testUnpooled);
	CPPUNIT_TEST(testReleaseGoesToOwningPool);
	CPPUNIT_TEST(testLastKnownRole);
	CPPUNIT_TEST(testLastKnownRoleFromSessions);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp() override
	{
		_world = std::make_shared<FakeWorld>();
		_factory = std::make_shared<FakeSessionFactory>(_world);
		_clock = std::make_shared<ManualClock>();
	}

	void tearDown() override
	{
		_manager.reset();
		CPPUNIT_ASSERT_EQUAL(0, _world->live.load());
		CPPUNIT_ASSERT_EQUAL(0, _world->destroyedUnclosed.load());
		CPPUNIT_ASSERT_EQUAL(0, _world->doubleUse.load());
	}

	PoolManager& makeManager(const ConnectionSettings& settings, bool keepIdle = true, bool enforceMaximum = true)
	{
		PoolManager::Options options;
		options.keepIdle = keepIdle;
		options.enforceMaximum = enforceMaximum;
		options.startPruning = false;
		_manager.reset(new PoolManager(settings, _factory, std::make_shared<StandardEvictionPolicy>(), options, _clock));
		return *_manager;
	}

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

	void testResetOnReturn()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr entry = checkout(pool);
		const int id = fake(entry).id();
		fake(entry).executeSimple("BEGIN");
		pool.release(std::move(entry));
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"BEGIN", "ROLLBACK", "DISCARD ALL"}));
		entry = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(id, fake(entry).id());
		CPPUNIT_ASSERT(fake(entry).transactionStatus() == TransactionStatus::Idle);
		fake(entry).executeSimple("SELECT 1");
		pool.release(std::move(entry));
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"BEGIN", "ROLLBACK", "DISCARD ALL", "SELECT 1", "DISCARD ALL"}));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
	}

	void testDeferredResetOnReturn()
	{
		// A session that can defer its reset (ProtocolSession) goes back to idle without a round trip; its
		// DISCARD ALL travels with the next statement. With a transaction open, ROLLBACK and DISCARD ALL
		// still happen at once (no locks held by an idle session).
		_world->deferResets = true;
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr entry = checkout(pool);
		const int id = fake(entry).id();
		fake(entry).executeSimple("SET search_path = x");
		pool.release(std::move(entry));
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SET search_path = x"}));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
		entry = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(id, fake(entry).id());
		CPPUNIT_ASSERT(fake(entry).isResetPending());
		fake(entry).execute("SELECT $1", {std::string("1")});
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SET search_path = x", "DISCARD ALL", "SELECT $1"}));
		fake(entry).executeSimple("BEGIN");
		pool.release(std::move(entry));
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SET search_path = x", "DISCARD ALL", "SELECT $1", "BEGIN", "ROLLBACK", "DISCARD ALL"}));
		entry = pool.tryTakeIdle();
		CPPUNIT_ASSERT(!fake(entry).isResetPending());
		// Returned twice without a statement in between: one DISCARD ALL when it is next used.
		pool.release(std::move(entry));
		entry = pool.tryTakeIdle();
		pool.release(std::move(entry));
		entry = pool.tryTakeIdle();
		fake(entry).executeSimple("SELECT 2");
		const std::vector<std::string> sql = _world->sqlOf(id);
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), sql.at(sql.size() - 2));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 2"), sql.back());
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), sql.at(sql.size() - 3));   // the one after ROLLBACK
		CPPUNIT_ASSERT_EQUAL(std::string("ROLLBACK"), sql.at(sql.size() - 4));
		pool.release(std::move(entry));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), pool.statistics().created);
	}

	void testPruningFlushesPendingResets()
	{
		// An idle session whose deferred reset has waited a second is reset by pruning (the previous user's
		// session state, e.g. an advisory lock, is not kept for long); a failing reset closes it.
		_world->deferResets = true;
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr first = checkout(pool);
		PoolEntryPtr second = checkout(pool);
		const int id = fake(first).id();
		const int failingId = fake(second).id();
		fake(first).executeSimple("SELECT pg_advisory_lock(1)");
		fake(second).failNextReset();
		pool.release(std::move(first));
		pool.release(std::move(second));
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SELECT pg_advisory_lock(1)"}));   // not yet
		_clock->advance(Poco::Timespan(0, 999000));
		pool.prune();
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SELECT pg_advisory_lock(1)"}));
		_clock->advance(Poco::Timespan(0, 1000));
		pool.prune();
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SELECT pg_advisory_lock(1)", "DISCARD ALL"}));
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);   // the failing one was closed
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.closed);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.evicted);
		CPPUNIT_ASSERT(_world->sqlOf(failingId).empty());
		PoolEntryPtr again = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(id, fake(again).id());
		CPPUNIT_ASSERT(!fake(again).isResetPending());
		fake(again).executeSimple("SELECT 1");   // no second DISCARD ALL in front
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), _world->sqlOf(id).back());
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), _world->sqlOf(id).size());
		pool.release(std::move(again));
		pool.prune();   // returned just now: nothing to flush yet
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), _world->sqlOf(id).size());
	}

	void testNoResetOnClose()
	{
		ConnectionSettings settings = poolSettings(0, 1);
		settings.noResetOnClose = true;
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr entry = checkout(pool);
		const int id = fake(entry).id();
		fake(entry).executeSimple("SELECT 1");
		pool.release(std::move(entry));
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SELECT 1"}));
		// An open transaction is still rolled back: the next user must not inherit it.
		entry = pool.tryTakeIdle();
		fake(entry).beginTransaction();
		pool.release(std::move(entry));
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"SELECT 1", "ROLLBACK"}));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
	}

	void testResetFailureCloses()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr entry = checkout(pool);
		FakeSession& session = fake(entry);
		session.failNextReset();
		pool.release(std::move(entry));
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.closed);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.evicted);
		CPPUNIT_ASSERT_EQUAL(1, _world->closed.load());
		CPPUNIT_ASSERT_EQUAL(0, _world->live.load());
	}

	void testBrokenSessionDiscarded()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr entry = checkout(pool);
		const int first = fake(entry).id();
		pool.release(std::move(entry), true);
		CPPUNIT_ASSERT(_world->sqlOf(first).empty()); // no reset attempted on a broken session
		CPPUNIT_ASSERT_EQUAL(1, _world->closed.load());
		CPPUNIT_ASSERT(!pool.tryTakeIdle());
		entry = checkout(pool);
		const int second = fake(entry).id();
		CPPUNIT_ASSERT(second != first);
		// A session that knows it is broken is discarded even when the holder does not say so.
		fake(entry).breakConnection();
		pool.release(std::move(entry));
		CPPUNIT_ASSERT(!pool.tryTakeIdle());
		entry = checkout(pool);
		CPPUNIT_ASSERT(fake(entry).id() != second);
		CPPUNIT_ASSERT_EQUAL(3, _world->opened.load());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), stats.created);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), stats.closed);
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		pool.release(std::move(entry));
	}

	void testBrokenIdleSessionSkipped()
	{
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr a = checkout(pool);
		PoolEntryPtr b = checkout(pool);
		FakeSession* lastReturned = &fake(b);
		const int idA = fake(a).id();
		pool.release(std::move(a));
		pool.release(std::move(b));
		lastReturned->breakConnection(); // the server went away while it sat idle
		PoolEntryPtr entry = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(idA, fake(entry).id());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.closed);
		pool.release(std::move(entry));
	}

	void testDrainWhileLeasesOut()
	{
		PoolManager& manager = makeManager(poolSettings(1, 3));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		PoolEntryPtr busy1 = checkout(a);
		PoolEntryPtr busy2 = checkout(a);
		PoolEntryPtr idle = checkout(a);
		const int busyId = fake(busy1).id();
		a.release(std::move(idle));
		CPPUNIT_ASSERT_EQUAL(1, a.statistics().idle);

		a.drain();
		CPPUNIT_ASSERT(a.isDraining());
		CPPUNIT_ASSERT_EQUAL(1, _world->closed.load());
		PoolStatistics stats = a.statistics();
		CPPUNIT_ASSERT(stats.draining);
		CPPUNIT_ASSERT_EQUAL(2, stats.total);
		CPPUNIT_ASSERT_EQUAL(2, stats.busy);
		CPPUNIT_ASSERT_EQUAL(0, stats.idle);
		CPPUNIT_ASSERT(contains(stats.toString(), "draining"));

		// Nothing new from A.
		CPPUNIT_ASSERT(!a.tryTakeIdle());
		CPPUNIT_ASSERT(!a.tryReserve());
		auto started = std::chrono::steady_clock::now();
		try
		{
			manager.waitForAny({&a}, inMilliseconds(5000));
			CPPUNIT_FAIL("a draining pool handed out capacity");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(2000));
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "draining"));
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "127.0.0.1:5432 (draining, total=2"));
		}
		PoolGrant elsewhere = manager.waitForAny({&a, &b}, inMilliseconds(5000));
		CPPUNIT_ASSERT(elsewhere.pool == &b);
		b.cancelReservation();

		// Busy sessions close when they return, without a reset.
		a.release(std::move(busy1));
		a.release(std::move(busy2));
		CPPUNIT_ASSERT(_world->sqlOf(busyId).empty());
		CPPUNIT_ASSERT_EQUAL(3, _world->closed.load());
		stats = a.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), stats.closed);

		// Warm-up and adopt() keep nothing either.
		a.warmUp();
		CPPUNIT_ASSERT_EQUAL(3, _world->opened.load());
		a.adopt(_factory->open(endpointNo(1), manager.settings()));
		CPPUNIT_ASSERT_EQUAL(4, _world->closed.load());
		CPPUNIT_ASSERT_EQUAL(0, a.statistics().total);

		a.resume();
		CPPUNIT_ASSERT(!a.isDraining());
		PoolEntryPtr fresh = checkout(a);
		CPPUNIT_ASSERT(fresh);
		a.release(std::move(fresh));
		CPPUNIT_ASSERT_EQUAL(1, a.statistics().idle);
	}

	void testDrainFailsWaitersFast()
	{
		PoolManager& manager = makeManager(poolSettings(0, 1));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		PoolEntryPtr heldA = checkout(a);
		PoolEntryPtr heldB = checkout(b);
		std::string onlyAError;
		std::chrono::steady_clock::duration onlyAWaited{};
		std::thread onlyA([&]
		{
			auto started = std::chrono::steady_clock::now();
			try
			{
				manager.waitForAny({&a}, inMilliseconds(10000));
			}
			catch (BlueTuskPoolTimeoutException& exc)
			{
				onlyAError = exc.message();
			}
			onlyAWaited = std::chrono::steady_clock::now() - started;
		});
		CPPUNIT_ASSERT(waitUntil([&] { return a.statistics().pending == 1; }));
		PoolGrant both;
		std::thread aOrB([&] { both = manager.waitForAny({&a, &b}, inMilliseconds(10000)); });
		CPPUNIT_ASSERT(waitUntil([&] { return a.statistics().pending == 2; }));

		a.drain();
		onlyA.join();
		CPPUNIT_ASSERT_MESSAGE(onlyAError, contains(onlyAError, "every candidate pool is draining"));
		CPPUNIT_ASSERT(onlyAWaited < std::chrono::seconds(5));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), a.statistics().checkoutTimeouts);
		// The waiter that can be served elsewhere keeps waiting for B.
		CPPUNIT_ASSERT_EQUAL(1, b.statistics().pending);
		b.release(std::move(heldB));
		aOrB.join();
		CPPUNIT_ASSERT(both.pool == &b);
		CPPUNIT_ASSERT(both.entry);
		b.release(std::move(both.entry));
		a.release(std::move(heldA));
		CPPUNIT_ASSERT_EQUAL(0, a.statistics().total);
		CPPUNIT_ASSERT_EQUAL(1, b.statistics().idle);
	}

	void testManagerDrain()
	{
		PoolManager& manager = makeManager(poolSettings(2, 4));
		manager.warmUp({endpointNo(1), endpointNo(2), endpointNo(3)});
		CPPUNIT_ASSERT_EQUAL(6, manager.statistics().idle);
		PoolEntryPtr held = manager.pool(endpointNo(2)).tryTakeIdle();
		manager.drain();
		PoolStatistics all = manager.statistics();
		CPPUNIT_ASSERT(all.draining);
		CPPUNIT_ASSERT_EQUAL(1, all.total);
		CPPUNIT_ASSERT_EQUAL(5, _world->closed.load());
		for (EndpointPool* pool: manager.pools()) CPPUNIT_ASSERT(pool->isDraining());
		CPPUNIT_ASSERT_THROW(manager.waitForAny(manager.pools(), inMilliseconds(5000)), BlueTuskPoolTimeoutException);
		manager.pool(endpointNo(2)).release(std::move(held));
		CPPUNIT_ASSERT_EQUAL(0, manager.statistics().total);
		// Pruning does not warm a draining pool back up.
		manager.prune();
		CPPUNIT_ASSERT_EQUAL(6, _world->opened.load());
	}

	void testAdopt()
	{
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& pool = manager.pool(endpointNo(1));
		Session::Ptr loser = _factory->open(endpointNo(1), manager.settings());
		Session* raw = loser.get();
		pool.adopt(std::move(loser));
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.created);
		PoolEntryPtr entry = pool.tryTakeIdle();
		CPPUNIT_ASSERT(entry->session.get() == raw);
		CPPUNIT_ASSERT(entry->pool == &pool);
		PoolEntryPtr other = checkout(pool);

		// Full: an adopted session is closed, not kept beyond Maximum Pool Size.
		pool.adopt(_factory->open(endpointNo(1), manager.settings()));
		CPPUNIT_ASSERT_EQUAL(1, _world->closed.load());
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().total);
		pool.release(std::move(other), true);

		// A broken session is never adopted.
		Session::Ptr broken = _factory->open(endpointNo(1), manager.settings());
		dynamic_cast<FakeSession&>(*broken).breakConnection();
		pool.adopt(std::move(broken));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().total);
		pool.release(std::move(entry));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
		stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(stats.total, static_cast<int>(stats.created - stats.closed));
	}

	void testStatisticsConsistent()
	{
		PoolManager& manager = makeManager(poolSettings(1, 3));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		manager.warmUp({endpointNo(1), endpointNo(2)});
		PoolEntryPtr a1 = checkout(a);
		PoolEntryPtr a2 = checkout(a);
		CPPUNIT_ASSERT(b.tryReserve());
		PoolStatistics sa = a.statistics();
		PoolStatistics sb = b.statistics();
		CPPUNIT_ASSERT_EQUAL(2, sa.total);
		CPPUNIT_ASSERT_EQUAL(2, sa.busy);
		CPPUNIT_ASSERT_EQUAL(0, sa.idle);
		CPPUNIT_ASSERT_EQUAL(2, sb.total);   // one idle, one reservation
		CPPUNIT_ASSERT_EQUAL(1, sb.busy);
		CPPUNIT_ASSERT_EQUAL(1, sb.idle);
		CPPUNIT_ASSERT_EQUAL(1, sa.minSize);
		CPPUNIT_ASSERT_EQUAL(3, sa.maxSize);
		CPPUNIT_ASSERT_EQUAL(std::string("total=2 idle=0 busy=2 pending=0 created=2 closed=0 evicted=0 timeouts=0 failures=0 min=1 max=3 role=primary"), sa.toString());
		auto hosts = manager.hostStatistics();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), hosts.size());
		CPPUNIT_ASSERT_EQUAL(2, hosts[endpointNo(1)].busy);
		PoolStatistics all = manager.statistics();
		CPPUNIT_ASSERT_EQUAL(4, all.total);
		CPPUNIT_ASSERT_EQUAL(3, all.busy);
		CPPUNIT_ASSERT_EQUAL(1, all.idle);
		CPPUNIT_ASSERT_EQUAL(2, all.minSize);
		CPPUNIT_ASSERT_EQUAL(6, all.maxSize);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), all.created);
		CPPUNIT_ASSERT(all.lastKnownRole == ServerRole::Unknown);
		b.cancelReservation();
		a.release(std::move(a1));
		a.release(std::move(a2));
		all = manager.statistics();
		CPPUNIT_ASSERT_EQUAL(all.total, all.idle + all.busy);
		CPPUNIT_ASSERT_EQUAL(3, all.idle);
	}

	void testUnpooled()
	{
		PoolManager& manager = makeManager(poolSettings(5, 10), false, false);
		EndpointPool& pool = manager.pool(endpointNo(1));
		manager.warmUp({endpointNo(1)});
		CPPUNIT_ASSERT_EQUAL(0, _world->opened.load());
		std::vector<PoolEntryPtr> entries;
		for (int i = 0; i < 15; ++i) entries.push_back(checkout(pool)); // beyond Maximum Pool Size
		CPPUNIT_ASSERT(entries.back());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(15, stats.total);
		CPPUNIT_ASSERT_EQUAL(0, stats.maxSize);
		CPPUNIT_ASSERT_EQUAL(0, stats.minSize);
		const int id = fake(entries[0]).id();
		for (auto& entry: entries) pool.release(std::move(entry));
		// Closed at once and without a pointless reset.
		CPPUNIT_ASSERT(_world->sqlOf(id).empty());
		CPPUNIT_ASSERT_EQUAL(15, _world->closed.load());
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
		pool.adopt(_factory->open(endpointNo(1), manager.settings()));
		CPPUNIT_ASSERT_EQUAL(16, _world->closed.load());
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
		manager.prune();
		CPPUNIT_ASSERT_EQUAL(16, _world->opened.load());
	}

	void testReleaseGoesToOwningPool()
	{
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		PoolEntryPtr entry = checkout(a);
		b.release(std::move(entry));
		CPPUNIT_ASSERT_EQUAL(1, a.statistics().idle);
		CPPUNIT_ASSERT_EQUAL(0, a.statistics().busy);
		CPPUNIT_ASSERT_EQUAL(0, b.statistics().total);
		b.release(nullptr); // harmless
		CPPUNIT_ASSERT_EQUAL(0, b.statistics().total);
	}

	void testLastKnownRole()
	{
		PoolManager& manager = makeManager(poolSettings(0, 2));
		EndpointPool& a = manager.pool(endpointNo(1));
		CPPUNIT_ASSERT(a.lastKnownRole() == ServerRole::Unknown);
		a.setLastKnownRole(ServerRole::Standby);
		CPPUNIT_ASSERT(a.lastKnownRole() == ServerRole::Standby);
		CPPUNIT_ASSERT(a.statistics().lastKnownRole == ServerRole::Standby);
		CPPUNIT_ASSERT(manager.hostStatistics()[endpointNo(1)].lastKnownRole == ServerRole::Standby);
	}

	void testLastKnownRoleFromSessions()
	{
		// Sessions that know their role (PostgreSQL 14+ reports it at startup) fill in the pool's last known
		// role: warm-up alone, a new session, and an idle session handed out again.
		PoolManager& manager = makeManager(poolSettings(1, 3));
		EndpointPool& a = manager.pool(endpointNo(1));
		EndpointPool& b = manager.pool(endpointNo(2));
		_world->role = ServerRole::Standby;
		manager.warmUp({endpointNo(1)});
		CPPUNIT_ASSERT_EQUAL(1, a.statistics().idle);
		CPPUNIT_ASSERT(a.statistics().lastKnownRole == ServerRole::Standby);
		CPPUNIT_ASSERT(manager.hostStatistics()[endpointNo(1)].lastKnownRole == ServerRole::Standby);

		_world->role = ServerRole::PrimaryReadOnly;
		CPPUNIT_ASSERT(b.tryReserve());
		PoolEntryPtr opened = b.openReserved();
		CPPUNIT_ASSERT(b.lastKnownRole() == ServerRole::PrimaryReadOnly);

		_world->role = ServerRole::Primary;   // the idle session of a was promoted meanwhile
		PoolEntryPtr reused = a.tryTakeIdle();
		CPPUNIT_ASSERT(reused != nullptr);
		CPPUNIT_ASSERT(a.lastKnownRole() == ServerRole::Primary);

		_world->role = ServerRole::Unknown;   // a session that does not know its role changes nothing
		a.release(std::move(reused));
		CPPUNIT_ASSERT(a.tryReserve());
		PoolEntryPtr unknown = a.openReserved();
		CPPUNIT_ASSERT(a.lastKnownRole() == ServerRole::Primary);
		a.release(std::move(unknown));
		b.release(std::move(opened));
	}

private:
	std::shared_ptr<FakeWorld> _world;
	std::shared_ptr<FakeSessionFactory> _factory;
	std::shared_ptr<ManualClock> _clock;
	std::unique_ptr<PoolManager> _manager;
};


CPPUNIT_TEST_SUITE_REGISTRATION(EndpointPoolTest);
