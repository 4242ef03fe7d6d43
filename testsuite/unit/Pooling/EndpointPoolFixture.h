//
// EndpointPoolFixture.h
//
// What the EndpointPool suites share: a fake session factory and a manual clock per test, the manager
// under test, and small helpers. tearDown checks that no fake session leaked, was used twice or was
// destroyed without being closed.
//

#ifndef BlueTusk_EndpointPoolFixture_INCLUDED
#define BlueTusk_EndpointPoolFixture_INCLUDED

#include "PoolTestSupport.h"
#include "StandardEviction.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <functional>
#include <thread>

namespace BlueTusk {
namespace Test {

inline bool waitUntil(const std::function<bool()>& condition, int milliseconds = 5000)
{
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
	while (std::chrono::steady_clock::now() < until)
	{
		if (condition()) return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return condition();
}


inline Poco::Timestamp inMilliseconds(int milliseconds)
{
	return Poco::Timestamp() + Poco::Timespan::TimeDiff(milliseconds) * 1000;
}


inline PoolEntryPtr checkout(EndpointPool& pool)
	/// Immediate capacity only: an idle session, else a new one; null when neither.
{
	PoolEntryPtr entry = pool.tryTakeIdle();
	if (entry) return entry;
	if (pool.tryReserve()) return pool.openReserved();
	return nullptr;
}


inline bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


class EndpointPoolFixture: public CppUnit::TestFixture
{
public:
	void setUp() override
	{
		_world = poolWorld();
		_factory = std::make_shared<FakeSessionFactory>(_world);
		_clock = std::make_shared<ManualClock>();
	}

	void tearDown() override
	{
		_manager.reset();
		CPPUNIT_ASSERT_EQUAL(0, _world->alive.load());
		CPPUNIT_ASSERT_EQUAL(0, _world->destroyedUnclosed.load());
		CPPUNIT_ASSERT_EQUAL(0, _world->doubleUse.load());
	}

	PoolManager& makeManager(const ConnectionSettings& settings, bool keepIdle = true, bool enforceMaximum = true)
	{
		PoolManager::Options options;
		options.keepIdle = keepIdle;
		options.enforceMaximum = enforceMaximum;
		options.startPruning = false;
		_manager.reset(new PoolManager(settings, _factory, standardEvictionPolicy(), options, _clock));
		return *_manager;
	}

protected:
	std::shared_ptr<FakeWorld> _world;
	std::shared_ptr<FakeSessionFactory> _factory;
	std::shared_ptr<ManualClock> _clock;
	std::unique_ptr<PoolManager> _manager;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_EndpointPoolFixture_INCLUDED
