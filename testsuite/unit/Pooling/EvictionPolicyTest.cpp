//
// EvictionPolicyTest.cpp
//
// The eviction side of the pools with a controllable clock: lifetime jitter, maximum lifetime at return and
// at pruning, idle lifetime above the minimum, warm-up and re-warm, background pruning, and a policy chosen
// by name from the plugin library or a built-in one (doc/pooling.md and doc/plugins.md).
//

#include "PoolTestSupport.h"
#include "StandardEviction.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "EndpointPoolFixture.h"
#include "Poco/File.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <set>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

class KeepNothingEvictionPolicy: public EvictionPolicy
	/// A second policy for the "chosen by name" test: nothing returned stays, every idle session goes.
{
public:
	std::string name() const override
	{
		return "keep-nothing";
	}

	bool keepOnReturn(const PooledSessionInfo&, const PoolSizeInfo&, const ConnectionSettings&, Poco::Timestamp) const override
	{
		return false;
	}

	std::vector<std::size_t> selectForEviction(const std::vector<PooledSessionInfo>& idle, const PoolSizeInfo&,
		const ConnectionSettings&, Poco::Timestamp) const override
	{
		std::vector<std::size_t> all;
		for (std::size_t i = 0; i < idle.size(); ++i) all.push_back(i);
		return all;
	}
};


const std::string pluginFile = findPluginLibrary(pluginSearchPath({}), EVICTION_PLUGIN_LIBRARY);

} // namespace


class EvictionPolicyTest: public EndpointPoolFixture
{
	CPPUNIT_TEST_SUITE(EvictionPolicyTest);
	CPPUNIT_TEST(testLifetimeJitterBounds);
	CPPUNIT_TEST(testStandardPolicyRules);
	CPPUNIT_TEST(testMaxLifetimeOnReturn);
	CPPUNIT_TEST(testMaxLifetimeAtPrune);
	CPPUNIT_TEST(testIdleLifetimeAboveMinimum);
	CPPUNIT_TEST(testIdleEvictsOldestReturnedFirst);
	CPPUNIT_TEST(testWarmUpToMinimum);
	CPPUNIT_TEST(testReWarmAfterLosses);
	CPPUNIT_TEST(testWarmUpFailureCounted);
	CPPUNIT_TEST(testBackgroundPruning);
	CPPUNIT_TEST(testStopPruning);
	CPPUNIT_TEST(testPolicySwappedByName);
	CPPUNIT_TEST_SUITE_END();

public:
	PoolManager& makeManager(const ConnectionSettings& settings, EvictionPolicy::Ptr policy = nullptr,
		bool startPruning = false, Poco::Timespan pruneInterval = Poco::Timespan(1, 0))
	{
		PoolManager::Options options;
		options.startPruning = startPruning;
		options.pruneInterval = pruneInterval;
		if (!policy) policy = standardEvictionPolicy();
		_manager.reset(new PoolManager(settings, _factory, policy, options, _clock));
		return *_manager;
	}

	void testLifetimeJitterBounds()
	{
		const EvictionPolicy::Ptr standard = standardEvictionPolicy();
		const EvictionPolicy& policy = *standard;
		ConnectionSettings settings;
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), policy.lifetimeFor(settings).totalMicroseconds());

		// Up to 10% of the lifetime is subtracted ...
		settings.connectionLifetime = Poco::Timespan(100, 0);
		std::set<Poco::Timespan::TimeDiff> seen;
		for (int i = 0; i < 1000; ++i)
		{
			Poco::Timespan lifetime = policy.lifetimeFor(settings);
			CPPUNIT_ASSERT(lifetime.totalMicroseconds() >= 90 * Poco::Timespan::SECONDS);
			CPPUNIT_ASSERT(lifetime.totalMicroseconds() <= 100 * Poco::Timespan::SECONDS);
			seen.insert(lifetime.totalMicroseconds());
		}
		CPPUNIT_ASSERT(seen.size() > 900);
		CPPUNIT_ASSERT(*seen.begin() < 91 * Poco::Timespan::SECONDS);
		CPPUNIT_ASSERT(*seen.rbegin() > 99 * Poco::Timespan::SECONDS);

		// ... but never more than 30 s.
		settings.connectionLifetime = Poco::Timespan(3600, 0);
		for (int i = 0; i < 1000; ++i)
		{
			Poco::Timespan lifetime = policy.lifetimeFor(settings);
			CPPUNIT_ASSERT(lifetime.totalMicroseconds() >= 3570 * Poco::Timespan::SECONDS);
			CPPUNIT_ASSERT(lifetime.totalMicroseconds() <= 3600 * Poco::Timespan::SECONDS);
		}
	}

	void testStandardPolicyRules()
	{
		const EvictionPolicy::Ptr standard = standardEvictionPolicy();
		const EvictionPolicy& policy = *standard;
		CPPUNIT_ASSERT_EQUAL(std::string("standard"), policy.name());
		ConnectionSettings settings;
		settings.connectionIdleLifetime = Poco::Timespan(60, 0);
		const Poco::Timestamp t0;
		auto session = [&](int createdSecondsAgo, int returnedSecondsAgo, int lifetimeSeconds)
		{
			PooledSessionInfo info;
			info.createdAt = t0 - Poco::Timespan::TimeDiff(createdSecondsAgo) * Poco::Timespan::SECONDS;
			info.lastReturned = t0 - Poco::Timespan::TimeDiff(returnedSecondsAgo) * Poco::Timespan::SECONDS;
			info.lifetime = Poco::Timespan(lifetimeSeconds, 0);
			return info;
		};
		PoolSizeInfo size;
		size.total = 4;
		size.idle = 4;
		size.minSize = 2;
		size.maxSize = 10;
		CPPUNIT_ASSERT(policy.keepOnReturn(session(99, 0, 100), size, settings, t0));
		CPPUNIT_ASSERT(!policy.keepOnReturn(session(100, 0, 100), size, settings, t0));
		CPPUNIT_ASSERT(policy.keepOnReturn(session(100000, 0, 0), size, settings, t0));

		// Oldest-returned first: [expired lifetime, idle 70 s, idle 61 s, idle 10 s]; min 2.
		std::vector<PooledSessionInfo> idle = {session(200, 100, 150), session(100, 70, 0), session(100, 61, 0), session(100, 10, 0)};
		std::vector<std::size_t> selected = policy.selectForEviction(idle, size, settings, t0);
		CPPUNIT_ASSERT((selected == std::vector<std::size_t>{0, 1}));
		// At the minimum only the retired session goes.
		size.minSize = 4;
		selected = policy.selectForEviction(idle, size, settings, t0);
		CPPUNIT_ASSERT((selected == std::vector<std::size_t>{0}));
		// Idle lifetime 0 disables idle eviction.
		size.minSize = 0;
		settings.connectionIdleLifetime = 0;
		selected = policy.selectForEviction(idle, size, settings, t0);
		CPPUNIT_ASSERT((selected == std::vector<std::size_t>{0}));
	}

	void testMaxLifetimeOnReturn()
	{
		ConnectionSettings settings = poolSettings(0, 2);
		settings.connectionLifetime = Poco::Timespan(100, 0);
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr entry = checkout(pool);
		const int id = fake(entry).id();
		CPPUNIT_ASSERT(entry->info.lifetime.totalMicroseconds() >= 90 * Poco::Timespan::SECONDS);
		CPPUNIT_ASSERT(entry->info.lifetime.totalMicroseconds() <= 100 * Poco::Timespan::SECONDS);
		CPPUNIT_ASSERT(entry->info.createdAt == _clock->now());
		CPPUNIT_ASSERT_EQUAL(0u, entry->info.returns);
		_clock->advance(Poco::Timespan(89, 0));
		pool.release(std::move(entry));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
		entry = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(id, fake(entry).id());
		CPPUNIT_ASSERT(entry->info.lastReturned == _clock->now());
		CPPUNIT_ASSERT_EQUAL(1u, entry->info.returns);   // PooledSessionInfo::returns: one lease came back
		CPPUNIT_ASSERT_EQUAL(entry->session->sessionId(), entry->info.sessionId);
		_clock->advance(Poco::Timespan(12, 0));
		pool.release(std::move(entry));
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.evicted);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.closed);
		// Retired without a reset: only the first return was reset.
		CPPUNIT_ASSERT((_world->sqlOf(id) == std::vector<std::string>{"DISCARD ALL"}));
	}

	void testMaxLifetimeAtPrune()
	{
		ConnectionSettings settings = poolSettings(2, 5);
		settings.connectionLifetime = Poco::Timespan(100, 0);
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool(endpointNo(1));
		std::vector<PoolEntryPtr> entries;
		for (int i = 0; i < 4; ++i) entries.push_back(checkout(pool));
		for (auto& entry: entries) pool.release(std::move(entry));
		_clock->advance(Poco::Timespan(89, 0));
		CPPUNIT_ASSERT_EQUAL(0, manager.prune());
		CPPUNIT_ASSERT_EQUAL(4, pool.statistics().idle);
		// Past the lifetime every session goes, even below the minimum; warm-up replaces two.
		_clock->advance(Poco::Timespan(12, 0));
		CPPUNIT_ASSERT_EQUAL(4, manager.prune());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(2, stats.total);
		CPPUNIT_ASSERT_EQUAL(2, stats.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(4), stats.evicted);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(6), stats.created);
		CPPUNIT_ASSERT_EQUAL(6, _world->opened.load());
		CPPUNIT_ASSERT_EQUAL(4, _world->closed.load());
	}

	void testIdleLifetimeAboveMinimum()
	{
		ConnectionSettings settings = poolSettings(2, 10);
		settings.connectionIdleLifetime = Poco::Timespan(60, 0);
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool(endpointNo(1));
		std::vector<PoolEntryPtr> entries;
		for (int i = 0; i < 6; ++i) entries.push_back(checkout(pool));
		PoolEntryPtr stillBusy = std::move(entries.back());
		entries.pop_back();
		for (auto& entry: entries) pool.release(std::move(entry));
		_clock->advance(Poco::Timespan(59, 0));
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		_clock->advance(Poco::Timespan(2, 0));
		// Six sessions, one busy: four idle ones may go, keeping two (busy included).
		CPPUNIT_ASSERT_EQUAL(4, pool.prune());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(2, stats.total);
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(4), stats.evicted);
		_clock->advance(Poco::Timespan(600, 0));
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		CPPUNIT_ASSERT_EQUAL(6, _world->opened.load());
		pool.release(std::move(stillBusy));
		CPPUNIT_ASSERT_EQUAL(0, pool.prune()); // just returned: not idle long
		_clock->advance(Poco::Timespan(61, 0));
		CPPUNIT_ASSERT_EQUAL(0, pool.prune()); // at the minimum
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);
	}

	void testIdleEvictsOldestReturnedFirst()
	{
		ConnectionSettings settings = poolSettings(0, 10);
		settings.connectionIdleLifetime = Poco::Timespan(60, 0);
		PoolManager& manager = makeManager(settings);
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr a = checkout(pool);
		PoolEntryPtr b = checkout(pool);
		PoolEntryPtr c = checkout(pool);
		const int idC = fake(c).id();
		pool.release(std::move(a));
		_clock->advance(Poco::Timespan(30, 0));
		pool.release(std::move(b));
		_clock->advance(Poco::Timespan(20, 0));
		pool.release(std::move(c));
		_clock->advance(Poco::Timespan(35, 0)); // a idle 85 s, b 55 s, c 35 s
		CPPUNIT_ASSERT_EQUAL(1, pool.prune());
		_clock->advance(Poco::Timespan(10, 0)); // b 65 s, c 45 s
		CPPUNIT_ASSERT_EQUAL(1, pool.prune());
		PoolEntryPtr left = pool.tryTakeIdle();
		CPPUNIT_ASSERT_EQUAL(idC, fake(left).id());
		pool.release(std::move(left));
	}

	void testWarmUpToMinimum()
	{
		PoolManager& manager = makeManager(poolSettings(3, 5));
		manager.warmUp({endpointNo(1), endpointNo(2)});
		CPPUNIT_ASSERT_EQUAL(6, _world->opened.load());
		for (auto& entry: manager.hostStatistics())
		{
			CPPUNIT_ASSERT_EQUAL(3, entry.second.idle);
			CPPUNIT_ASSERT_EQUAL(3, entry.second.total);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), entry.second.created);
		}
		manager.warmUp({endpointNo(1), endpointNo(2)});
		CPPUNIT_ASSERT_EQUAL(0, manager.prune());
		CPPUNIT_ASSERT_EQUAL(6, _world->opened.load());
		// Busy sessions count towards the minimum.
		EndpointPool& pool = manager.pool(endpointNo(1));
		PoolEntryPtr a = pool.tryTakeIdle();
		manager.prune();
		CPPUNIT_ASSERT_EQUAL(6, _world->opened.load());
		pool.release(std::move(a));
	}

	void testReWarmAfterLosses()
	{
		PoolManager& manager = makeManager(poolSettings(3, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		pool.warmUp();
		PoolEntryPtr a = pool.tryTakeIdle();
		PoolEntryPtr b = pool.tryTakeIdle();
		PoolEntryPtr c = pool.tryTakeIdle();
		pool.release(std::move(a), true);
		pool.release(std::move(b), true);
		pool.release(std::move(c));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().total);
		CPPUNIT_ASSERT_EQUAL(0, pool.prune());
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(3, stats.total);
		CPPUNIT_ASSERT_EQUAL(3, stats.idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(5), stats.created);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), stats.closed);
		CPPUNIT_ASSERT_EQUAL(5, _world->opened.load());
	}

	void testWarmUpFailureCounted()
	{
		PoolManager& manager = makeManager(poolSettings(3, 5));
		EndpointPool& pool = manager.pool(endpointNo(1));
		_world->failNextOpens = 2;
		pool.warmUp(); // the first open fails: this pass gives up
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.connectFailures);
		pool.warmUp();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), pool.statistics().connectFailures);
		manager.prune();
		stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(3, stats.idle);
		CPPUNIT_ASSERT_EQUAL(3, stats.total);
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
	}

	void testBackgroundPruning()
	{
		ConnectionSettings settings = poolSettings(2, 5);
		settings.connectionIdleLifetime = Poco::Timespan(60, 0);
		PoolManager& manager = makeManager(settings, nullptr, true, Poco::Timespan(0, 10000));
		EndpointPool& pool = manager.pool(endpointNo(1));
		auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
		while (pool.statistics().idle < 2 && std::chrono::steady_clock::now() < until)
			std::this_thread::sleep_for(std::chrono::milliseconds(2));
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);
		std::vector<PoolEntryPtr> entries;
		for (int i = 0; i < 4; ++i) entries.push_back(checkout(pool));
		for (auto& entry: entries) pool.release(std::move(entry));
		CPPUNIT_ASSERT_EQUAL(4, pool.statistics().idle);
		_clock->advance(Poco::Timespan(61, 0));
		until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
		while (pool.statistics().evicted < 2 && std::chrono::steady_clock::now() < until)
			std::this_thread::sleep_for(std::chrono::milliseconds(2));
		PoolStatistics stats = pool.statistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), stats.evicted);
		CPPUNIT_ASSERT_EQUAL(2, stats.total);
		// Destroying the manager stops and joins the thread quickly, closing everything.
		auto started = std::chrono::steady_clock::now();
		_manager.reset();
		CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(2000));
		CPPUNIT_ASSERT_EQUAL(4, _world->closed.load());
	}

	void testStopPruning()
	{
		ConnectionSettings settings = poolSettings(0, 5);
		settings.connectionIdleLifetime = Poco::Timespan(60, 0);
		PoolManager& manager = makeManager(settings, nullptr, true, Poco::Timespan(0, 5000));
		EndpointPool& pool = manager.pool(endpointNo(1));
		pool.release(checkout(pool));
		manager.stopPruning();
		manager.stopPruning(); // idempotent
		_clock->advance(Poco::Timespan(61, 0));
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
		// Explicit passes still work.
		CPPUNIT_ASSERT_EQUAL(1, manager.prune());
		pool.setSizes(2, 5);
		manager.warmUp({endpointNo(1)});
		CPPUNIT_ASSERT_EQUAL(2, pool.statistics().idle);
	}

	void testPolicySwappedByName()
	{
		CPPUNIT_ASSERT_MESSAGE("build BlueTuskEvictionPlugin first: " + describePluginSearchPath(pluginSearchPath({})), !pluginFile.empty() && Poco::File(pluginFile).exists());
		// Resolved by name the way the data source does: the standard plugin library and a built-in class.
		PluginRegistry<EvictionPolicy> registry("eviction");
		registry.loadLibrary(pluginFile);
		registry.addBuiltin("keep-nothing", [] { return std::make_shared<KeepNothingEvictionPolicy>(); });
		CPPUNIT_ASSERT((registry.names() == std::vector<std::string>{"keep-nothing", "standard"}));
		try
		{
			registry.create("no-such-policy");
			CPPUNIT_FAIL("an unknown policy name was accepted");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("available: keep-nothing, standard") != std::string::npos);
		}
		{
			ConnectionSettings settings = poolSettings(0, 2);
			CPPUNIT_ASSERT_EQUAL(std::string("standard"), settings.evictionPolicy);
			EvictionPolicy::Ptr policy = registry.create(settings.evictionPolicy);
			CPPUNIT_ASSERT_EQUAL(std::string("standard"), policy->name());
			PoolManager& manager = makeManager(settings, policy);
			EndpointPool& pool = manager.pool(endpointNo(1));
			pool.release(checkout(pool));
			CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
			CPPUNIT_ASSERT_EQUAL(0, manager.prune());
			_manager.reset(); // before the policy and its library go
		}
		{
			ConnectionSettings settings = poolSettings(0, 2);
			settings.evictionPolicy = "keep-nothing";
			EvictionPolicy::Ptr policy = registry.create(settings.evictionPolicy);
			CPPUNIT_ASSERT_EQUAL(std::string("keep-nothing"), policy->name());
			PoolManager& manager = makeManager(settings, policy);
			EndpointPool& pool = manager.pool(endpointNo(1));
			pool.release(checkout(pool));
			PoolStatistics stats = pool.statistics();
			CPPUNIT_ASSERT_EQUAL(0, stats.total);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.evicted);
			pool.adopt(_factory->open(endpointNo(1), settings));
			CPPUNIT_ASSERT_EQUAL(1, pool.statistics().idle);
			CPPUNIT_ASSERT_EQUAL(1, manager.prune());
			CPPUNIT_ASSERT_EQUAL(0, pool.statistics().total);
			_manager.reset();
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(EvictionPolicyTest);
