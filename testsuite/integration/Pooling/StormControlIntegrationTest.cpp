//
// StormControlIntegrationTest.cpp
//
// Storm control against the real local cluster (scripts/cluster): a role with CONNECTION LIMIT 3 behind a
// data source of Maximum Pool Size=10 under ten threads (the server's 53300 is capacity: nothing reaches the
// application, at most three sessions, every thread's work done), and the rebalancing of idle sessions to
// a standby that comes back (Host Order=random, target standby).
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string LIMITED_ROLE = "bluetusk_storm";


struct TopologyGuard
	/// Restores the original topology when a test that changes it ends, however it ends.
{
	std::string command;
	~TopologyGuard()
	{
		if (!command.empty()) cluster().runClusterCommand(command);
	}
};


BlueTuskConnection superuser()
	/// The postgres superuser over node 1's socket (trusted there, scripts/cluster).
{
	const ClusterInfo& c = cluster();
	return BlueTuskConnection::open("Host=" + c.socketDir(1) + ";Port=" + std::to_string(c.port) +
		";Username=postgres;Database=" + c.database);
}


std::string node(int n)
{
	return cluster().hosts.at(static_cast<std::size_t>(n - 1));
}


BlueTuskHostEndpoint endpointOf(int n)
{
	return BlueTuskHostEndpoint(node(n), static_cast<Poco::UInt16>(cluster().port));
}

} // namespace


class StormControlIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(StormControlIntegrationTest);
	CPPUNIT_TEST(testConnectionLimitIsCapacity);
	CPPUNIT_TEST(testRebalanceToReturningStandby);
	CPPUNIT_TEST_SUITE_END();

public:
	void testConnectionLimitIsCapacity()
	{
		const ClusterInfo& c = cluster();
		{
			BlueTuskConnection admin = superuser();
			admin.executeSimple("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + LIMITED_ROLE + "') THEN "
				"CREATE ROLE " + LIMITED_ROLE + " LOGIN; END IF; END $$");
			admin.executeSimple("ALTER ROLE " + LIMITED_ROLE + " LOGIN CONNECTION LIMIT 3 PASSWORD '" + c.password + "'");
			admin.executeSimple("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + LIMITED_ROLE + "'");
		}
		const std::string cs = "Host=" + node(1) + ";Port=" + std::to_string(c.port) + ";Username=" + LIMITED_ROLE +
			";Password=" + c.password + ";Database=" + c.database + ";Maximum Pool Size=10;Checkout Timeout=60;Timeout=10";
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cs, connector);

		std::atomic<int> failures{0};
		std::atomic<int> done{0};
		std::atomic<int> peakServer{0};
		std::atomic<int> peakPool{0};
		std::string firstError;
		std::mutex errorMutex;
		std::vector<std::thread> threads;
		for (int t = 0; t < 10; ++t)
		{
			threads.emplace_back([&, t]
			{
				for (int i = 0; i < 20; ++i)
				{
					try
					{
						BlueTuskConnection db = dataSource->open();
						const int seen = std::atoi(db.executeSimple("SELECT count(*) FROM pg_stat_activity WHERE usename = current_user")
							.front().rows.at(0).at(0).value().c_str());
						if (seen > peakServer) peakServer = seen;
						const PoolStatistics now = dataSource->getPoolStatistics();
						const int sessions = now.total - now.connecting;   // opens in flight are no sessions yet
						if (sessions > peakPool) peakPool = sessions;
						Poco::Thread::sleep(2 + (t + i) % 5);
						++done;
					}
					catch (Poco::Exception& exc)
					{
						std::lock_guard<std::mutex> lock(errorMutex);
						if (firstError.empty()) firstError = exc.displayText();
						++failures;
					}
				}
			});
		}
		for (auto& thread: threads) thread.join();
		const PoolStatistics stats = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(firstError, 0, failures.load());
		CPPUNIT_ASSERT_EQUAL(200, done.load());
		CPPUNIT_ASSERT(peakServer.load() >= 1);
		CPPUNIT_ASSERT(peakServer.load() <= 3);
		CPPUNIT_ASSERT(peakPool.load() <= 3);
		CPPUNIT_ASSERT_EQUAL(0, stats.connecting);
		CPPUNIT_ASSERT(stats.total <= 3);
		CPPUNIT_ASSERT(stats.refusals >= 1);   // the pool did reach the limit and was told so
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.checkoutTimeouts);
		CPPUNIT_ASSERT(connector.hostState(endpointOf(1)).state != HostCandidate::DOWN);
	}

	void testRebalanceToReturningStandby()
	{
		TopologyGuard guard{"start-node 3"};
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 3"));
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(node(1) + "," + node(2) + "," + node(3),
			"Host Order=random;Target Session Attributes=standby;Maximum Pool Size=10;Host Recheck Seconds=1;Timeout=5;"
			"Checkout Timeout=30"), connector);

		// Six leases at once, three times: every session piles up on standby 1 (node 2).
		for (int round = 0; round < 3; ++round)
		{
			std::vector<BlueTuskConnection> leases;
			for (int i = 0; i < 6; ++i)
			{
				leases.push_back(dataSource->open());
				CPPUNIT_ASSERT_EQUAL(node(2), leases.back().connectedEndpoint().host());
			}
		}
		auto hosts = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(6, hosts.at(endpointOf(2)).total);
		CPPUNIT_ASSERT_EQUAL(0, hosts.at(endpointOf(3)).total);

		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("start-node 3"));
		// Within a few pruning intervals (1 s, two moves each with Max Connecting=2) the standbys hold 3 and 3.
		bool balanced = false;
		const Poco::Timestamp started;
		for (int i = 0; i < 200 && !balanced; ++i)
		{
			Poco::Thread::sleep(100);
			hosts = dataSource->getHostPoolStatistics();
			const int a = hosts.at(endpointOf(2)).total;
			const int b = hosts.at(endpointOf(3)).total;
			// 6 moved, or 7: the health monitor (on by default) re-probes the stopped standby and adds the
			// session that found it back to its pool
			balanced = (a + b == 6 || a + b == 7) && std::abs(a - b) <= 1;
		}
		CPPUNIT_ASSERT_MESSAGE(hosts.at(endpointOf(2)).toString() + " / " + hosts.at(endpointOf(3)).toString(), balanced);
		std::cout << "\n  balanced " << hosts.at(endpointOf(2)).total << "/" << hosts.at(endpointOf(3)).total << " " <<
			(Poco::Timestamp() - started) / 1000 << " ms after standby 2 accepted connections again\n";
		CPPUNIT_ASSERT_EQUAL(ServerRole::Standby, hosts.at(endpointOf(3)).lastKnownRole);
		CPPUNIT_ASSERT_EQUAL(0, hosts.at(endpointOf(2)).busy);

		// Balanced, it stays so: the moved sessions serve checkouts and no further moves happen.
		const Poco::UInt64 closedBefore = hosts.at(endpointOf(2)).closed + hosts.at(endpointOf(3)).closed;
		Poco::Thread::sleep(2500);
		hosts = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(closedBefore, hosts.at(endpointOf(2)).closed + hosts.at(endpointOf(3)).closed);
		const int totalBefore = hosts.at(endpointOf(2)).total + hosts.at(endpointOf(3)).total;
		std::vector<BlueTuskConnection> leases;
		for (int i = 0; i < 6; ++i) leases.push_back(dataSource->open());
		hosts = dataSource->getHostPoolStatistics();   // idle sessions are taken before anything new opens
		CPPUNIT_ASSERT_EQUAL(totalBefore, hosts.at(endpointOf(2)).total + hosts.at(endpointOf(3)).total);
		CPPUNIT_ASSERT_EQUAL(6, hosts.at(endpointOf(2)).busy + hosts.at(endpointOf(3)).busy);
		CPPUNIT_ASSERT(hosts.at(endpointOf(2)).busy >= 2 && hosts.at(endpointOf(3)).busy >= 2);   // both standbys serve
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(StormControlIntegrationTest);
