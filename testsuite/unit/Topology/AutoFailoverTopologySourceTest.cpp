//
// AutoFailoverTopologySourceTest.cpp
//
// The pg_auto_failover topology source without a server: the monitor's states mapped to roles, a node row
// to a TopologyMember, the location checked (and its password kept out of messages), and a source whose
// monitor cannot be reached failing its read and waiting like a polling source, close() ending the wait.
//

#include "AutoFailoverTopologySource.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Timestamp.h"
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;


namespace {

AutoFailoverNode node(const std::string& name, const std::string& host, int port, const std::string& reported,
	const std::string& goal, int health, Poco::UInt32 timeline, Poco::Int64 lag)
{
	AutoFailoverNode n;
	n.name = name;
	n.host = host;
	n.port = port;
	n.reportedState = reported;
	n.goalState = goal;
	n.health = health;
	n.timeline = timeline;
	n.lagBytes = lag;
	return n;
}

} // namespace


class AutoFailoverTopologySourceTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(AutoFailoverTopologySourceTest);
	CPPUNIT_TEST(testPrimaryStates);
	CPPUNIT_TEST(testStandbyStates);
	CPPUNIT_TEST(testOtherStatesAreUnknown);
	CPPUNIT_TEST(testMemberFromNode);
	CPPUNIT_TEST(testDemotedPrimaryMember);
	CPPUNIT_TEST(testConfigureRejectsBadLocations);
	CPPUNIT_TEST(testReadFailureNamesTheMonitor);
	CPPUNIT_TEST(testUnreachableMonitor);
	CPPUNIT_TEST(testCloseEndsWait);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPrimaryStates()
	{
		for (const char* state: {"primary", "wait_primary", "single"})
		{
			CPPUNIT_ASSERT_EQUAL_MESSAGE(state, toString(ServerRole::Primary), toString(AutoFailoverTopologySource::roleOf(state, state)));
		}
		// Between two primary states (wait_primary reported, primary assigned) it is still the primary.
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Primary), toString(AutoFailoverTopologySource::roleOf("wait_primary", "primary")));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Primary), toString(AutoFailoverTopologySource::roleOf("single", "wait_primary")));
	}

	void testStandbyStates()
	{
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(AutoFailoverTopologySource::roleOf("secondary", "secondary")));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(AutoFailoverTopologySource::roleOf("catchingup", "catchingup")));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(AutoFailoverTopologySource::roleOf("catchingup", "secondary")));
		// A secondary asked for its LSN during a failover is still in recovery.
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(AutoFailoverTopologySource::roleOf("secondary", "report_lsn")));
	}

	void testOtherStatesAreUnknown()
	{
		for (const char* state: {"init", "wait_standby", "report_lsn", "prepare_promotion", "stop_replication",
			"draining", "demote_timeout", "demoted", "join_secondary", "maintenance", "dropped", "", "PRIMARY"})
		{
			CPPUNIT_ASSERT_EQUAL_MESSAGE(std::string("state '") + state + "'", toString(ServerRole::Unknown),
				toString(AutoFailoverTopologySource::roleOf(state, state)));
		}
		// A lost primary still reports "primary" while the monitor demotes it: not a primary to use.
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Unknown), toString(AutoFailoverTopologySource::roleOf("primary", "demoted")));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Unknown), toString(AutoFailoverTopologySource::roleOf("primary", "draining")));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Unknown), toString(AutoFailoverTopologySource::roleOf("primary", "demote_timeout")));
	}

	void testMemberFromNode()
	{
		const TopologyMember member = AutoFailoverTopologySource::member(node("node2", "127.0.0.2", 57500, "secondary", "secondary", 1, 3, 4096));
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2"), member.endpoint.host());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt16(57500), member.endpoint.port());
		CPPUNIT_ASSERT_EQUAL(std::string("node2"), member.name);
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(member.role));
		CPPUNIT_ASSERT_EQUAL(std::string("secondary"), member.state);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(3), member.timeline);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(4096), member.lagBytes);
	}

	void testDemotedPrimaryMember()
	{
		const TopologyMember member = AutoFailoverTopologySource::member(node("node1", "127.0.0.1", 5432, "primary", "demoted", 0, 0, -1));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Unknown), toString(member.role));
		CPPUNIT_ASSERT_EQUAL(std::string("primary -> demoted, unhealthy"), member.state);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(0), member.timeline);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-1), member.lagBytes);
	}

	void testConfigureRejectsBadLocations()
	{
		AutoFailoverTopologySource source;
		CPPUNIT_ASSERT_EQUAL(std::string("pg_auto_failover"), source.name());
		ConnectionSettings seed;
		try
		{
			source.configure("  ", seed);
			CPPUNIT_FAIL("an empty location was accepted");
		}
		catch (const BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("Topology Source") != std::string::npos);
		}
		try
		{
			source.configure("Host=127.0.0.1;Password=very-secret-1;Port=notaport", seed);
			CPPUNIT_FAIL("a bad port was accepted");
		}
		catch (const BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("Topology Source") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("monitor") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE("the password leaked: " + exc.displayText(), exc.displayText().find("very-secret-1") == std::string::npos);
		}
	}

	void testReadFailureNamesTheMonitor()
	{
		// A read from a closed port fails naming the monitor and neither the seed's password (which a monitor
		// string without one, for the same user, takes: AutoFailoverTopologyTest checks it logs in) nor its own.
		AutoFailoverTopologySource source;
		const ConnectionSettings seed = ConnectionSettings::parse("Host=127.0.0.9;Username=app;Password=seed-secret-2");
		source.configure("Host=127.0.0.1;Port=1;Username=app;Database=pg_auto_failover;Timeout=1", seed);
		try
		{
			source.read(Poco::Timespan(1, 0));
			CPPUNIT_FAIL("a read from a closed port succeeded");
		}
		catch (const BlueTuskException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("pg_auto_failover monitor 127.0.0.1:1") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE("the password leaked: " + exc.displayText(), exc.displayText().find("seed-secret-2") == std::string::npos);
		}
	}

	void testUnreachableMonitor()
	{
		AutoFailoverTopologySource source;
		source.configure("postgresql://app:url-secret-3@127.0.0.1:1/pg_auto_failover?connect_timeout=1", ConnectionSettings());
		CPPUNIT_ASSERT_THROW(source.read(Poco::Timespan(1, 0)), BlueTuskException);
		// No listening session: it waits like a polling source and reports no change.
		Poco::Timestamp started;
		CPPUNIT_ASSERT(!source.waitForChange(Poco::Timespan(0, 300000)));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(started.elapsed()) + " us", started.elapsed() >= 250000);
		source.close();
	}

	void testCloseEndsWait()
	{
		AutoFailoverTopologySource source;
		source.configure("Host=127.0.0.1;Port=1;Username=app;Database=pg_auto_failover;Timeout=1", ConnectionSettings());
		Poco::Timestamp started;
		bool changed = true;
		std::thread waiter([&] { changed = source.waitForChange(Poco::Timespan(20, 0)); });
		std::this_thread::sleep_for(std::chrono::milliseconds(200));
		source.close();
		waiter.join();
		CPPUNIT_ASSERT(!changed);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(started.elapsed()) + " us", started.elapsed() < 5000000);
		CPPUNIT_ASSERT(!source.waitForChange(Poco::Timespan(5, 0)));   // at once after close()
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(AutoFailoverTopologySourceTest);
