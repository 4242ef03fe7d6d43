//
// RoutingIntegrationTest.cpp
//
// BlueTuskConnection::open against the local cluster (scripts/cluster: node1 primary, node2 and node3 hot
// standbys on 127.0.0.1-3): the seven targets for host orders (primary, standby1, standby2) and (standby1,
// standby2, primary), sequential and parallel; a port list; a stopped node; a standby promoted during
// Failover Timeout. Tests that change the topology restore it ("scripts/cluster start-node" / "reset").
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <map>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string node(int n)
{
	return cluster().hosts.at(n - 1);
}


std::string hostList(std::initializer_list<int> nodes)
{
	std::string list;
	for (int n: nodes)
	{
		if (!list.empty()) list += ",";
		list += node(n);
	}
	return list;
}


bool inRecovery(BlueTuskConnection& connection)
{
	return connection.executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value() == "t";
}


struct TopologyGuard
	/// Restores the original topology when a test that changes it ends, however it ends.
{
	std::string command;
	~TopologyGuard()
	{
		if (!command.empty()) cluster().runClusterCommand(command);
	}
};

} // namespace


class RoutingIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RoutingIntegrationTest);
	CPPUNIT_TEST(testSevenTargetsPrimaryFirst);
	CPPUNIT_TEST(testSevenTargetsStandbysFirst);
	CPPUNIT_TEST(testSevenTargetsParallel);
	CPPUNIT_TEST(testReadOnlyRoleOnPrimary);
	CPPUNIT_TEST(testPortList);
	CPPUNIT_TEST(testUnixSocketHost);
	CPPUNIT_TEST(testWrongPasswordStops);
	CPPUNIT_TEST(testStoppedNode);
	CPPUNIT_TEST(testPromotionDuringFailoverTimeout);
	CPPUNIT_TEST_SUITE_END();

public:
	void checkTargets(const std::string& hosts, const std::map<std::string, int>& expected, const std::string& extra)
	{
		CPPUNIT_ASSERT_EQUAL(std::size_t(7), expected.size());
		for (const auto& row: expected)
		{
			RoutingContext connector;
			std::string where = row.first + " over " + hosts + " " + extra;
			BlueTuskConnection connection = BlueTuskConnection::open(
				cluster().connectionString(hosts, "Target Session Attributes=" + row.first + ";Timeout=10;" + extra), connector);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(where, node(row.second), connection.connectedEndpoint().host());
			CPPUNIT_ASSERT_EQUAL_MESSAGE(where, Poco::UInt16(cluster().port), connection.connectedEndpoint().port());
			bool standby = inRecovery(connection);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(where, row.second != 1, standby);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(where, std::string(standby ? "standby" : "primary"), toString(connection.role()));
		}
	}

	void testSevenTargetsPrimaryFirst()
	{
		checkTargets(hostList({1, 2, 3}), {
			{"any", 1}, {"primary", 1}, {"standby", 2}, {"prefer-primary", 1},
			{"prefer-standby", 2}, {"read-write", 1}, {"read-only", 2}}, "");
	}

	void testSevenTargetsStandbysFirst()
	{
		checkTargets(hostList({2, 3, 1}), {
			{"any", 2}, {"primary", 1}, {"standby", 2}, {"prefer-primary", 1},
			{"prefer-standby", 2}, {"read-write", 1}, {"read-only", 2}}, "");
	}

	void testSevenTargetsParallel()
	{
		// Racing: any target accepting several nodes may get any of them; check the role instead.
		for (const std::string& target: targetSessionAttributesNames())
		{
			RoutingContext connector;
			BlueTuskConnection connection = BlueTuskConnection::open(
				cluster().connectionString(hostList({2, 3, 1}), "Host Order=parallel;Timeout=10;Target Session Attributes=" + target), connector);
			bool standby = inRecovery(connection);
			std::string host = connection.connectedEndpoint().host();
			CPPUNIT_ASSERT_EQUAL_MESSAGE(target, host != node(1), standby);
			if (target == "primary" || target == "prefer-primary" || target == "read-write")
				CPPUNIT_ASSERT_EQUAL_MESSAGE(target, node(1), host);
			if (target == "standby" || target == "prefer-standby" || target == "read-only")
				CPPUNIT_ASSERT_MESSAGE(target, host == node(2) || host == node(3));
		}
	}

	void testReadOnlyRoleOnPrimary()
	{
		// bluetusk_ro has default_transaction_read_only=on: a read-only session on the primary.
		std::string cs = "Host=" + node(1) + ";Port=" + std::to_string(cluster().port) + ";Username=bluetusk_ro;Password=" +
			cluster().password + ";Database=" + cluster().database + ";Timeout=10";
		RoutingContext connector;
		BlueTuskConnection readOnly = BlueTuskConnection::open(cs + ";Target Session Attributes=read-only", connector);
		CPPUNIT_ASSERT_EQUAL(std::string("primary-read-only"), toString(readOnly.role()));
		BlueTuskConnection primary = BlueTuskConnection::open(cs + ";Target Session Attributes=primary", connector);
		CPPUNIT_ASSERT_EQUAL(node(1), primary.connectedEndpoint().host());
		try
		{
			BlueTuskConnection::open(cs + ";Target Session Attributes=read-write", connector);
			CPPUNIT_FAIL("expected BlueTuskNoAcceptableHostException");
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find(node(1) + ":" + std::to_string(cluster().port) + ": primary-read-only, target read-write") != std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find(cluster().password) == std::string::npos);
		}
	}

	void testPortList()
	{
		// A positional port list: node1 on a port where nothing listens, node2 on the cluster port.
		std::string cs = "Host=" + hostList({1, 2}) + ";Port=1," + std::to_string(cluster().port) + ";Username=" + cluster().user +
			";Password=" + cluster().password + ";Database=" + cluster().database + ";Timeout=10";
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(cs, connector);
		CPPUNIT_ASSERT_EQUAL(node(2), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt16(cluster().port), connection.connectedEndpoint().port());
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), connection.attemptLog().size());
		CPPUNIT_ASSERT_EQUAL(node(1) + ":1: refused", connection.attemptLog()[0].toString());
		// Ports written per host.
		BlueTuskConnection perHost = BlueTuskConnection::open("Host=" + node(3) + ":1," + node(3) + ":" + std::to_string(cluster().port) +
			";Username=" + cluster().user + ";Password=" + cluster().password + ";Database=" + cluster().database +
			";Target Session Attributes=standby", connector);
		CPPUNIT_ASSERT_EQUAL(node(3) + ":" + std::to_string(cluster().port), perHost.connectedEndpoint().toString());
	}

	void testUnixSocketHost()
	{
		RoutingContext connector;
		std::string dir = cluster().socketDir(2);
		BlueTuskConnection connection = BlueTuskConnection::open(
			cluster().connectionString(dir + "," + node(1), "Target Session Attributes=standby"), connector);
		CPPUNIT_ASSERT_EQUAL(dir, connection.connectedEndpoint().host());
		CPPUNIT_ASSERT(connection.connectedEndpoint().isUnixSocket());
		CPPUNIT_ASSERT(inRecovery(connection));
	}

	void testWrongPasswordStops()
	{
		std::string cs = "Host=" + hostList({2, 1}) + ";Port=" + std::to_string(cluster().port) + ";Username=" + cluster().user +
			";Password=not-the-password-42;Database=" + cluster().database + ";Target Session Attributes=primary";
		RoutingContext connector;
		try
		{
			BlueTuskConnection::open(cs, connector);
			CPPUNIT_FAIL("expected BlueTuskAuthenticationException");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find(node(2)) != std::string::npos); // stopped at the first host
			CPPUNIT_ASSERT(exc.displayText().find("not-the-password-42") == std::string::npos);
		}
	}

	void testStoppedNode()
	{
		TopologyGuard guard{"start-node 2"};
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 2"));
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(
			cluster().connectionString(hostList({2, 3, 1}), "Target Session Attributes=standby;Timeout=10"), connector);
		CPPUNIT_ASSERT_EQUAL(node(3), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(node(2) + ":" + std::to_string(cluster().port) + ": refused", connection.attemptLog().at(0).toString());
		// The second open does not try the stopped node first.
		BlueTuskConnection second = BlueTuskConnection::open(
			cluster().connectionString(hostList({2, 3, 1}), "Target Session Attributes=standby;Timeout=10"), connector);
		CPPUNIT_ASSERT_EQUAL(node(3), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), second.attemptLog().size());
	}

	void testPromotionDuringFailoverTimeout()
	{
		TopologyGuard guard{"reset"};
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 1"));
		int promoted = -1;
		std::thread promoter([&promoted]()
		{
			Poco::Thread::sleep(2000);
			promoted = cluster().runClusterCommand("promote 2");
		});
		Poco::Clock start;
		BlueTuskConnection connection;
		std::string error;
		try
		{
			RoutingContext connector;
			connection = BlueTuskConnection::open(cluster().connectionString(hostList({1, 2, 3}),
				"Target Session Attributes=primary;Failover Timeout=20;Timeout=5"), connector);
		}
		catch (Poco::Exception& exc)
		{
			error = exc.displayText();
		}
		promoter.join();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(error, std::string(), error);
		CPPUNIT_ASSERT_EQUAL(0, promoted);
		CPPUNIT_ASSERT_EQUAL(node(2), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT(!inRecovery(connection));
		CPPUNIT_ASSERT(start.elapsed() >= 1900000);
		connection.close();
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(RoutingIntegrationTest);
