//
// PreferredTargetIntegrationTest.cpp
//
// Preferred targets and kept roles on the real local cluster (scripts/cluster: a primary, 127.0.0.1, and two
// standbys, 127.0.0.2 and 127.0.0.3).
//
// 1. Storm control must not change which server a preferred target gets. Many threads each hold a lease
//    of prefer-standby (or prefer-primary) at once over several endpoints of each server, as the other
//    drivers' own multi-host suites do (Npgsql's MultipleHostsTests, pgJDBC's MultiHostsConnectionTest),
//    with each host order (sequential, random = Load Balance Hosts, parallel) and Max Connecting's default
//    of 2: no lease may land on a fallback server while a preferred one is up. Each server is reached
//    through several distinct endpoints (one pool each): its IP written as 127.0.0.N, 127.0.N and 127.N
//    (the resolver reads all three as the same address), its Unix socket directory, and for the primary
//    localhost. At 4b09e4a 1 to 6 of 12 prefer-standby leases landed on the primary in every trial.
// 2. A read-write (or primary) data source keeps no session on a standby: not at cold start, not after
//    warmUp(), not after a checkout rejected a standby (getHostPoolStatistics() shows 0 there).
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string node(int n)
{
	return cluster().hosts.at(static_cast<std::size_t>(n - 1));
}


BlueTuskHostEndpoint endpointOf(int n)
{
	return BlueTuskHostEndpoint(node(n), static_cast<Poco::UInt16>(cluster().port));
}


std::vector<std::string> spellings(int n)
	/// Distinct endpoints (one pool each) of node n's server: 127.0.0.N, 127.0.N, 127.N, its socket
	/// directory, and localhost for node 1.
{
	const std::string ip = node(n);
	std::vector<std::string> result{ip};
	const std::string prefix = "127.0.0.";
	if (ip.compare(0, prefix.size(), prefix) == 0)
	{
		const std::string last = ip.substr(prefix.size());
		result.push_back("127.0." + last);
		result.push_back("127." + last);
	}
	result.push_back(cluster().socketDir(n));
	if (n == 1) result.push_back("localhost");
	return result;
}


std::string join(const std::vector<std::string>& hosts)
{
	std::string text;
	for (const std::string& host: hosts) text += (text.empty() ? "" : ",") + host;
	return text;
}


struct Trial
{
	int preferred = 0;
	int fallback = 0;
	int failures = 0;
	std::string firstError;
	std::map<std::string, int> perEndpoint;   /// "127.0.0.2:5432 standby" -> leases
	long elapsedMs = 0;

	std::string describe() const
	{
		std::string text = std::to_string(preferred) + " preferred, " + std::to_string(fallback) + " fallback, " +
			std::to_string(failures) + " failed (" + std::to_string(elapsedMs) + " ms):";
		for (const auto& item: perEndpoint) text += " " + item.first + "=" + std::to_string(item.second);
		if (!firstError.empty()) text += "; first error: " + firstError;
		return text;
	}
};


Trial holdLeases(const std::string& hosts, const std::string& extra, TargetSessionAttributes target, int threads, int holdMs)
	/// A fresh data source (and connector: nothing learned yet); threads checkouts of target started at
	/// once, each holding its lease holdMs; which server each lease is on, asked of the server itself.
{
	RoutingContext connector;
	auto dataSource = BlueTuskDataSource::create(cluster().connectionString(hosts, extra), connector);
	const bool wantStandby = target == TargetSessionAttributes::PreferStandby;
	Trial trial;
	std::mutex mutex;
	std::atomic<int> ready{0};
	std::atomic<bool> go{false};
	std::vector<std::thread> workers;
	Poco::Clock clock;
	for (int t = 0; t < threads; ++t)
	{
		workers.emplace_back([&]
		{
			++ready;
			while (!go) std::this_thread::yield();
			try
			{
				BlueTuskConnection lease = dataSource->open(target);
				const bool standby = lease.executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value() == "t";
				{
					std::lock_guard<std::mutex> lock(mutex);
					if (standby == wantStandby) ++trial.preferred;
					else ++trial.fallback;
					++trial.perEndpoint[lease.connectedEndpoint().toString() + (standby ? " standby" : " primary")];
				}
				Poco::Thread::sleep(holdMs);
			}
			catch (Poco::Exception& exc)
			{
				std::lock_guard<std::mutex> lock(mutex);
				++trial.failures;
				if (trial.firstError.empty()) trial.firstError = exc.displayText();
			}
		});
	}
	while (ready < threads) std::this_thread::yield();
	clock.update();
	go = true;
	for (auto& worker: workers) worker.join();
	trial.elapsedMs = static_cast<long>(clock.elapsed() / 1000);
	return trial;
}


const char* const HOST_ORDERS[] = {"Load Balance Hosts=false", "Load Balance Hosts=true", "Host Order=parallel"};

} // namespace


class PreferredTargetIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PreferredTargetIntegrationTest);
	CPPUNIT_TEST(testPreferStandbyLeasesStayOnStandbys);
	CPPUNIT_TEST(testPreferPrimaryLeasesStayOnPrimary);
	CPPUNIT_TEST(testReadWriteWarmUpKeepsNothingOnStandbys);
	CPPUNIT_TEST(testReadWriteCheckoutsKeepNothingOnStandbys);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPreferStandbyLeasesStayOnStandbys()
	{
		// The reported shape: seven endpoints, five of them the primary's (listed first), two standbys; twelve
		// threads, each lease held while the others open.
		std::vector<std::string> hosts = spellings(1);
		hosts.push_back(node(2));
		hosts.push_back(node(3));
		runTrials(join(hosts), TargetSessionAttributes::PreferStandby);
	}

	void testPreferPrimaryLeasesStayOnPrimary()
	{
		// The mirror image: the standbys' endpoints first, two endpoints of the primary last.
		std::vector<std::string> hosts = spellings(2);
		const std::vector<std::string> third = spellings(3);
		hosts.insert(hosts.end(), third.begin(), third.end());
		hosts.push_back(node(1));
		hosts.push_back("localhost");
		runTrials(join(hosts), TargetSessionAttributes::PreferPrimary);
	}

	void testReadWriteWarmUpKeepsNothingOnStandbys()
	{
		for (const char* target: {"read-write", "primary"})
		{
			// Cold start: the pruning thread warms the pools up in the background.
			{
				RoutingContext connector;
				auto dataSource = BlueTuskDataSource::create(cluster().connectionString(node(1) + "," + node(2) + "," + node(3),
					std::string("Target Session Attributes=") + target + ";Minimum Pool Size=3"), connector);
				Poco::Clock clock;
				while (dataSource->getHostPoolStatistics().at(endpointOf(1)).idle < 3 && clock.elapsed() < 10000000) Poco::Thread::sleep(50);
				Poco::Thread::sleep(2500);   // two more pruning passes: nothing more may appear anywhere
				assertPrimaryOnly(*dataSource, 3, std::string(target) + ", background warm-up");
			}
			// warmUp(), synchronously, then the pruning thread's passes.
			{
				RoutingContext connector;
				auto dataSource = BlueTuskDataSource::create(cluster().connectionString(node(2) + "," + node(3) + "," + node(1),
					std::string("Target Session Attributes=") + target + ";Minimum Pool Size=2"), connector);
				dataSource->warmUp();
				assertPrimaryOnly(*dataSource, 2, std::string(target) + ", warmUp()");
				Poco::Thread::sleep(1500);
				assertPrimaryOnly(*dataSource, 2, std::string(target) + ", warmUp() and a pruning pass");
				// Its leases are on the primary, reusing what the warm-up opened.
				std::vector<BlueTuskConnection> leases;
				for (int i = 0; i < 2; ++i) leases.push_back(dataSource->open());
				for (const BlueTuskConnection& lease: leases) CPPUNIT_ASSERT_EQUAL(node(1), lease.connectedEndpoint().host());
				CPPUNIT_ASSERT_EQUAL(2, dataSource->getHostPoolStatistics().at(endpointOf(1)).total);
			}
		}
	}

	void testReadWriteCheckoutsKeepNothingOnStandbys()
	{
		// The standbys first in a sequential order: the first checkouts try them and reject them; a rejected
		// session is closed, not kept idle where no read-write checkout would take it.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(node(2) + "," + node(3) + "," + node(1),
			"Target Session Attributes=read-write"), connector);
		std::vector<std::thread> threads;
		std::atomic<int> onPrimary{0};
		for (int t = 0; t < 6; ++t)
		{
			threads.emplace_back([&]
			{
				for (int i = 0; i < 3; ++i)
				{
					BlueTuskConnection lease = dataSource->open();
					if (lease.executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value() == "f") ++onPrimary;
					Poco::Thread::sleep(20);
				}
			});
		}
		for (auto& thread: threads) thread.join();
		CPPUNIT_ASSERT_EQUAL(18, onPrimary.load());
		auto hosts = dataSource->getHostPoolStatistics();
		for (int n: {2, 3})
		{
			const PoolStatistics& standby = hosts.at(endpointOf(n));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(standby.toString(), 0, standby.total);
			CPPUNIT_ASSERT_MESSAGE(standby.toString(), standby.created >= 1);   // it was tried, and the session closed
			CPPUNIT_ASSERT_EQUAL_MESSAGE(standby.toString(), ServerRole::Standby, standby.lastKnownRole);
		}
		CPPUNIT_ASSERT(hosts.at(endpointOf(1)).idle >= 1);
		// Another target named per checkout still uses the standbys, and what its leases return stays pooled.
		dataSource->open(TargetSessionAttributes::ReadOnly).close();
		hosts = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(1, hosts.at(endpointOf(2)).idle + hosts.at(endpointOf(3)).idle);
	}

private:
	void runTrials(const std::string& hosts, TargetSessionAttributes target)
	{
		const int trials = 3;
		for (const char* order: HOST_ORDERS)
		{
			for (int i = 0; i < trials; ++i)
			{
				const Trial trial = holdLeases(hosts, order, target, 12, 600);
				const std::string what = toString(target) + ", " + order + ", trial " + std::to_string(i + 1) + ": " + trial.describe();
				std::cout << "\n  " << what << std::flush;
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 0, trial.failures);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 0, trial.fallback);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 12, trial.preferred);
			}
		}
		std::cout << "\n";
	}

	static void assertPrimaryOnly(BlueTuskDataSource& dataSource, int expected, const std::string& what)
	{
		auto hosts = dataSource.getHostPoolStatistics();
		const PoolStatistics& primary = hosts.at(endpointOf(1));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + primary.toString(), expected, primary.total);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + primary.toString(), expected, primary.idle);
		for (int n: {2, 3})
		{
			const PoolStatistics& standby = hosts.at(endpointOf(n));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + standby.toString(), 0, standby.total);
			CPPUNIT_ASSERT_MESSAGE(what + ": " + standby.toString(), standby.created <= 1);   // one open told its role
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + standby.toString(), ServerRole::Standby, standby.lastKnownRole);
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(PreferredTargetIntegrationTest);
