//
// KeptRolesTest.cpp
//
// PoolManager::Options::usableRole (doc/pooling.md, "Sessions of a role the data source
// cannot use"): pools whose owner can never hand out a session of some role keep none of it. Warm-up opens
// one session while the role is unknown and closes it when the role is refused; the minimum, adopt() and
// openIdle() follow; sessions a lease returns stay pooled; with no filter nothing changes.
//

#include "EndpointPoolFixture.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class KeptRolesTest: public EndpointPoolFixture
{
	CPPUNIT_TEST_SUITE(KeptRolesTest);
	CPPUNIT_TEST(testKeepsRole);
	CPPUNIT_TEST(testWarmUpLearnsTheRoleFirst);
	CPPUNIT_TEST(testWarmUpOfAKeptRole);
	CPPUNIT_TEST(testAdoptAndOpenIdleKeepNoRefusedRole);
	CPPUNIT_TEST(testReturnedLeaseStaysAndMinimumIsZero);
	CPPUNIT_TEST(testNoFilterKeepsEverything);
	CPPUNIT_TEST_SUITE_END();

public:
	void testKeepsRole()
	{
		PoolManager& manager = primaryOnly(poolSettings(2, 5));
		CPPUNIT_ASSERT(manager.keepsRole(ServerRole::Primary));
		CPPUNIT_ASSERT(manager.keepsRole(ServerRole::Unknown));
		CPPUNIT_ASSERT(!manager.keepsRole(ServerRole::Standby));
		CPPUNIT_ASSERT(!manager.keepsRole(ServerRole::PrimaryReadOnly));
	}

	void testWarmUpLearnsTheRoleFirst()
	{
		_world->setRole(ServerRole::Standby);
		PoolManager& manager = primaryOnly(poolSettings(3, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		pool.warmUp();
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.created);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.closed);
		CPPUNIT_ASSERT_EQUAL(ServerRole::Standby, stats.lastKnownRole);
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		pool.warmUp();
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());   // the role is known: no more opens
	}

	void testWarmUpOfAKeptRole()
	{
		PoolManager& manager = primaryOnly(poolSettings(3, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		pool.warmUp();
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(3, stats.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), stats.created);
		CPPUNIT_ASSERT_EQUAL(ServerRole::Primary, stats.lastKnownRole);
		// The server is a standby now (a restart demoted it): the next sessions tell so, and the minimum
		// no longer holds there.
		_world->setRole(ServerRole::Standby);
		pool.setLastKnownRole(ServerRole::Standby);
		_clock->advance(Poco::Timespan(400, 0));   // past Connection Idle Lifetime (300 s)
		CPPUNIT_ASSERT_EQUAL(3, pool.prune());
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
	}

	void testAdoptAndOpenIdleKeepNoRefusedRole()
	{
		PoolManager& manager = primaryOnly(poolSettings(0, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		_world->setRole(ServerRole::Standby);
		Session::Ptr session = _factory->open(endpointNo(1), manager.settings());
		pool.adopt(std::move(session));
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
		CPPUNIT_ASSERT_EQUAL(ServerRole::Standby, pool.lastKnownRole());
		CPPUNIT_ASSERT(pool.openIdle());   // opened, told its role, closed
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.created);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.closed);
		_world->setRole(ServerRole::Primary);
		pool.adopt(_factory->open(endpointNo(1), manager.settings()));
		CPPUNIT_ASSERT(pool.openIdle());
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);
	}

	void testReturnedLeaseStaysAndMinimumIsZero()
	{
		// A session another target's lease returns stays pooled (it was handed out; it may be again), and
		// is evicted at Idle Lifetime as if the minimum were 0.
		_world->setRole(ServerRole::Standby);
		PoolManager& manager = primaryOnly(poolSettings(2, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr lease = checkout(pool);
		CPPUNIT_ASSERT(lease);
		pool.release(std::move(lease));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
		CPPUNIT_ASSERT_EQUAL(ServerRole::Standby, pool.lastKnownRole());
		_clock->advance(Poco::Timespan(400, 0));
		CPPUNIT_ASSERT_EQUAL(1, pool.prune());
		CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
		CPPUNIT_ASSERT_EQUAL(1, _world->opened.load());
	}

	void testNoFilterKeepsEverything()
	{
		_world->setRole(ServerRole::Standby);
		PoolManager& manager = makeManager(poolSettings(2, 5));
		CPPUNIT_ASSERT(manager.keepsRole(ServerRole::Standby));
		EndpointPool& pool = manager.pool(endpointNo(1));
		pool.warmUp();
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);
		CPPUNIT_ASSERT_EQUAL(2, _world->opened.load());
	}

private:
	PoolManager& primaryOnly(const ConnectionSettings& settings)
		/// A manager as a read-write data source makes it: only sessions of a primary (read-write) are kept.
	{
		PoolManager::Options options;
		options.startPruning = false;
		options.usableRole = [](ServerRole role) { return role == ServerRole::Primary; };
		_manager.reset(new PoolManager(settings, _factory, standardEvictionPolicy(), options, _clock));
		return *_manager;
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(KeptRolesTest);
