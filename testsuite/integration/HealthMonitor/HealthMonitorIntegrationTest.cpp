//
// HealthMonitorIntegrationTest.cpp
//
// The connector's background health monitor against the real cluster (scripts/cluster,
// doc/high-availability.md "The health monitor"): the primary made read-only under idle sessions (ALTER
// SYSTEM default_transaction_read_only, reloaded) is found by the monitor through one idle session, and
// the primary's idle sessions of both data sources are closed at once; a standby promoted under idle
// sessions is seen as primary without a checkout; a stopped node started again is marked up by the
// monitor alone. The cluster is reset afterwards where a test changed it.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include "datasource/RoutingContextAccess.h"
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

void asSuperuser(int node, const std::string& sql)
	/// Runs sql on node as the postgres superuser over the node's Unix socket (trusted there).
{
	RoutingContext connector;
	BlueTuskConnection admin = BlueTuskConnection::open("Host=" + cluster().socketDir(node) + ";Port=" +
		std::to_string(cluster().port) + ";Username=postgres;Database=postgres;Health Check Interval=0", connector);
	admin.executeSimple(sql);
}


void parkIdle(BlueTuskDataSource& source, TargetSessionAttributes target, int count)
	/// Leaves count idle sessions of target in source's pools (held at once, then returned).
{
	std::vector<BlueTuskConnection> leases;
	for (int i = 0; i < count; ++i) leases.push_back(source.open(target));
}


std::string hosts()
{
	const auto& h = cluster().hosts;
	return h.at(0) + "," + h.at(1) + "," + h.at(2);
}

} // namespace


class HealthMonitorIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HealthMonitorIntegrationTest);
	CPPUNIT_TEST(testReadOnlyPrimaryClosesIdleSessions);
	CPPUNIT_TEST(testRestartedNodeMarkedUp);
	CPPUNIT_TEST(testPromotionSeenWithoutCheckout);
	CPPUNIT_TEST_SUITE_END();

public:
	void testReadOnlyPrimaryClosesIdleSessions()
	{
		struct Restore
		{
			~Restore()
			{
				try
				{
					asSuperuser(1, "ALTER SYSTEM RESET default_transaction_read_only");
					asSuperuser(1, "SELECT pg_reload_conf()");
				}
				catch (...)
				{
				}
			}
		} restore;
		RoutingContext connector;
		auto a = BlueTuskDataSource::create(cluster().connectionString(hosts(), "Timeout=5;Health Check Interval=0.3"), connector);
		auto b = BlueTuskDataSource::create(cluster().connectionString(hosts(), "Timeout=5;Health Check Interval=0.5"), connector);
		parkIdle(*a, TargetSessionAttributes::ReadWrite, 3);
		parkIdle(*b, TargetSessionAttributes::ReadWrite, 3);
		const BlueTuskHostEndpoint primary(cluster().hosts.at(0), static_cast<Poco::UInt16>(cluster().port));
		CPPUNIT_ASSERT_EQUAL(3, a->getHostPoolStatistics()[primary].idle);
		CPPUNIT_ASSERT_EQUAL(3, b->getHostPoolStatistics()[primary].idle);
		CPPUNIT_ASSERT(a->getHostPoolStatistics()[primary].lastKnownRole == ServerRole::Primary);

		asSuperuser(1, "ALTER SYSTEM SET default_transaction_read_only = on");
		asSuperuser(1, "SELECT pg_reload_conf()");
		// No checkout: the monitor's check of one idle session (a bare Sync) brings the change, and every
		// idle session of that endpoint goes in both data sources.
		CPPUNIT_ASSERT(waitUntil([&] { return a->getHostPoolStatistics()[primary].total == 0 && b->getHostPoolStatistics()[primary].total == 0; }, Poco::Timespan(5, 0)));
		for (auto& source: {a, b})
		{
			const PoolStatistics stats = source->getHostPoolStatistics()[primary];
			CPPUNIT_ASSERT(stats.lastKnownRole == ServerRole::PrimaryReadOnly);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), stats.closed);
		}
		CPPUNIT_ASSERT(connector.hostState(primary).role == ServerRole::PrimaryReadOnly);
		// Nothing accepts read-write now (node 1 read-only, the others standbys).
		CPPUNIT_ASSERT_THROW(a->open(TargetSessionAttributes::ReadWrite), BlueTuskNoAcceptableHostException);
	}

	void testRestartedNodeMarkedUp()
	{
		struct Start
		{
			~Start() { cluster().runClusterCommand("start-node 3"); }
		} start;
		RoutingContext connector;
		const std::string thirdFirst = cluster().hosts.at(2) + "," + cluster().hosts.at(1);
		auto app = BlueTuskDataSource::create(cluster().connectionString(thirdFirst, "Timeout=5;Host Recheck Seconds=1;Health Check Interval=0.3"), connector);
		const BlueTuskHostEndpoint third(cluster().hosts.at(2), static_cast<Poco::UInt16>(cluster().port));
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 3"));
		BlueTuskConnection first = app->open();   // node 3 refuses: marked down, node 2 serves
		CPPUNIT_ASSERT_EQUAL(cluster().hosts.at(1), first.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), first.attemptLog().size());
		CPPUNIT_ASSERT(connector.hostState(third).state == HostCandidate::DOWN);
		Poco::Thread::sleep(1500);   // past Host Recheck Seconds: still DOWN, the monitor watches it
		CPPUNIT_ASSERT(BlueTusk::Detail::hostStatesOf(connector).candidate(third, 0, Poco::Timespan(1, 0)).state == HostCandidate::DOWN);
		BlueTuskConnection second = app->open();  // a new session: node 3 is not tried first
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), second.attemptLog().size());
		CPPUNIT_ASSERT_EQUAL(cluster().hosts.at(1), second.connectedEndpoint().host());

		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("start-node 3"));
		CPPUNIT_ASSERT(waitUntil([&] { return connector.hostState(third).state == HostCandidate::UP; }, Poco::Timespan(5, 0)));
		CPPUNIT_ASSERT(connector.hostState(third).role == ServerRole::Standby);
		const PoolStatistics stats = app->getHostPoolStatistics()[third];
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);   // the probe's session, kept
		CPPUNIT_ASSERT(stats.lastKnownRole == ServerRole::Standby);
	}

	void testPromotionSeenWithoutCheckout()
	{
		struct Reset
		{
			~Reset() { cluster().runClusterCommand("reset"); }
		} reset;
		RoutingContext connector;
		auto app = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(1), "Timeout=5;Health Check Interval=0.3"), connector);
		parkIdle(*app, TargetSessionAttributes::Standby, 3);
		const BlueTuskHostEndpoint second(cluster().hosts.at(1), static_cast<Poco::UInt16>(cluster().port));
		CPPUNIT_ASSERT(app->getHostPoolStatistics()[second].lastKnownRole == ServerRole::Standby);

		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("promote 2"));
		CPPUNIT_ASSERT(waitUntil([&] { return app->getHostPoolStatistics()[second].lastKnownRole == ServerRole::Primary; }, Poco::Timespan(5, 0)));
		CPPUNIT_ASSERT(connector.hostState(second).role == ServerRole::Primary);
		// A promotion keeps the idle sessions (they are on a primary now, good for every target).
		CPPUNIT_ASSERT_EQUAL(3, app->getHostPoolStatistics()[second].idle);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), app->getHostPoolStatistics()[second].created);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(HealthMonitorIntegrationTest);
