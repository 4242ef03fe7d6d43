//
// PoolConcurrencyTest.cpp
//
// 16 threads doing 100,000 checkouts and returns in total against 3 endpoint pools with maxima 2, 3 and 4,
// random hold times and injected failures (broken sessions, failed resets, failed opens, cancelled
// reservations), while the pruning thread evicts and warms up, another thread drains and resumes pools and
// another checks statistics snapshots. At the end every counter balances, no session was held by two
// checkouts at once, none leaked, nothing deadlocked. Also meant to run under ThreadSanitizer
// (-DBLUETUSK_TSAN=ON).
//

#include "PoolTestSupport.h"
#include "StandardEviction.h"
#include "BlueTusk/BlueTuskException.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const int THREADS = 16;
const int CHECKOUTS = 100000;


struct Tally
{
	std::atomic<int> started{0};
	std::atomic<int> completed{0};       /// a session was held and returned
	std::atomic<int> fromIdle{0};
	std::atomic<int> opened{0};
	std::atomic<int> waited{0};
	std::atomic<int> openFailed{0};
	std::atomic<int> cancelled{0};
	std::atomic<int> drainedOut{0};      /// every candidate was draining
	std::atomic<int> timeouts{0};
	std::atomic<int> brokenHandedOut{0};
	std::atomic<int> wrongEndpoint{0};
	std::atomic<int> inconsistentSnapshots{0};
	std::atomic<int> overMaximum{0};
	std::atomic<int> unexpected{0};
};


class Watchdog
	/// Aborts the process if the test hangs (a deadlock must fail CI, not stall it).
{
public:
	explicit Watchdog(int seconds):
		_thread([this, seconds]
		{
			std::unique_lock<std::mutex> lock(_mutex);
			if (!_done.wait_for(lock, std::chrono::seconds(seconds), [this] { return _finished; }))
			{
				std::fprintf(stderr, "PoolConcurrencyTest: no progress after %d s, deadlock suspected\n", seconds);
				std::abort();
			}
		})
	{
	}

	~Watchdog()
	{
		{
			std::lock_guard<std::mutex> lock(_mutex);
			_finished = true;
		}
		_done.notify_all();
		_thread.join();
	}

private:
	std::mutex _mutex;
	std::condition_variable _done;
	bool _finished = false;
	std::thread _thread;
};

} // namespace


class PoolConcurrencyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolConcurrencyTest);
	CPPUNIT_TEST(testManyThreadsBalance);
	CPPUNIT_TEST_SUITE_END();

public:
	void testManyThreadsBalance()
	{
		auto world = poolWorld();
		world->openFailurePermille = 5;
		auto factory = std::make_shared<FakeSessionFactory>(world);
		ConnectionSettings settings = poolSettings(1, 4);
		settings.connectionIdleLifetime = Poco::Timespan(0, 2000);   // 2 ms: the pruner evicts above the minimum
		settings.connectionLifetime = Poco::Timespan(0, 30000);      // 30 ms (27..30 with jitter): retired on return
		PoolManager::Options options;
		options.pruneInterval = Poco::Timespan(0, 2000);
		std::unique_ptr<PoolManager> manager(new PoolManager(settings, factory,
			standardEvictionPolicy(), options));

		std::vector<EndpointPool*> pools;
		const int maxima[3] = {2, 3, 4};
		for (int n = 0; n < 3; ++n)
		{
			pools.push_back(&manager->pool(endpointNo(n + 1)));
			pools.back()->setSizes(1, maxima[n]);
		}

		Tally tally;
		std::atomic<bool> stop{false};
		const auto started = std::chrono::steady_clock::now();
		{
			Watchdog watchdog(240);
			std::vector<std::thread> workers;
			for (int t = 0; t < THREADS; ++t)
				workers.emplace_back([&, t] { work(*manager, pools, tally, t); });

			std::thread sampler([&]
			{
				while (!stop)
				{
					std::map<BlueTuskHostEndpoint, PoolStatistics> hosts = manager->hostStatistics();
					int index = 0;
					for (const auto& entry: hosts)
					{
						const PoolStatistics& s = entry.second;
						if (s.busy + s.idle != s.total || s.busy < 0 || s.idle < 0 || s.pending < 0) ++tally.inconsistentSnapshots;
						if (s.total > maxima[index]) ++tally.overMaximum;
						++index;
					}
					PoolStatistics all = manager->statistics();
					if (all.busy + all.idle != all.total) ++tally.inconsistentSnapshots;
					std::this_thread::sleep_for(std::chrono::microseconds(500));
				}
			});

			std::thread drainer([&]
			{
				std::mt19937 random(12345);
				while (!stop)
				{
					std::this_thread::sleep_for(std::chrono::milliseconds(5));
					EndpointPool* pool = pools[random() % 3];
					pool->drain();
					std::this_thread::sleep_for(std::chrono::microseconds(300));
					pool->resume();
				}
			});

			for (auto& worker: workers) worker.join();
			stop = true;
			sampler.join();
			drainer.join();
		}
		const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
		std::cout << std::endl << "  " << CHECKOUTS << " checkouts in " << elapsed << " ms: completed=" << tally.completed
			<< " fromIdle=" << tally.fromIdle << " opened=" << tally.opened << " waited=" << tally.waited
			<< " openFailed=" << tally.openFailed << " cancelled=" << tally.cancelled << " drainedOut=" << tally.drainedOut
			<< " sessionsOpened=" << world->opened << std::endl;

		CPPUNIT_ASSERT_EQUAL(CHECKOUTS, tally.completed + tally.openFailed + tally.cancelled + tally.drainedOut);
		CPPUNIT_ASSERT_EQUAL(0, tally.timeouts.load());
		CPPUNIT_ASSERT_EQUAL(0, tally.unexpected.load());
		CPPUNIT_ASSERT_EQUAL(0, world->doubleUse.load());
		CPPUNIT_ASSERT_EQUAL(0, tally.brokenHandedOut.load());
		CPPUNIT_ASSERT_EQUAL(0, tally.wrongEndpoint.load());
		CPPUNIT_ASSERT_EQUAL(0, tally.inconsistentSnapshots.load());
		CPPUNIT_ASSERT_EQUAL(0, tally.overMaximum.load());
		CPPUNIT_ASSERT(tally.completed > CHECKOUTS / 2);
		CPPUNIT_ASSERT(tally.waited > 0);
		CPPUNIT_ASSERT(tally.openFailed > 0);

		// Everything returned: the books balance per pool and against what the fake world saw. Stop the
		// pruner first: otherwise it may be warming up or closing a session while the counters are read.
		manager->stopPruning();
		Poco::UInt64 created = 0, closed = 0, failures = 0;
		int total = 0;
		for (EndpointPool* pool: pools)
		{
			pool->resume();
			PoolStatistics s = pool->statistics();
			CPPUNIT_ASSERT_EQUAL(0, s.busy);
			CPPUNIT_ASSERT_EQUAL(0, s.pending);
			CPPUNIT_ASSERT_EQUAL(s.total, s.idle);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(s.total), s.created - s.closed);
			created += s.created;
			closed += s.closed;
			failures += s.connectFailures;
			total += s.total;
		}
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(world->opened.load()), created);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(world->closed.load()), closed);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(world->openFailures.load()), failures);
		CPPUNIT_ASSERT_EQUAL(total, world->alive.load());
		CPPUNIT_ASSERT_EQUAL(0, world->destroyedUnclosed.load());

		manager.reset();
		CPPUNIT_ASSERT_EQUAL(0, world->alive.load());
		CPPUNIT_ASSERT_EQUAL(0, world->destroyedUnclosed.load());
		CPPUNIT_ASSERT_EQUAL(world->opened.load(), world->closed.load());
	}

private:
	static void work(PoolManager& manager, const std::vector<EndpointPool*>& pools, Tally& tally, int seed)
	{
		std::mt19937 random(static_cast<unsigned>(seed * 7919 + 17));
		while (tally.started.fetch_add(1) < CHECKOUTS)
		{
			// Acceptable endpoints in a random order: all three most of the time, sometimes fewer.
			std::vector<EndpointPool*> candidates = pools;
			std::shuffle(candidates.begin(), candidates.end(), random);
			const unsigned pick = random() % 10;
			candidates.resize(pick < 6 ? 3 : pick < 8 ? 2 : 1);

			try
			{
				PoolEntryPtr entry;
				EndpointPool* reserved = nullptr;
				for (EndpointPool* pool: candidates)
				{
					entry = pool->tryTakeIdle();
					if (entry)
					{
						++tally.fromIdle;
						break;
					}
				}
				if (!entry)
				{
					for (EndpointPool* pool: candidates)
					{
						if (pool->tryReserve())
						{
							reserved = pool;
							break;
						}
					}
				}
				if (!entry && !reserved)
				{
					++tally.waited;
					PoolGrant grant = manager.waitForAny(candidates, Poco::Timestamp() + 20 * Poco::Timespan::SECONDS);
					if (grant.entry) entry = std::move(grant.entry);
					else reserved = grant.pool;
				}
				if (reserved)
				{
					if (random() % 100 < 2)
					{
						reserved->cancelReservation();
						++tally.cancelled;
						continue;
					}
					try
					{
						entry = reserved->openReserved();
						++tally.opened;
					}
					catch (BlueTuskTransportException&)
					{
						++tally.openFailed;
						continue;
					}
				}

				FakeSession& session = fake(entry);
				session.beginUse();
				if (session.isBroken()) ++tally.brokenHandedOut;
				if (!(session.endpoint() == entry->pool->endpoint())) ++tally.wrongEndpoint;
				const unsigned hold = random() % 100;
				if (hold >= 97) std::this_thread::sleep_for(std::chrono::microseconds(50));
				else if (hold >= 90) std::this_thread::yield();
				bool broken = false;
				const unsigned fault = random() % 1000;
				if (fault < 10) session.breakConnection();
				else if (fault < 20) broken = true;
				else if (fault < 25) session.failNextReset();
				else if (fault < 60) session.beginTransaction();
				session.endUse();
				EndpointPool* owner = entry->pool;
				owner->release(std::move(entry), broken);
				++tally.completed;
			}
			catch (BlueTuskPoolTimeoutException& exc)
			{
				if (exc.message().find("draining") != std::string::npos) ++tally.drainedOut;
				else
				{
					++tally.timeouts;
					std::cerr << exc.displayText() << std::endl;
				}
			}
			catch (std::exception& exc)
			{
				++tally.unexpected;
				std::cerr << "unexpected: " << exc.what() << std::endl;
			}
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(PoolConcurrencyTest);
