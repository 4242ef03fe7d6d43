//
// EndpointPoolLifecycleTest.cpp
//
// EndpointPool and PoolManager with a fake session factory (no server): what happens to a session after
// its lease: reset on return (immediate and deferred), broken sessions, draining, adopt(), statistics,
// unpooled pools and learned roles (doc/pooling.md).
//

#include "EndpointPoolFixture.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;

class EndpointPoolLifecycleTest: public EndpointPoolFixture
{
	CPPUNIT_TEST_SUITE(EndpointPoolLifecycleTest);
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
		CPPUNIT_ASSERT_EQUAL(0, _world->alive.load());
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
		_world->setRole(ServerRole::Standby);
		manager.warmUp({endpointNo(1)});
		CPPUNIT_ASSERT_EQUAL(1, a.statistics().idle);
		CPPUNIT_ASSERT(a.statistics().lastKnownRole == ServerRole::Standby);
		CPPUNIT_ASSERT(manager.hostStatistics()[endpointNo(1)].lastKnownRole == ServerRole::Standby);

		_world->setRole(ServerRole::PrimaryReadOnly);
		CPPUNIT_ASSERT(b.tryReserve());
		PoolEntryPtr opened = b.openReserved();
		CPPUNIT_ASSERT(b.lastKnownRole() == ServerRole::PrimaryReadOnly);

		_world->setRole(ServerRole::Primary);   // the idle session of a was promoted meanwhile
		PoolEntryPtr reused = a.tryTakeIdle();
		CPPUNIT_ASSERT(reused != nullptr);
		CPPUNIT_ASSERT(a.lastKnownRole() == ServerRole::Primary);

		_world->setRole(ServerRole::Unknown);   // a session that does not know its role changes nothing
		a.release(std::move(reused));
		CPPUNIT_ASSERT(a.tryReserve());
		PoolEntryPtr unknown = a.openReserved();
		CPPUNIT_ASSERT(a.lastKnownRole() == ServerRole::Primary);
		a.release(std::move(unknown));
		b.release(std::move(opened));
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(EndpointPoolLifecycleTest);
