//
// SitePoliciesTest.cpp
//
// The three site plugins of samples/SitePolicies against the local cluster, loaded the way a user loads
// them (Plugin Path in the connection string, bluetusk.plugins in the subsystem's configuration), never
// compiled in:
//   - "zone-standby" (target session): a policy.* zone map chooses the standby of the application's zone,
//     through the subsystem (pooled), a connection string (direct) and BlueTuskDataSource::open("name");
//   - "fastest" (host order): the endpoint whose sessions opened fastest (measured by the router) first;
//     one endpoint is made slow with a delaying TCP proxy;
//   - "lease-cap" (eviction): a session is closed after policy.maxLeases leases (backend PIDs tell).
//

#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "SampleProgram.h"
#include "TcpProxy.h"
#include "TestEnvironment.h"
#include "Poco/AutoPtr.h"
#include "Poco/Util/MapConfiguration.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string ALL = "127.0.0.1,127.0.0.2,127.0.0.3";


std::string pluginFile(const std::string& name)
{
	return builtFile("samples/plugins/lib" + name + ".so");
}


std::string pluginDirectory()
{
	pluginFile("BlueTuskZoneStandbyPlugin");   // fails naming the target to build when missing
	return std::string(BLUETUSK_BINARY_DIR) + "/samples/plugins";
}


std::string backendPid(BlueTuskConnection& lease)
{
	return lease.executeSimple("SELECT pg_backend_pid()").front().rows.at(0).at(0).value();
}


std::string plainConnectionString(const std::vector<std::pair<std::string, int>>& endpoints, const std::string& extra)
	/// Hosts and ports as given, no TLS (the proxy's address is not in the cluster's certificate).
{
	std::string hosts, ports;
	for (const auto& endpoint: endpoints)
	{
		hosts += (hosts.empty() ? "" : ",") + endpoint.first;
		ports += (ports.empty() ? "" : ",") + std::to_string(endpoint.second);
	}
	return "Host=" + hosts + ";Port=" + ports + ";Username=" + cluster().user + ";Password=" + cluster().password +
		";Database=" + cluster().database + ";SSL Mode=disable;" + extra;
}


Poco::AutoPtr<Poco::Util::MapConfiguration> zoneConfiguration()
{
	Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;
	config->setString("bluetusk.plugins", pluginFile("BlueTuskZoneStandbyPlugin"));
	const std::string zones = "127.0.0.1=a, 127.0.0.2=b, " + endpointOf(3) + "=c";   // by host, and by host:port
	for (const std::string zone: {"b", "c", "d"})
	{
		const std::string prefix = "bluetusk.dataSources.zone-" + zone;
		config->setString(prefix + ".connectionString", clusterHosts(ALL));
		config->setString(prefix + ".targetSessionAttributes", "zone-standby");
		config->setString(prefix + ".policy.zone", zone);
		config->setString(prefix + ".policy.zones", zones);
	}
	config->setString("bluetusk.dataSources.zone-d.policy.primaryFallback", "false");
	return config;
}

} // namespace


class SitePoliciesTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SitePoliciesTest);
	CPPUNIT_TEST(testZoneStandbyChoosesTheStandbyOfMyZone);
	CPPUNIT_TEST(testZoneStandbyFromConnectionStrings);
	CPPUNIT_TEST(testZoneStandbyRefusesBadConfiguration);
	CPPUNIT_TEST(testZoneStandbyFromTheConnectTool);
	CPPUNIT_TEST(testFastestPrefersTheFastestMeasuredHost);
	CPPUNIT_TEST(testFastestFollowsTheMeasurements);
	CPPUNIT_TEST(testLeaseCapClosesAfterMaxLeases);
	CPPUNIT_TEST(testFastestFromDataSourceAndConfiguration);
	CPPUNIT_TEST(testFastestFromTheConnectTool);
	CPPUNIT_TEST(testLeaseCapFromConnectionStrings);
	CPPUNIT_TEST(testLeaseCapFromTheConnectTool);
	CPPUNIT_TEST_SUITE_END();

public:
	void testZoneStandbyChoosesTheStandbyOfMyZone()
	{
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*zoneConfiguration());
		CPPUNIT_ASSERT_EQUAL(std::string("zone-standby"), subsystem.dataSource("zone-c")->settings().targetSessionPolicy);
		for (int i = 0; i < 3; ++i)
		{
			// Held together: each needs its own session, and each is routed by the zone (not a pool's luck).
			BlueTuskConnection c1 = subsystem.dataSource("zone-c")->open();
			BlueTuskConnection c2 = subsystem.dataSource("zone-c")->open();
			BlueTuskConnection b = subsystem.dataSource("zone-b")->open();
			CPPUNIT_ASSERT_EQUAL(endpointOf(3), c1.connectedEndpoint().toString());   // zone c written last
			CPPUNIT_ASSERT_EQUAL(endpointOf(3), c2.connectedEndpoint().toString());
			CPPUNIT_ASSERT(c1.role() == ServerRole::Standby);
			CPPUNIT_ASSERT_EQUAL(endpointOf(2), b.connectedEndpoint().toString());    // zone b, by host only
		}
		// No standby in zone d: another zone's standby (Fallback), never the primary (primaryFallback=false).
		BlueTuskConnection d = subsystem.dataSource("zone-d")->open();
		CPPUNIT_ASSERT(d.role() == ServerRole::Standby);
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), d.connectedEndpoint().toString());
		// The name works per checkout too, and a standard name still does.
		CPPUNIT_ASSERT_EQUAL(endpointOf(3), subsystem.dataSource("zone-c")->open("zone-standby").connectedEndpoint().toString());
		CPPUNIT_ASSERT(subsystem.dataSource("zone-c")->open("primary").role() == ServerRole::Primary);
		subsystem.close();
	}

	void testZoneStandbyFromConnectionStrings()
	{
		// Direct (unpooled) and pooled, the plugin found through Plugin Path; no zone map: prefer-standby.
		for (const std::string keyword: {"Target Session Attributes=Zone-Standby", "target_session_attrs=zone-standby"})
		{
			RoutingContext connector;
			const std::string cs = clusterHosts(ALL, keyword + ";Plugin Path=" + pluginDirectory());
			BlueTuskConnection direct = BlueTuskConnection::open(cs, connector);
			CPPUNIT_ASSERT_MESSAGE(keyword, direct.role() == ServerRole::Standby);
			CPPUNIT_ASSERT_EQUAL(endpointOf(2), direct.connectedEndpoint().toString());
			BlueTuskDataSource::Ptr pooled = BlueTuskDataSource::create(cs, connector);
			BlueTuskConnection lease = pooled->open();
			CPPUNIT_ASSERT_EQUAL(endpointOf(2), lease.connectedEndpoint().toString());
			CPPUNIT_ASSERT(lease.role() == ServerRole::Standby);
		}
		// A name no loaded plugin provides fails at creation, listing what is loaded.
		RoutingContext connector;
		try
		{
			BlueTuskConnection::open(clusterHosts(ALL, "Target Session Attributes=zone-standbyy;Plugin Path=" + pluginDirectory()), connector);
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			const std::string message = exc.message();
			CPPUNIT_ASSERT_MESSAGE(message, message.find("no target session policy named \"zone-standbyy\"") != std::string::npos);
			const std::string::size_type available = message.find("available: ");
			CPPUNIT_ASSERT_MESSAGE(message, available != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(message, message.find("zone-standby", available) != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(message, message.find("prefer-standby", available) != std::string::npos);
		}
	}

	void testZoneStandbyRefusesBadConfiguration()
	{
		Poco::AutoPtr<Poco::Util::MapConfiguration> config = zoneConfiguration();
		config->setString("bluetusk.dataSources.zone-b.policy.zones", "127.0.0.1");
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		try
		{
			subsystem.open(*config);
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("bluetusk.dataSources.zone-b.policy.*: target session policy \"zone-standby\" rejected its configuration") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("\"127.0.0.1\" is not host=zone") != std::string::npos);
		}
	}

	void testZoneStandbyFromTheConnectTool()
	{
		// --target with a site name: direct and --pool, the plugin loaded with --plugin.
		for (const bool pool: {false, true})
		{
			std::vector<std::string> args{"--json", "--plugin", pluginFile("BlueTuskZoneStandbyPlugin"), "--target", "zone-standby"};
			if (pool) args.push_back("--pool");
			args.push_back(clusterHosts(ALL));
			ProgramResult r = runProgram(connectProgram(), args);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
			Poco::JSON::Object::Ptr event = r.json(0);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), endpointOf(2), event->getValue<std::string>("endpoint"));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::string("standby"), event->getValue<std::string>("role"));
		}
		// Without the plugin the name is a usage error naming the standard targets and what is loaded.
		ProgramResult r = runProgram(connectProgram(), {"--target", "zone-standby", clusterHosts(ALL)});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 1, r.status);
		CPPUNIT_ASSERT_MESSAGE(r.describe(), r.err.find("nor is it a loaded target session policy (any, ") != std::string::npos);
		// A loaded name whose policy fails (its name() throws) is the open's plugin failure: exit status 2, the
		// BlueTuskPluginException naming it (before: a usage error listing that very name as loaded).
		ProgramResult broken = runProgram(connectProgram(), {"--plugin",
			std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingTargetSession.so", "--target", "name-throwing", clusterHosts(ALL)});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(broken.describe(), 2, broken.status);
		CPPUNIT_ASSERT_MESSAGE(broken.describe(), broken.err.find("target session policy \"name-throwing\" "
			"(libBlueTuskTestMisbehavingTargetSession.so) failed in name(): std::exception: name broke on purpose") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(broken.describe(), broken.err.find("nor is it a loaded") == std::string::npos);
	}

	void testFastestPrefersTheFastestMeasuredHost()
	{
		// Written first: a proxy to the primary that waits 400 ms before connecting on; then the primary.
		TcpProxy slow(Poco::Net::SocketAddress(cluster().hosts.at(0), static_cast<Poco::UInt16>(cluster().port)), "127.0.0.5");
		slow.setMode(TcpProxy::Mode::Delay, 400);   // far above a loaded machine's SCRAM login
		RoutingContext connector;
		const std::string cs = plainConnectionString({{"127.0.0.5", slow.port()}, {cluster().hosts.at(0), cluster().port}},
			"Host Order=fastest;Pooling=false;Plugin Path=" + pluginDirectory());
		const std::string direct = cluster().hosts.at(0) + ":" + std::to_string(cluster().port);
		// Nothing measured: written order (the proxy), then the one not measured yet, then the fastest only.
		CPPUNIT_ASSERT_EQUAL(slow.hostAndPort(), BlueTuskConnection::open(cs, connector).connectedEndpoint().toString());
		CPPUNIT_ASSERT_EQUAL(direct, BlueTuskConnection::open(cs, connector).connectedEndpoint().toString());
		for (int i = 0; i < 5; ++i)
			CPPUNIT_ASSERT_EQUAL(direct, BlueTuskConnection::open(cs, connector).connectedEndpoint().toString());
		CPPUNIT_ASSERT_EQUAL(1, slow.connectionsAccepted());
	}

	void testFastestFollowsTheMeasurements()
	{
		// Two proxies to the primary: a fast at first, b slow (600 ms). Then a turns slower (1500 ms): the
		// smoothed time (RFC 6298, 1/8 per measurement) keeps a first for a few opens (about c + 190 ms after
		// one, c + 350 after two: below b's 600), then b wins (after about four). Once on b, a is no longer
		// measured, so which of the two is first then depends on the noise of b's next openings: not asserted.
		const Poco::Net::SocketAddress primary(cluster().hosts.at(0), static_cast<Poco::UInt16>(cluster().port));
		TcpProxy a(primary, "127.0.0.6");
		TcpProxy b(primary, "127.0.0.7");
		b.setMode(TcpProxy::Mode::Delay, 600);
		RoutingContext connector;
		const std::string cs = plainConnectionString({{"127.0.0.6", a.port()}, {"127.0.0.7", b.port()}},
			"Host Order=fastest;Pooling=false;Plugin Path=" + pluginDirectory());
		auto landed = [&] { return BlueTuskConnection::open(cs, connector).connectedEndpoint().toString(); };
		CPPUNIT_ASSERT_EQUAL(a.hostAndPort(), landed());   // a measured
		CPPUNIT_ASSERT_EQUAL(b.hostAndPort(), landed());   // b measured
		CPPUNIT_ASSERT_EQUAL(a.hostAndPort(), landed());   // a is faster
		a.setMode(TcpProxy::Mode::Delay, 1500);
		CPPUNIT_ASSERT_EQUAL(a.hostAndPort(), landed());   // one slow opening does not outweigh a's history
		int opens = 1;   // slow openings through a so far
		while (opens < 10 && landed() == a.hostAndPort()) ++opens;   // ends on the first open that went to b
		CPPUNIT_ASSERT_MESSAGE("still on a after " + std::to_string(opens) + " slow opens", opens < 10);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(opens), opens >= 2);
		CPPUNIT_ASSERT_EQUAL(opens, a.connectionsAccepted() - 2);   // a: 2 fast openings, then the slow ones
		CPPUNIT_ASSERT_EQUAL(2, b.connectionsAccepted());          // b: measured once, then chosen
	}

	void testLeaseCapClosesAfterMaxLeases()
	{
		Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;
		config->setString("bluetusk.plugins", pluginFile("BlueTuskLeaseCapEvictionPlugin"));
		config->setString("bluetusk.dataSources.capped.connectionString", clusterHosts("127.0.0.1", "Maximum Pool Size=1"));
		config->setString("bluetusk.dataSources.capped.evictionPolicy", "lease-cap");
		config->setString("bluetusk.dataSources.capped.policy.maxLeases", "3");
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*config);
		std::vector<std::string> pids;
		for (int i = 0; i < 7; ++i)
		{
			BlueTuskConnection lease = subsystem.dataSource("capped")->open();
			pids.push_back(backendPid(lease));
		}
		// Leases 1-3 on one backend, 4-6 on a second, 7 on a third.
		CPPUNIT_ASSERT_EQUAL(pids[0], pids[1]);
		CPPUNIT_ASSERT_EQUAL(pids[0], pids[2]);
		CPPUNIT_ASSERT(pids[3] != pids[0]);
		CPPUNIT_ASSERT_EQUAL(pids[3], pids[4]);
		CPPUNIT_ASSERT_EQUAL(pids[3], pids[5]);
		CPPUNIT_ASSERT(pids[6] != pids[3] && pids[6] != pids[0]);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), subsystem.dataSource("capped")->getPoolStatistics().evicted);
		subsystem.close();
	}

	void testFastestFromDataSourceAndConfiguration()
	{
		// Held leases of a data source (target any): every checkout plans anew and the endpoints not
		// measured yet go first, so three held leases land on the three endpoints in written order (the
		// standard sequential order would put all three on the first). Through a connection string and
		// through the subsystem's configuration (with a policy.* property).
		auto threeHeld = [](BlueTuskDataSource& dataSource)
		{
			std::vector<BlueTuskConnection> held;
			std::vector<std::string> landed;
			for (int i = 0; i < 3; ++i)
			{
				held.push_back(dataSource.open());
				landed.push_back(held.back().connectedEndpoint().toString());
			}
			return landed;
		};
		const std::vector<std::string> written{endpointOf(1), endpointOf(2), endpointOf(3)};
		{
			RoutingContext connector;
			BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(clusterHosts(ALL, "Host Order=fastest;Plugin Path=" + pluginDirectory()), connector);
			CPPUNIT_ASSERT(written == threeHeld(*dataSource));
		}
		Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;
		config->setString("bluetusk.plugins", pluginFile("BlueTuskFastestHostOrderPlugin"));
		config->setString("bluetusk.dataSources.fast.connectionString", clusterHosts(ALL));
		config->setString("bluetusk.dataSources.fast.hostOrder", "fastest");
		config->setString("bluetusk.dataSources.fast.policy.fastestMarginMs", "5");
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*config);
		CPPUNIT_ASSERT_EQUAL(std::string("fastest"), subsystem.dataSource("fast")->settings().hostOrder);
		CPPUNIT_ASSERT(written == threeHeld(*subsystem.dataSource("fast")));
		subsystem.close();
	}

	void testFastestFromTheConnectTool()
	{
		// Four direct opens in one process: the three endpoints in written order (each measured once),
		// then one of them; --pool reuses its idle session.
		const std::string library = pluginFile("BlueTuskFastestHostOrderPlugin");
		ProgramResult direct = runProgram(connectProgram(), {"--json", "--plugin", library, "--count", "4", clusterHosts(ALL, "Host Order=fastest")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(direct.describe(), 0, direct.status);
		for (int i = 0; i < 3; ++i)
			CPPUNIT_ASSERT_EQUAL_MESSAGE(direct.describe(), endpointOf(i + 1), direct.json(static_cast<std::size_t>(i))->getValue<std::string>("endpoint"));
		ProgramResult pooled = runProgram(connectProgram(), {"--json", "--pool", "--plugin", library, "--count", "3", clusterHosts(ALL, "Host Order=fastest")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(pooled.describe(), 0, pooled.status);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(pooled.describe(), endpointOf(1), pooled.json(0)->getValue<std::string>("endpoint"));
		// Without the plugin the name fails, listing the host orders loaded.
		ProgramResult missing = runProgram(connectProgram(), {clusterHosts(ALL, "Host Order=fastest")});
		CPPUNIT_ASSERT_MESSAGE(missing.describe(), missing.status != 0);
		CPPUNIT_ASSERT_MESSAGE(missing.describe(), missing.err.find("no host order policy named \"fastest\"") != std::string::npos);
	}

	void testLeaseCapFromConnectionStrings()
	{
		// Pooled, the plugin found through Plugin Path and configured on the routing context's shared instance
		// before the first open (doc/plugins.md, "Configuration"): maxLeases = 2 with one session.
		RoutingContext connector;
		connector.loadPlugin(pluginFile("BlueTuskLeaseCapEvictionPlugin"));
		Poco::AutoPtr<Poco::Util::MapConfiguration> maxTwo = new Poco::Util::MapConfiguration;
		maxTwo->setString("maxLeases", "2");
		connector.evictionPolicy("lease-cap")->configure(*maxTwo);
		const std::string cs = clusterHosts("127.0.0.1", "Eviction Policy=lease-cap;Plugin Path=" + pluginDirectory());
		BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(cs + ";Maximum Pool Size=1", connector);
		std::vector<std::string> pids;
		for (int i = 0; i < 5; ++i)
		{
			BlueTuskConnection lease = dataSource->open();
			pids.push_back(backendPid(lease));
		}
		CPPUNIT_ASSERT_EQUAL(pids[0], pids[1]);
		CPPUNIT_ASSERT(pids[2] != pids[0]);
		CPPUNIT_ASSERT_EQUAL(pids[2], pids[3]);
		CPPUNIT_ASSERT(pids[4] != pids[2] && pids[4] != pids[0]);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), dataSource->getPoolStatistics().evicted);
		// Direct (no pool, nothing to evict): the name is resolved all the same, so a typo fails.
		BlueTuskConnection direct = BlueTuskConnection::open(cs, connector);
		CPPUNIT_ASSERT(!backendPid(direct).empty());
		RoutingContext other;
		try
		{
			BlueTuskConnection::open(clusterHosts("127.0.0.1", "Eviction Policy=lease-capp;Plugin Path=" + pluginDirectory()), other);
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("no eviction policy named \"lease-capp\"; available: lease-cap, standard") != std::string::npos);
		}
	}

	void testLeaseCapFromTheConnectTool()
	{
		// --pool with the plugin loaded by --plugin: the policy keeps the one session (maxLeases 1000 by
		// default), as the pool statistics show; without the plugin the name fails.
		ProgramResult r = runProgram(connectProgram(), {"--json", "--pool", "--stats", "--count", "3", "--plugin",
			pluginFile("BlueTuskLeaseCapEvictionPlugin"), clusterHosts("127.0.0.1", "Maximum Pool Size=1;Eviction Policy=lease-cap")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		bool sawStats = false;
		for (std::size_t i = 0; i < r.lines().size(); ++i)
		{
			Poco::JSON::Object::Ptr event = r.json(i);
			if (event->optValue<std::string>("event", "") != "stats") continue;
			sawStats = true;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 1, event->getObject("aggregate")->getValue<int>("created"));
		}
		CPPUNIT_ASSERT_MESSAGE(r.describe(), sawStats);
		ProgramResult missing = runProgram(connectProgram(), {"--pool", clusterHosts("127.0.0.1", "Eviction Policy=lease-cap")});
		CPPUNIT_ASSERT_MESSAGE(missing.describe(), missing.status != 0);
		CPPUNIT_ASSERT_MESSAGE(missing.describe(), missing.err.find("no eviction policy named \"lease-cap\"") != std::string::npos);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SitePoliciesTest);
