//
// PooledRoutingIntegrationTest.cpp
//
// BlueTuskDataSource against the local cluster (node1 primary, node2 and node3 standbys): pooled
// prefer-standby and read-write checkouts land on the right nodes; a standby promoted while sessions sit
// idle is found by a primary checkout, which never returns a session on a standby; draining the primary
// endpoint during a load loop fails no checkout of the other targets; with no standby left, concurrent
// standby checkouts fail at once with the host list's answer, each logging in to the primary at most once.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string node(int n)
{
	return cluster().hosts.at(n - 1);
}


std::string allNodes()
{
	return node(1) + "," + node(2) + "," + node(3);
}


bool inRecovery(BlueTuskConnection& connection)
{
	return connection.executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value() == "t";
}


PoolStatistics stats(const BlueTuskDataSource::Ptr& dataSource, int n)
{
	return dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint(node(n), static_cast<Poco::UInt16>(cluster().port)));
}


struct TopologyGuard
{
	std::string command;
	~TopologyGuard()
	{
		if (!command.empty()) cluster().runClusterCommand(command);
	}
};

} // namespace


class PooledRoutingIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PooledRoutingIntegrationTest);
	CPPUNIT_TEST(testTargetsLandOnTheRightNodes);
	CPPUNIT_TEST(testWarmUpLearnsRoles);
	CPPUNIT_TEST(testIdleSessionResetWithinSeconds);
	CPPUNIT_TEST(testDrainPrimaryDuringLoad);
	CPPUNIT_TEST(testPromotionWhileIdle);
	CPPUNIT_TEST(testNoStandbyLeftUnderConcurrency);
	CPPUNIT_TEST(testCachedStatementAcrossLeases);
	CPPUNIT_TEST_SUITE_END();

public:
	void testTargetsLandOnTheRightNodes()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Maximum Pool Size=3;Timeout=10"), connector);
		std::vector<BlueTuskConnection> standbyLeases;
		for (int i = 0; i < 6; ++i)
		{
			standbyLeases.push_back(dataSource->open(TargetSessionAttributes::PreferStandby));
			BlueTuskConnection& lease = standbyLeases.back();
			CPPUNIT_ASSERT(lease.connectedEndpoint().host() != node(1));
			CPPUNIT_ASSERT(inRecovery(lease));
		}
		// 3 per standby endpoint: both standbys are full now.
		CPPUNIT_ASSERT_EQUAL(3, stats(dataSource, 2).busy);
		CPPUNIT_ASSERT_EQUAL(3, stats(dataSource, 3).busy);
		std::vector<BlueTuskConnection> writeLeases;
		for (int i = 0; i < 3; ++i)
		{
			writeLeases.push_back(dataSource->open(TargetSessionAttributes::ReadWrite));
			CPPUNIT_ASSERT_EQUAL(node(1), writeLeases.back().connectedEndpoint().host());
			CPPUNIT_ASSERT(!inRecovery(writeLeases.back()));
		}
		// Everything returns to its own pool; reuse keeps the nodes.
		standbyLeases.clear();
		writeLeases.clear();
		CPPUNIT_ASSERT_EQUAL(3, stats(dataSource, 1).idle);
		CPPUNIT_ASSERT_EQUAL(3, stats(dataSource, 2).idle);
		CPPUNIT_ASSERT_EQUAL(3, stats(dataSource, 3).idle);
		Poco::UInt64 created = dataSource->getPoolStatistics().created;
		for (int i = 0; i < 10; ++i)
		{
			BlueTuskConnection standby = dataSource->open(TargetSessionAttributes::PreferStandby);
			CPPUNIT_ASSERT(inRecovery(standby));
			BlueTuskConnection primary = dataSource->open(TargetSessionAttributes::ReadWrite);
			CPPUNIT_ASSERT_EQUAL(node(1), primary.connectedEndpoint().host());
		}
		CPPUNIT_ASSERT_EQUAL(created, dataSource->getPoolStatistics().created);
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(stats(dataSource, 1).lastKnownRole));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), toString(stats(dataSource, 2).lastKnownRole));
		CPPUNIT_ASSERT(cluster().password.size() > 0);
	}

	void testWarmUpLearnsRoles()
	{
		// Warm-up alone fills in each endpoint's last known role, with no targeted checkout: the role probe
		// on each new session (ParameterStatus is trusted only once a probe has shown the peer is the server).
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Minimum Pool Size=1;Timeout=10"), connector);
		dataSource->warmUp();
		CPPUNIT_ASSERT_EQUAL(1, stats(dataSource, 1).idle);
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Primary), toString(stats(dataSource, 1).lastKnownRole));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(stats(dataSource, 2).lastKnownRole));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(stats(dataSource, 3).lastKnownRole));
	}

	void testNoStandbyLeftUnderConcurrency()
	{
		// The primary and a refused address, target standby, 8 threads x 2 checkouts: each checkout's pass
		// tries each endpoint once and ends with BlueTuskNoAcceptableHostException. Before, a pass that
		// waited for the primary's opens in flight (other checkouts probing it) opened it again after each
		// wait until Checkout Timeout: ~900 logins in 30 s, and pool timeouts blaming Maximum Pool Size.
		RoutingContext connector;
		const std::string hosts = node(1) + ":" + std::to_string(cluster().port) + "," + node(3) + ":1";
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(hosts,
			"Target Session Attributes=standby;Timeout=5;Checkout Timeout=20"), connector);
		const int threads = 8;
		const int perThread = 2;
		std::atomic<int> noAcceptable(0);
		std::atomic<int> succeeded(0);
		std::mutex mutex;
		std::vector<std::string> others;
		std::vector<int> primaryAttempts;
		std::vector<std::thread> workers;
		for (int t = 0; t < threads; ++t)
		{
			workers.emplace_back([&]()
			{
				for (int i = 0; i < perThread; ++i)
				{
					try
					{
						BlueTuskConnection lease = dataSource->open();
						++succeeded;
					}
					catch (HostAttemptsException& exc)
					{
						++noAcceptable;
						int onPrimary = 0;
						for (const HostAttempt& attempt: exc.attempts())
						{
							if (attempt.endpoint.host() == node(1)) ++onPrimary;
						}
						std::lock_guard<std::mutex> lock(mutex);
						primaryAttempts.push_back(onPrimary);
					}
					catch (Poco::Exception& exc)
					{
						std::lock_guard<std::mutex> lock(mutex);
						others.push_back(exc.className() + std::string(": ") + exc.displayText());
					}
				}
			});
		}
		for (std::thread& worker: workers) worker.join();
		CPPUNIT_ASSERT_MESSAGE(others.empty() ? std::string() : others.front(), others.empty());
		CPPUNIT_ASSERT_EQUAL(0, succeeded.load());
		CPPUNIT_ASSERT_EQUAL(threads * perThread, noAcceptable.load());
		for (int onPrimary: primaryAttempts) CPPUNIT_ASSERT_EQUAL(1, onPrimary);
		const PoolStatistics primary = stats(dataSource, 1);
		CPPUNIT_ASSERT(primary.created <= static_cast<Poco::UInt64>(threads * perThread));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), primary.checkoutTimeouts);
		CPPUNIT_ASSERT_EQUAL(0, primary.busy);
		CPPUNIT_ASSERT_EQUAL(0, primary.pending);
	}


	void testCachedStatementAcrossLeases()
	{
		// 100 leases from a pool of at most 2 sessions run the same text: each physical session prepares it
		// once (Parse counted per session) and serves every later run from its cache, the reset on return
		// keeping the statement; the pool's statistics add up the sessions' counters.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(node(1),
			"Maximum Pool Size=2;Timeout=10;Auto Prepare Min Usages=2"), connector);
		const std::string sql = "SELECT $1::int4 * 3 AS tripled";
		std::vector<BlueTuskConnection> held;
		for (int i = 0; i < 100; ++i)
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT_EQUAL(Poco::Int32(i * 3), lease.query(sql, {i}).row(0).get<Poco::Int32>("tripled"));
			if (i % 10 == 0 && held.empty())
			{
				held.push_back(std::move(lease));   // keep one busy now and then so that both sessions serve
				continue;
			}
			if (!held.empty() && i % 10 == 5) held.clear();
		}
		held.clear();
		const PoolStatistics statistics = stats(dataSource, 1);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), statistics.created);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), statistics.statements.prepared);          // one Parse per session
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100 - 2 * 2), statistics.statements.cacheHits); // 2 runs each before it
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), statistics.statements.reprepared);
		BlueTuskConnection lease = dataSource->open();
		const std::string onServer = lease.executeSimple("SELECT count(*) FROM pg_prepared_statements WHERE statement = '" + sql + "'").front().rows.at(0).at(0).value();
		CPPUNIT_ASSERT_EQUAL(std::string("1"), onServer);
	}

	void testIdleSessionResetWithinSeconds()
	{
		// The reset is deferred on return, so an advisory lock the last user forgot is still held right
		// after the return; the pruning thread resets the idle session within about two seconds.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(node(1), "Maximum Pool Size=1;Timeout=10"), connector);
		{
			BlueTuskConnection lease = dataSource->open();
			lease.executeSimple("SELECT pg_advisory_lock(424242)");
		}
		BlueTuskConnection observer = BlueTuskConnection::open(cluster().connectionString(node(1), "Timeout=10"), connector);
		const std::string held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 424242";
		auto count = [&]() { return observer.executeSimple(held).front().rows.at(0).at(0).value(); };
		Poco::Clock returned;
		CPPUNIT_ASSERT_EQUAL(std::string("1"), count());
		while (count() != "0" && returned.elapsed() < 5000000) Poco::Thread::sleep(50);
		const long ms = static_cast<long>(returned.elapsed() / 1000);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), count());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms", ms >= 800 && ms < 3500);
		CPPUNIT_ASSERT_EQUAL(1, stats(dataSource, 1).idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats(dataSource, 1).created);
	}

	void testDrainPrimaryDuringLoad()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Maximum Pool Size=4;Timeout=10"), connector);
		const TargetSessionAttributes targets[] = {TargetSessionAttributes::Any, TargetSessionAttributes::Standby,
			TargetSessionAttributes::PreferStandby, TargetSessionAttributes::PreferPrimary, TargetSessionAttributes::ReadOnly};
		std::atomic<bool> stop{false};
		std::mutex mutex;
		std::map<std::string, int> failures;
		std::map<std::string, int> checkouts;
		std::vector<std::thread> threads;
		for (TargetSessionAttributes target: targets)
		{
			threads.emplace_back([&, target]()
			{
				while (!stop)
				{
					try
					{
						BlueTuskConnection lease = dataSource->open(target);
						lease.executeSimple("SELECT 1");
						std::lock_guard<std::mutex> lock(mutex);
						++checkouts[toString(target)];
					}
					catch (Poco::Exception& exc)
					{
						std::lock_guard<std::mutex> lock(mutex);
						++failures[toString(target) + ": " + exc.displayText()];
					}
				}
			});
		}
		Poco::Thread::sleep(700);
		dataSource->drain(BlueTuskHostEndpoint(node(1), static_cast<Poco::UInt16>(cluster().port)));
		Poco::Thread::sleep(1000);
		stop = true;
		for (auto& thread: threads) thread.join();

		std::string failed;
		for (const auto& failure: failures) failed += failure.first + " (x" + std::to_string(failure.second) + "); ";
		CPPUNIT_ASSERT_EQUAL_MESSAGE(failed, std::size_t(0), failures.size());
		for (TargetSessionAttributes target: targets) CPPUNIT_ASSERT(checkouts[toString(target)] > 5);
		PoolStatistics primary = stats(dataSource, 1);
		CPPUNIT_ASSERT(primary.draining);
		CPPUNIT_ASSERT_EQUAL(0, primary.total);
		// After the drain, a primary checkout has nowhere to go.
		try
		{
			dataSource->open(TargetSessionAttributes::Primary);
			CPPUNIT_FAIL("expected BlueTuskNoAcceptableHostException");
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find(node(1) + ":" + std::to_string(cluster().port) + ": draining") != std::string::npos);
		}
	}

	void testPromotionWhileIdle()
	{
		TopologyGuard guard{"reset"};
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Maximum Pool Size=2;Timeout=5"), connector);
		{
			std::vector<BlueTuskConnection> leases;
			for (int i = 0; i < 2; ++i) leases.push_back(dataSource->open(TargetSessionAttributes::Primary));
			for (int i = 0; i < 4; ++i) leases.push_back(dataSource->open(TargetSessionAttributes::Standby));
		}
		CPPUNIT_ASSERT_EQUAL(2, stats(dataSource, 1).idle);
		CPPUNIT_ASSERT_EQUAL(2, stats(dataSource, 2).idle);
		CPPUNIT_ASSERT_EQUAL(2, stats(dataSource, 3).idle);

		// Failover while the sessions sit idle: node1 stops, node2 is promoted.
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 1"));
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("promote 2"));

		for (int i = 0; i < 10; ++i)
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Primary);
			CPPUNIT_ASSERT_EQUAL(node(2), lease.connectedEndpoint().host());
			CPPUNIT_ASSERT(!inRecovery(lease)); // never a session on a standby
			lease.executeSimple("CREATE TEMP TABLE promoted_check (x int)");
		}
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(stats(dataSource, 2).lastKnownRole));
		CPPUNIT_ASSERT_EQUAL(0, stats(dataSource, 1).idle); // the broken sessions of the stopped node were discarded
		// The idle sessions on node2 were reused (refreshed), not reopened.
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), stats(dataSource, 2).created);
		BlueTuskConnection standby = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(node(3), standby.connectedEndpoint().host());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PooledRoutingIntegrationTest);
