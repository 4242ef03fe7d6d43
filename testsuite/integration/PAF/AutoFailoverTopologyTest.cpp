//
// AutoFailoverTopologyTest.cpp
//
// The pg_auto_failover topology source (Plugins/Topology, loaded by name through a RoutingContext) against the
// monitor of scripts/pg-auto-failover: it reports the three nodes with their roles, timeline and lag even
// though the seed lists only one node, takes the data source's password when the monitor string has none,
// and its waitForChange() returns on the monitor's own notifications on "state" when a secondary is lost.
// (No test NOTIFYs "state" itself: the keepers listen there too and log an error for a payload that is
// not the monitor's JSON.)
//

#include "HaCluster.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/TopologySource.h"
#include "Poco/Timestamp.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <iostream>

using namespace BlueTusk;
using namespace BlueTusk::Test;


namespace {

std::string monitorUri()
{
	std::string text;
	CPPUNIT_ASSERT_EQUAL(0, HaCluster::autoFailover().run("monitor-uri", &text));
	text.erase(text.find_last_not_of("\r\n") + 1);
	CPPUNIT_ASSERT_MESSAGE("scripts/pg-auto-failover monitor-uri printed nothing", !text.empty());
	return text;
}


const TopologyMember* find(const TopologySnapshot& snapshot, const std::string& host)
{
	for (const TopologyMember& member: snapshot.members)
	{
		if (member.endpoint.host() == host) return &member;
	}
	return nullptr;
}


struct NodeRestore
	/// Starts a node lost by a test again and waits for a healthy cluster, passed or failed.
{
	int node = 0;
	~NodeRestore()
	{
		if (node == 0) return;
		HaCluster::autoFailover().run("start-node " + std::to_string(node) + " >&2");
		HaCluster::autoFailover().run("wait 120 >/dev/null 2>&1");
	}
};

} // namespace


class AutoFailoverTopologyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(AutoFailoverTopologyTest);
	CPPUNIT_TEST(testReadsTheThreeNodes);
	CPPUNIT_TEST(testSeedPasswordForTheMonitor);
	CPPUNIT_TEST(testLostSecondaryIsPushed);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		HaCluster::autoFailover().waitHealthy(120);
	}

	void testReadsTheThreeNodes()
	{
		const HaCluster& cluster = HaCluster::autoFailover();
		RoutingContext connector;
		TopologySource::Ptr source = connector.createTopologySource("pg_auto_failover");
		CPPUNIT_ASSERT_EQUAL(std::string("pg_auto_failover"), source->name());
		// The seed names one node only: the members come from the monitor.
		source->configure(monitorUri(), ConnectionSettings::parse(cluster.nodeConnectionString(2, "")));
		const TopologySnapshot snapshot = source->read(Poco::Timespan(5, 0));
		source->close();

		CPPUNIT_ASSERT_EQUAL(std::size_t(3), snapshot.members.size());
		const int leader = cluster.leader();
		CPPUNIT_ASSERT(leader != 0);
		CPPUNIT_ASSERT_EQUAL_MESSAGE("the primary comes first", cluster.host(leader), snapshot.members.front().endpoint.host());
		int primaries = 0;
		int standbys = 0;
		for (int node = 1; node <= 3; ++node)
		{
			const TopologyMember* member = find(snapshot, cluster.host(node));
			CPPUNIT_ASSERT_MESSAGE("no member for " + cluster.host(node), member != nullptr);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt16(cluster.port), member->endpoint.port());
			CPPUNIT_ASSERT_EQUAL("node" + std::to_string(node), member->name);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(member->name, toString(node == leader ? ServerRole::Primary : ServerRole::Standby), toString(member->role));
			CPPUNIT_ASSERT_EQUAL(std::string(node == leader ? "primary" : "secondary"), member->state);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(member->name, snapshot.members.front().timeline, member->timeline);
			CPPUNIT_ASSERT_MESSAGE(member->name + " lag " + std::to_string(member->lagBytes), member->lagBytes >= 0 && member->lagBytes < 16 * 1024 * 1024);
			(member->role == ServerRole::Primary ? primaries : standbys)++;
		}
		CPPUNIT_ASSERT_EQUAL(1, primaries);
		CPPUNIT_ASSERT_EQUAL(2, standbys);
		CPPUNIT_ASSERT(snapshot.members.front().timeline > 0);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), snapshot.endpoints().size());
	}

	void testSeedPasswordForTheMonitor()
	{
		const HaCluster& cluster = HaCluster::autoFailover();
		std::string uri = monitorUri();
		const std::string::size_type at = uri.find("Password=");
		CPPUNIT_ASSERT(at != std::string::npos);
		uri.erase(at, uri.find(';', at) + 1 - at);
		RoutingContext connector;
		TopologySource::Ptr source = connector.createTopologySource("pg_auto_failover");
		source->configure(uri, ConnectionSettings::parse(cluster.nodeConnectionString(1, "")));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), source->read(Poco::Timespan(5, 0)).members.size());
		source->close();
	}

	void testLostSecondaryIsPushed()
	{
		const HaCluster& cluster = HaCluster::autoFailover();
		const int leader = cluster.leader();
		CPPUNIT_ASSERT(leader != 0);
		const int secondary = leader == 3 ? 2 : 3;
		RoutingContext connector;
		TopologySource::Ptr source = connector.createTopologySource("pg_auto_failover");
		source->configure(monitorUri(), ConnectionSettings());
		for (int i = 0; i < 20 && source->waitForChange(Poco::Timespan(0, 200000)); ++i) {}

		NodeRestore restore;
		CPPUNIT_ASSERT_EQUAL(0, cluster.run("stop-node " + std::to_string(secondary)));
		restore.node = secondary;
		Poco::Timestamp lost;
		int pushes = 0;
		std::string seen;
		while (lost.elapsed() < 20000000)
		{
			if (source->waitForChange(Poco::Timespan(1, 0))) ++pushes;
			const TopologySnapshot snapshot = source->read(Poco::Timespan(5, 0));
			const TopologyMember* member = find(snapshot, cluster.host(secondary));
			CPPUNIT_ASSERT(member != nullptr);
			seen = member->state;
			if (pushes > 0 && member->state != "secondary") break;
		}
		const Poco::Timestamp::TimeDiff after = lost.elapsed();
		source->close();
		std::cout << "\n    node" << secondary << " lost: " << pushes << " push(es), its state read as \"" << seen << "\" "
			<< after / 1000 << " ms after the loss" << std::endl;
		CPPUNIT_ASSERT_MESSAGE("no push from the monitor within 20 s", pushes > 0);
		CPPUNIT_ASSERT_MESSAGE("the lost secondary still reads as a healthy secondary: " + seen, seen != "secondary");
		CPPUNIT_ASSERT_MESSAGE("the monitor's push came after " + std::to_string(after / 1000) + " ms", after < 15000000);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(AutoFailoverTopologyTest);
