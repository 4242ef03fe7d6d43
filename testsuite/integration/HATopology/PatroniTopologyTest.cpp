//
// PatroniTopologyTest.cpp
//
// Topology Source=patroni against the real Patroni cluster of scripts/patroni (doc/high-availability.md,
// "Topology sources"); scripts/test creates it afresh for label "ha-topology". A data source whose Host
// lists node1 alone routes over every member Patroni reports; a fourth member added while it runs is used,
// and dropped when removed, without a restart; an API that does not answer leaves checkouts on the written
// hosts without costing them any time; after kill -9 of the leader, the source's new leader hint is picked
// up. Every checkout's server is confirmed with inet_server_addr().
//

#include "HaCluster.h"
#include "BlackHoleListener.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Clock.h"
#include "Poco/Environment.h"
#include "Poco/NumberParser.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <set>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

int restPort()
{
	const HaCluster& cluster = HaCluster::patroni();
	return Poco::NumberParser::parse(Poco::Environment::get("BLUETUSK_PATRONI_REST_PORT", std::to_string(cluster.port + 1000)));
}


std::string patroniSource()
	/// Two of the members' REST APIs (any member describes the whole cluster).
{
	const std::string port = std::to_string(restPort());
	return "Topology Source=patroni:http://127.0.0.1:" + port + ",http://127.0.0.2:" + port;
}


std::string serverAddress(BlueTuskConnection& lease)
	/// The address the session's server answers on (confirms where a checkout landed).
{
	return lease.session().executeSimple("SELECT host(inet_server_addr())").front().rows.at(0).at(0).value();
}


bool waitFor(const std::function<bool()>& condition, int seconds)
{
	Poco::Clock start;
	while (!condition())
	{
		if (start.elapsed() > static_cast<Poco::Clock::ClockDiff>(seconds) * 1000000) return false;
		Poco::Thread::sleep(20);
	}
	return true;
}


bool listed(const BlueTuskDataSource::Ptr& dataSource, const std::string& host)
{
	for (const BlueTuskHostEndpoint& endpoint: dataSource->hostList())
	{
		if (endpoint.host() == host) return true;
	}
	return false;
}


std::string describe(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::string text;
	for (const BlueTuskHostEndpoint& endpoint: endpoints) text += (text.empty() ? "" : ",") + endpoint.toString();
	return text;
}


struct FourthMember
	/// scripts/patroni add-node 4 for the scope of a test; remove-node 4 at its end, whatever happened.
{
	bool added = false;

	void add()
	{
		CPPUNIT_ASSERT_EQUAL(0, HaCluster::patroni().run("add-node 4"));
		added = true;
	}

	void remove()
	{
		added = false;
		CPPUNIT_ASSERT_EQUAL(0, HaCluster::patroni().run("remove-node 4"));
	}

	~FourthMember()
	{
		if (added) HaCluster::patroni().run("remove-node 4");
	}
};

} // namespace


class PatroniTopologyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PatroniTopologyTest);
	CPPUNIT_TEST(testSeedOfOneUsesEveryMember);
	CPPUNIT_TEST(testFourthMemberAddedAndRemoved);
	CPPUNIT_TEST(testUnreachableApiCostsCheckoutsNothing);
	CPPUNIT_TEST(testLeaderHintAfterFailover);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		HaCluster::patroni().waitHealthy(120);
	}

	void testSeedOfOneUsesEveryMember()
	{
		const HaCluster& cluster = HaCluster::patroni();
		const int leader = cluster.leader();
		CPPUNIT_ASSERT(leader != 0);
		auto dataSource = BlueTuskDataSource::create(cluster.nodeConnectionString(1,
			patroniSource() + ";Topology Refresh Interval=0.2;Maximum Pool Size=1"));
		CPPUNIT_ASSERT_MESSAGE(describe(dataSource->hostList()), waitFor([&] { return dataSource->hostList().size() == 3; }, 10));
		const TopologySnapshot topology = dataSource->topology();
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), topology.members.size());
		for (const TopologyMember& member: topology.members)
		{
			const bool isLeader = member.endpoint.host() == cluster.host(leader);
			CPPUNIT_ASSERT_MESSAGE(member.name, member.role == (isLeader ? ServerRole::Primary : ServerRole::Standby));
			CPPUNIT_ASSERT(member.timeline > 0);
		}

		// One session per endpoint (Maximum Pool Size=1): two standby leases need both replicas.
		BlueTuskConnection first = dataSource->open(TargetSessionAttributes::Standby);
		BlueTuskConnection second = dataSource->open(TargetSessionAttributes::Standby);
		std::set<std::string> standbys{serverAddress(first), serverAddress(second)};
		std::set<std::string> replicas;
		for (int node = 1; node <= 3; ++node)
		{
			if (node != leader) replicas.insert(cluster.host(node));
		}
		CPPUNIT_ASSERT(standbys == replicas);
		CPPUNIT_ASSERT_EQUAL(first.connectedEndpoint().host(), serverAddress(first));
		BlueTuskConnection primary = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(cluster.host(leader), serverAddress(primary));
		const auto statistics = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), statistics.size());
		for (const auto& entry: statistics) CPPUNIT_ASSERT_EQUAL(1, entry.second.busy);
	}

	void testFourthMemberAddedAndRemoved()
	{
		const HaCluster& cluster = HaCluster::patroni();
		const int leader = cluster.leader();
		auto dataSource = BlueTuskDataSource::create(cluster.nodeConnectionString(1,
			patroniSource() + ";Topology Refresh Interval=0.2;Maximum Pool Size=1"));
		CPPUNIT_ASSERT(waitFor([&] { return dataSource->hostList().size() == 3; }, 10));
		const BlueTuskHostEndpoint fourth("127.0.0.4", static_cast<Poco::UInt16>(cluster.port));

		FourthMember member;
		member.add();   // returns once node4 streams from the leader
		Poco::Clock sinceJoined;
		CPPUNIT_ASSERT_MESSAGE(describe(dataSource->hostList()), waitFor([&] { return listed(dataSource, "127.0.0.4"); }, 5));
		std::printf("\n  node4 in the host list %.0f ms after add-node returned (refresh 200 ms)\n", sinceJoined.elapsed() / 1000.0);
		{
			// The two replicas are taken (one session each): the third standby checkout lands on node4.
			std::vector<BlueTuskConnection> leases;
			std::set<std::string> servers;
			for (int i = 0; i < 3; ++i)
			{
				leases.push_back(dataSource->open(TargetSessionAttributes::Standby));
				servers.insert(serverAddress(leases.back()));
			}
			CPPUNIT_ASSERT_EQUAL(std::size_t(3), servers.size());
			CPPUNIT_ASSERT(servers.count("127.0.0.4") == 1);
			CPPUNIT_ASSERT(servers.count(cluster.host(leader)) == 0);
			const PoolStatistics node4 = dataSource->getHostPoolStatistics().at(fourth);
			CPPUNIT_ASSERT_EQUAL(1, node4.busy);
			CPPUNIT_ASSERT(node4.lastKnownRole == ServerRole::Standby);
		}
		CPPUNIT_ASSERT_EQUAL(1, dataSource->getHostPoolStatistics().at(fourth).idle);

		member.remove();   // stops node4 and deletes its member key
		Poco::Clock sinceRemoved;
		CPPUNIT_ASSERT_MESSAGE(describe(dataSource->hostList()), waitFor([&] { return !listed(dataSource, "127.0.0.4"); }, 5));
		std::printf("  node4 dropped %.0f ms after remove-node returned\n", sinceRemoved.elapsed() / 1000.0);
		// Its idle session was closed with the drain: the pool is gone from the statistics.
		CPPUNIT_ASSERT(waitFor([&] { return dataSource->getHostPoolStatistics().count(fourth) == 0; }, 5));
		for (int i = 0; i < 6; ++i)
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::PreferStandby);
			CPPUNIT_ASSERT(serverAddress(lease) != "127.0.0.4");
		}
	}

	void testUnreachableApiCostsCheckoutsNothing()
	{
		// The API's port black-holes: each read uses its whole timeout (Timeout=3), checkouts never wait for one.
		const HaCluster& cluster = HaCluster::patroni();
		const int leader = cluster.leader();
		BlackHoleListener hole("127.0.0.1");
		Poco::Clock created;
		auto dataSource = BlueTuskDataSource::create(cluster.connectionString("Topology Source=patroni:http://127.0.0.1:" +
			std::to_string(hole.port()) + ";Topology Refresh Interval=0.2;Timeout=3"));
		double slowestMs = 0;
		for (int i = 0; i < 20; ++i)
		{
			Poco::Clock checkout;
			BlueTuskConnection lease = dataSource->open(i % 2 ? TargetSessionAttributes::ReadWrite : TargetSessionAttributes::PreferStandby);
			slowestMs = std::max(slowestMs, checkout.elapsed() / 1000.0);
			if (i % 2) CPPUNIT_ASSERT_EQUAL(cluster.host(leader), serverAddress(lease));
		}
		std::printf("\n  slowest of 20 checkouts with a black-holed API: %.1f ms (a read takes 3000 ms)\n", slowestMs);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(slowestMs) + " ms", slowestMs < 1500);
		CPPUNIT_ASSERT(created.elapsed() < 2500000);   // all 20 done before the first read gave up
		CPPUNIT_ASSERT(dataSource->topology().members.empty());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:" + std::to_string(cluster.port) + ",127.0.0.2:" + std::to_string(cluster.port) +
			",127.0.0.3:" + std::to_string(cluster.port)), describe(dataSource->hostList()));
		Poco::Clock destroyed;
		dataSource.reset();   // close() ends the black-holed connect at once
		CPPUNIT_ASSERT(destroyed.elapsed() < 1500000);
	}

	void testLeaderHintAfterFailover()
	{
		const HaCluster& cluster = HaCluster::patroni();
		const int oldLeader = cluster.leader();
		CPPUNIT_ASSERT(oldLeader != 0);
		auto dataSource = BlueTuskDataSource::create(cluster.nodeConnectionString(1,
			patroniSource() + ";Topology Refresh Interval=0.2;Failover Timeout=60"));
		auto hintedLeader = [&]() -> std::string
		{
			for (const TopologyMember& member: dataSource->topology().members)
			{
				if (member.role == ServerRole::Primary) return member.endpoint.host();
			}
			return std::string();
		};
		CPPUNIT_ASSERT(waitFor([&] { return hintedLeader() == cluster.host(oldLeader); }, 10));
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
			CPPUNIT_ASSERT_EQUAL(cluster.host(oldLeader), serverAddress(lease));
		}
		CPPUNIT_ASSERT_EQUAL(0, cluster.run("kill-primary"));
		Poco::Clock sinceKill;
		CPPUNIT_ASSERT(waitFor([&] { return !hintedLeader().empty() && hintedLeader() != cluster.host(oldLeader); }, 60));
		const std::string newLeader = hintedLeader();
		std::printf("\n  the source named the new leader %s %.0f ms after kill -9\n", newLeader.c_str(), sinceKill.elapsed() / 1000.0);
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(newLeader, serverAddress(lease));
		CPPUNIT_ASSERT_EQUAL(std::string("f"), lease.session().executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value());
		// The hint ordered the candidates: the new leader was tried first.
		CPPUNIT_ASSERT_EQUAL(newLeader, lease.attemptLog().front().endpoint.host());
		lease.close();
		dataSource.reset();
		cluster.waitHealthy(120);   // the old leader rejoins as a replica
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PatroniTopologyTest);
