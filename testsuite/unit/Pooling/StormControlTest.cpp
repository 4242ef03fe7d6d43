//
// StormControlTest.cpp
//
// Storm control in the pools (doc/high-availability.md, "Storm control"): Max Connecting bounds the
// opens in flight per endpoint (checkouts, waiters and warm-up alike) and an open that ends wakes a waiter;
// SQLSTATE 53300 backs the pool off while what is open is reused; Connection Lifetime jitter spreads the
// retirement of sessions opened together; openIdle() and closeIdle(n), the rebalancing's two moves.
//

#include "EndpointPoolFixture.h"
#include <atomic>
#include <set>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

ConnectionSettings stormSettings(int maxConnecting, int maxPoolSize = 10)
{
	ConnectionSettings settings;
	settings.maxConnecting = maxConnecting;
	settings.maxPoolSize = maxPoolSize;
	settings.checkoutTimeout = Poco::Timespan(10, 0);
	return settings;
}


PoolEntryPtr checkoutWaiting(PoolManager& manager, EndpointPool& pool, int milliseconds)
	/// What a data source's checkout does with one pool: an idle session or a reservation, waiting first
	/// come first served; a reservation refused with 53300 waits again (until the deadline: then
	/// BlueTuskPoolTimeoutException).
{
	const Poco::Timestamp deadline = inMilliseconds(milliseconds);
	for (;;)
	{
		PoolGrant grant = manager.waitForAny({&pool}, deadline);
		if (grant.entry) return std::move(grant.entry);
		try
		{
			return pool.openReserved();
		}
		catch (BlueTuskServerException& exc)
		{
			if (exc.sqlState() != "53300") throw;
		}
	}
}

} // namespace


class StormControlTest: public EndpointPoolFixture
{
	CPPUNIT_TEST_SUITE(StormControlTest);
	CPPUNIT_TEST(testMaxConnectingLimitsReservations);
	CPPUNIT_TEST(testMaxConnectingZeroIsNoLimit);
	CPPUNIT_TEST(testOpenEndWakesWaiter);
	CPPUNIT_TEST(testConcurrentCheckoutsStayWithinMaxConnecting);
	CPPUNIT_TEST(testWarmUpWaitsForMaxConnecting);
	CPPUNIT_TEST(testRefusalBacksOffAndReusesOpenSessions);
	CPPUNIT_TEST(testRefusalTimeoutSays53300);
	CPPUNIT_TEST(testSuccessfulOpenEndsBackoff);
	CPPUNIT_TEST(testDirectOpensDoNotBackOff);
	CPPUNIT_TEST(testOpenIdleAndCloseIdle);
	CPPUNIT_TEST(testShortageTellsWhy);
	CPPUNIT_TEST(testLifetimeJitterSpreadsRetirements);
	CPPUNIT_TEST_SUITE_END();

public:
	void testMaxConnectingLimitsReservations()
	{
		PoolManager& manager = makeManager(stormSettings(2));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(!pool.tryReserve());   // two opens in flight: Max Connecting=2
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(2, stats.connecting);
		CPPUNIT_ASSERT_EQUAL(2, stats.busy);
		CPPUNIT_ASSERT_EQUAL(stats.total, stats.busy + stats.idle);
		CPPUNIT_ASSERT(contains(stats.toString(), "connecting=2"));

		pool.cancelReservation();
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().connecting);
		CPPUNIT_ASSERT(pool.tryReserve());
		PoolEntryPtr first = pool.openReserved();   // an open that ends frees its slot
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().connecting);
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(!pool.tryReserve());
		_world->failNextOpens = 1;
		CPPUNIT_ASSERT_THROW(pool.openReserved(), BlueTuskTransportException);   // so does a failed one
		stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.connecting);
		CPPUNIT_ASSERT_EQUAL(2, stats.busy);   // the first session and the last reservation
		pool.cancelReservation();
		pool.release(std::move(first));
		stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT(!contains(stats.toString(), "connecting="));
	}

	void testMaxConnectingZeroIsNoLimit()
	{
		PoolManager& manager = makeManager(stormSettings(0));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		for (int i = 0; i < 10; ++i) CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(!pool.tryReserve());   // Maximum Pool Size still holds
		CPPUNIT_ASSERT_EQUAL(10, pool.statistics().connecting);
		for (int i = 0; i < 10; ++i) pool.cancelReservation();
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().connecting);
	}

	void testOpenEndWakesWaiter()
	{
		PoolManager& manager = makeManager(stormSettings(1));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		std::vector<PoolEntryPtr> held;   // nothing goes idle: the waiter can only get the freed slot
		for (bool fail: {false, true})
		{
			CPPUNIT_ASSERT(pool.tryReserve());
			std::atomic<bool> granted{false};
			std::atomic<bool> reservation{false};
			std::thread waiter([&]
			{
				PoolGrant grant = manager.waitForAny({&pool}, inMilliseconds(10000));
				reservation = grant.isReservation();
				granted = true;
				if (grant.isReservation()) pool.cancelReservation();
			});
			CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == 1; }));
			Poco::Thread::sleep(50);
			CPPUNIT_ASSERT(!granted);   // room below the maximum, but one open in flight already
			PoolEntryPtr entry;
			if (fail)
			{
				_world->failNextOpens = 1;
				CPPUNIT_ASSERT_THROW(pool.openReserved(), BlueTuskTransportException);
			}
			else entry = pool.openReserved();
			waiter.join();
			CPPUNIT_ASSERT(granted);
			CPPUNIT_ASSERT(reservation);   // the open's end handed its slot to the waiter
			if (entry) held.push_back(std::move(entry));
		}
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().connecting);
		for (auto& entry: held) pool.release(std::move(entry));
	}

	void testConcurrentCheckoutsStayWithinMaxConnecting()
	{
		PoolManager& manager = makeManager(stormSettings(2, 8));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		_world->openDelayMicroseconds = 100000;
		const int threads = 8;
		std::atomic<int> done{0};
		std::atomic<int> failed{0};
		std::atomic<bool> inconsistent{false};
		std::atomic<bool> stop{false};
		std::thread watcher([&]
		{
			while (!stop)
			{
				const PoolStatistics stats = pool.statistics();
				if (stats.connecting > 2 || stats.busy + stats.idle != stats.total || stats.connecting > stats.busy) inconsistent = true;
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
			}
		});
		std::vector<std::thread> workers;
		for (int t = 0; t < threads; ++t)
		{
			workers.emplace_back([&]
			{
				try
				{
					for (int i = 0; i < 3; ++i)
					{
						PoolEntryPtr entry = checkoutWaiting(manager, pool, 20000);
						std::this_thread::sleep_for(std::chrono::milliseconds(5));
						pool.release(std::move(entry));
					}
					++done;
				}
				catch (...)
				{
					++failed;
				}
			});
		}
		for (auto& worker: workers) worker.join();
		stop = true;
		watcher.join();
		CPPUNIT_ASSERT_EQUAL(0, failed.load());
		CPPUNIT_ASSERT_EQUAL(threads, done.load());
		CPPUNIT_ASSERT(!inconsistent);
		CPPUNIT_ASSERT(_world->peakOpening.load() <= 2);
		CPPUNIT_ASSERT(_world->peakOpening.load() >= 1);
		const PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);
		CPPUNIT_ASSERT(stats.total <= 8);
		CPPUNIT_ASSERT_EQUAL(stats.total, stats.idle);
	}

	void testWarmUpWaitsForMaxConnecting()
	{
		ConnectionSettings settings = stormSettings(1);
		settings.minPoolSize = 3;
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool({"db-a", 5432});
		CPPUNIT_ASSERT(pool.tryReserve());   // the one open allowed
		std::thread warm([&] { pool.warmUp(); });
		Poco::Thread::sleep(100);
		CPPUNIT_ASSERT_EQUAL(0, _world->opened.load());   // warm-up waits for the open in flight
		pool.cancelReservation();
		warm.join();
		CPPUNIT_ASSERT_EQUAL(2, _world->opened.load());   // the reservation held the third place
		pool.warmUp();
		CPPUNIT_ASSERT_EQUAL(3, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(1, _world->peakOpening.load());
		const PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(3, stats.idle);
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);

		// The pruning pass gives up instead of waiting: its next pass tops up.
		PoolEntryPtr a = pool.tryTakeIdle();
		PoolEntryPtr b = pool.tryTakeIdle();
		pool.release(std::move(a), true);   // broken: closed
		pool.release(std::move(b), true);   // one left
		CPPUNIT_ASSERT(pool.tryReserve());  // two, one of them an open in flight
		pool.prune();
		CPPUNIT_ASSERT_EQUAL(3, _world->opened.load());
		pool.cancelReservation();
		pool.prune();
		CPPUNIT_ASSERT_EQUAL(5, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(3, pool.statistics().idle);
	}

	void testRefusalBacksOffAndReusesOpenSessions()
	{
		PoolManager& manager = makeManager(stormSettings(2));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		PoolEntryPtr held = checkout(pool);
		CPPUNIT_ASSERT(held);
		Session* heldSession = held->session.get();
		_world->refuseOpens = true;

		CPPUNIT_ASSERT(pool.tryReserve());
		try
		{
			pool.openReserved();
			CPPUNIT_FAIL("53300 expected");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("53300"), exc.sqlState());
		}
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.refusals);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.connectFailures);
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);
		CPPUNIT_ASSERT(!pool.tryReserve());   // backing off: no new open now
		CPPUNIT_ASSERT(contains(stats.toString(), "refused=1"));

		// A checkout waits; its retries at the backoff's ends are refused; the returned session is reused.
		std::atomic<Session*> got{nullptr};
		std::thread waiter([&]
		{
			PoolEntryPtr entry = checkoutWaiting(manager, pool, 20000);
			got = entry->session.get();
			pool.release(std::move(entry));
		});
		Poco::Thread::sleep(400);   // backoffs of 50, 100, 200 ms: a few refused retries
		CPPUNIT_ASSERT(got.load() == nullptr);
		pool.release(std::move(held));
		waiter.join();
		CPPUNIT_ASSERT(got.load() == heldSession);
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());
		stats = pool.statistics();
		CPPUNIT_ASSERT(stats.refusals >= 2);
		CPPUNIT_ASSERT(stats.refusals <= 6);   // 50 ms doubling: not a retry per waiter wake-up
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.checkoutTimeouts);
	}

	void testRefusalTimeoutSays53300()
	{
		PoolManager& manager = makeManager(stormSettings(2));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		_world->refuseOpens = true;
		try
		{
			checkoutWaiting(manager, pool, 400);
			CPPUNIT_FAIL("BlueTuskPoolTimeoutException expected");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			CPPUNIT_ASSERT(contains(exc.message(), "53300"));
			CPPUNIT_ASSERT(contains(exc.message(), "too many connections for role"));
			CPPUNIT_ASSERT(contains(exc.message(), "CONNECTION LIMIT"));
		}
		const PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT(stats.refusals >= 2);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.checkoutTimeouts);
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);
	}

	void testSuccessfulOpenEndsBackoff()
	{
		PoolManager& manager = makeManager(stormSettings(2));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		_world->refuseOpens = true;
		for (int i = 0; i < 4; ++i)   // backoff 50, 100, 200, 400 ms
		{
			CPPUNIT_ASSERT(waitUntil([&] { return pool.tryReserve(); }, 2000));
			CPPUNIT_ASSERT_THROW(pool.openReserved(), BlueTuskServerException);
		}
		_world->refuseOpens = false;
		CPPUNIT_ASSERT(waitUntil([&] { return pool.tryReserve(); }, 2000));
		PoolEntryPtr entry = pool.openReserved();
		pool.release(std::move(entry));
		// After the success the next refusal backs off 50 ms again, not 800 ms.
		_world->refuseOpens = true;
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT_THROW(pool.openReserved(), BlueTuskServerException);
		Poco::Thread::sleep(150);
		CPPUNIT_ASSERT(pool.tryReserve());
		pool.cancelReservation();
	}

	void testDirectOpensDoNotBackOff()
	{
		PoolManager& manager = makeManager(stormSettings(2), false, false);   // as BlueTuskConnection::open
		EndpointPool& pool = manager.pool({"db-a", 5432});
		_world->refuseOpens = true;
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT_THROW(pool.openReserved(), BlueTuskServerException);
		CPPUNIT_ASSERT(pool.tryReserve());   // the router goes on (a later pass may try again at once)
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(pool.tryReserve());   // and Max Connecting is a data source's limit only
		for (int i = 0; i < 3; ++i) pool.cancelReservation();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), pool.statistics().refusals);
	}

	void testOpenIdleAndCloseIdle()
	{
		PoolManager& manager = makeManager(stormSettings(1, 3));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		CPPUNIT_ASSERT(pool.openIdle());
		CPPUNIT_ASSERT(pool.openIdle());
		PoolEntryPtr busy = pool.tryTakeIdle();
		CPPUNIT_ASSERT(pool.openIdle());
		CPPUNIT_ASSERT(!pool.openIdle());   // full
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(3, stats.total);
		CPPUNIT_ASSERT_EQUAL(2, stats.idle);
		CPPUNIT_ASSERT_EQUAL(3, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(2, pool.closeIdle(5));   // never the busy one
		stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT_EQUAL(1, stats.busy);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), stats.closed);
		CPPUNIT_ASSERT_EQUAL(0, pool.closeIdle(1));
		CPPUNIT_ASSERT(pool.tryReserve());
		CPPUNIT_ASSERT(!pool.openIdle());   // Max Connecting=1: the reservation is in flight
		pool.cancelReservation();
		_world->failNextOpens = 1;
		CPPUNIT_ASSERT(!pool.openIdle());   // a failed open is counted, not thrown
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), pool.statistics().connectFailures);
		pool.release(std::move(busy));
	}

	void testShortageTellsWhy()
	{
		// What the router needs to tell a preferred endpoint that is only opening (it waits for it) from one
		// that is full, refused or draining (it takes a fallback at once): doc/pooling.md.
		PoolManager& manager = makeManager(stormSettings(1, 3));
		EndpointPool& pool = manager.pool({"db-a", 5432});
		PoolShortage shortage = PoolShortage::Full;
		CPPUNIT_ASSERT(pool.tryReserve(shortage));
		CPPUNIT_ASSERT(shortage == PoolShortage::None);
		CPPUNIT_ASSERT(!pool.tryReserve(shortage));
		CPPUNIT_ASSERT(shortage == PoolShortage::Opening);   // Max Connecting=1, room for two more
		PoolEntryPtr first = pool.openReserved();
		// One open in flight and one checkout waiting for the last room: full for the next checkout.
		CPPUNIT_ASSERT(pool.tryReserve(shortage));
		std::thread waiter([&]
		{
			PoolGrant grant = manager.waitForAny({&pool}, inMilliseconds(10000));
			if (grant.isReservation()) pool.cancelReservation();
		});
		CPPUNIT_ASSERT(waitUntil([&] { return pool.statistics().pending == 1; }));
		CPPUNIT_ASSERT(!pool.tryReserve(shortage));
		CPPUNIT_ASSERT(shortage == PoolShortage::Full);
		pool.cancelReservation();   // the slot goes to the waiter, which gives it back
		waiter.join();
		PoolEntryPtr second = checkout(pool);
		CPPUNIT_ASSERT(second);
		CPPUNIT_ASSERT(pool.tryReserve(shortage));            // the third session's open
		CPPUNIT_ASSERT(!pool.tryReserve(shortage));
		CPPUNIT_ASSERT(shortage == PoolShortage::Full);       // three of three, one of them opening
		pool.cancelReservation();
		_world->refuseOpens = true;
		CPPUNIT_ASSERT(pool.tryReserve(shortage));
		CPPUNIT_ASSERT_THROW(pool.openReserved(), BlueTuskServerException);
		CPPUNIT_ASSERT(!pool.tryReserve(shortage));
		CPPUNIT_ASSERT(shortage == PoolShortage::Refused);    // a 53300 backoff runs
		_world->refuseOpens = false;
		pool.drain();
		CPPUNIT_ASSERT(!pool.tryReserve(shortage));
		CPPUNIT_ASSERT(shortage == PoolShortage::Draining);
		pool.release(std::move(first));
		pool.release(std::move(second));
	}

	void testLifetimeJitterSpreadsRetirements()
	{
		// Twenty sessions opened together with Connection Lifetime=100 s: each loses up to 10 s, so at 95 s
		// some but not all are retired, and by 100 s all of them (the chance that none or all of twenty
		// lifetimes falls below 95 s is 2 in a million).
		ConnectionSettings settings = stormSettings(0, 20);
		settings.minPoolSize = 20;
		settings.connectionLifetime = Poco::Timespan(100, 0);
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool({"db-a", 5432});
		pool.warmUp();
		CPPUNIT_ASSERT_EQUAL(20, pool.statistics().idle);
		_clock->advance(Poco::Timespan(89, 0));
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		_clock->advance(Poco::Timespan(6, 0));
		const int early = pool.prune();
		CPPUNIT_ASSERT(early > 0);
		CPPUNIT_ASSERT(early < 20);
		_clock->advance(Poco::Timespan(5, 1000));
		const int late = pool.prune();
		CPPUNIT_ASSERT_EQUAL(20 - early, late);   // the rest, not the replacements opened at 95 s
		CPPUNIT_ASSERT_EQUAL(20, pool.statistics().total);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(StormControlTest);
