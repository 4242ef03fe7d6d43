//
// DataSourceSubsystemTest.cpp
//
// BlueTusk::DataSourceSubsystem (doc/samples.md (the subsystem)) over fake sessions: data sources from
// bluetusk.dataSources.<name>.*, overrides in every spelling, warm-up, lookup by name, draining on close,
// policy.* properties reaching the data source's own policy, and configuration errors that name the property
// (and never the password).
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "BlueTusk/BlueTuskException.h"
#include "FakeRoutingContext.h"
#include "SubsystemTestSupport.h"
#include "Poco/AutoPtr.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"
#include "Poco/Thread.h"
#include "Poco/Util/MapConfiguration.h"
#include "datasource/RoutingContextAccess.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;


class DataSourceSubsystemTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DataSourceSubsystemTest);
	CPPUNIT_TEST(testCreatesConfiguredDataSources);
	CPPUNIT_TEST(testWarmUpOpensMinimumPerEndpoint);
	CPPUNIT_TEST(testWarmUpCanBeSwitchedOff);
	CPPUNIT_TEST(testOverridesInEverySpelling);
	CPPUNIT_TEST(testOverridesApplyInTheDataSource);
	CPPUNIT_TEST(testCheckoutThroughSubsystem);
	CPPUNIT_TEST(testLookupUnknownNameListsConfigured);
	CPPUNIT_TEST(testCloseDrainsAndForgets);
	CPPUNIT_TEST(testNoDataSources);
	CPPUNIT_TEST(testMissingConnectionStringNamesProperty);
	CPPUNIT_TEST(testInvalidConnectionStringNamesProperty);
	CPPUNIT_TEST(testInvalidOverrideNamesProperty);
	CPPUNIT_TEST(testUnknownKeywordNamesProperty);
	CPPUNIT_TEST(testPoolSizesValidatedTogether);
	CPPUNIT_TEST(testUnknownHostOrderNamesOverride);
	CPPUNIT_TEST(testUnknownHostOrderInConnectionString);
	CPPUNIT_TEST(testPasswordInHostOrderIsRedacted);
	CPPUNIT_TEST(testUnknownEvictionPolicyNamesProperty);
	CPPUNIT_TEST(testMissingPluginNamesProperty);
	CPPUNIT_TEST(testUnloadablePluginNamesProperty);
	CPPUNIT_TEST(testFailureReleasesEarlierDataSources);
	CPPUNIT_TEST(testPolicyPropertiesConfigureOwnInstance);
	CPPUNIT_TEST(testPluginPathErrorNamesItsProperty);
	CPPUNIT_TEST(testConfigureFailureIsPluginException);
	CPPUNIT_TEST(testTargetConfigureFailureIsPluginException);
	CPPUNIT_TEST(testUnusedRetryNameFailureNamesDataSource);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCreatesConfiguredDataSources()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.reports.connectionString", HOSTS + ";Host Order=random");
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		CPPUNIT_ASSERT(subsystem.isOpen());
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTusk.DataSources"), std::string(subsystem.name()));
		std::vector<std::string> names = subsystem.names();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), names.size());
		CPPUNIT_ASSERT_EQUAL(std::string("main"), names[0]);
		CPPUNIT_ASSERT_EQUAL(std::string("reports"), names[1]);
		CPPUNIT_ASSERT(subsystem.has("main"));
		CPPUNIT_ASSERT(!subsystem.has("Main"));
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), subsystem.dataSource("main")->settings().hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), subsystem.dataSource("reports")->settings().hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), subsystem.dataSource("main")->getHostPoolStatistics().size());
		// No minimum: nothing opened yet.
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
	}

	void testWarmUpOpensMinimumPerEndpoint()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.minimumPoolSize", "2");
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		// Warm-up is synchronous: when open() returns, every endpoint holds its minimum, idle.
		for (const auto& entry: subsystem.dataSource("main")->getHostPoolStatistics())
		{
			CPPUNIT_ASSERT_EQUAL_MESSAGE(entry.first.toString(), 2, entry.second.idle);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(entry.first.toString(), 2, entry.second.total);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(entry.first.toString(), 2, entry.second.minSize);
		}
		CPPUNIT_ASSERT_EQUAL(2, f.world->connections("127.0.0.1:5432"));
		CPPUNIT_ASSERT_EQUAL(2, f.world->connections("127.0.0.3:5432"));
		CPPUNIT_ASSERT_EQUAL(6, f.world->totalLive());
	}

	void testWarmUpCanBeSwitchedOff()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Minimum Pool Size=1");
		f.set("bluetusk.dataSources.main.warmUp", "false");
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		CPPUNIT_ASSERT_EQUAL(1, subsystem.dataSource("main")->settings().minPoolSize);
		// initialize did not wait; the data source still reaches its minimum in the background.
		PoolStatistics stats;
		for (int i = 0; i < 200; ++i)
		{
			stats = subsystem.dataSource("main")->getPoolStatistics();
			if (stats.idle == 3) break;
			Poco::Thread::sleep(10);
		}
		CPPUNIT_ASSERT_EQUAL(3, stats.idle);
	}

	void testOverridesInEverySpelling()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Maximum Pool Size=50;Target Session Attributes=primary");
		f.set("bluetusk.dataSources.main.maximumPoolSize", "7");            // camelCase
		f.set("bluetusk.dataSources.main.target_session_attrs", "standby"); // libpq name
		f.set("bluetusk.dataSources.main.HostOrder", "parallel");           // canonical without spaces
		f.set("bluetusk.dataSources.main.connect_timeout", "4");
		f.set("bluetusk.dataSources.main.failoverTimeout", "2.5");
		f.set("bluetusk.dataSources.main.applicationName", "subsystem-test");
		f.set("bluetusk.dataSources.main.port", "6543");
		f.set("bluetusk.dataSources.main.warmUp", "true");                   // not a keyword: ignored here
		f.set("bluetusk.dataSources.main.policy.preferredHosts", "x");       // policy.*: not a keyword either
		ConnectionSettings settings = DataSourceSubsystem::settingsFor(*f.config, "main");
		CPPUNIT_ASSERT_EQUAL(7, settings.maxPoolSize);
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), settings.hostOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(4000), settings.connectTimeout.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2500), settings.failoverTimeout.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(std::string("subsystem-test"), settings.applicationName);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), settings.endpoints.size());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2:6543"), settings.endpoints[1].toString());
		CPPUNIT_ASSERT_EQUAL(SECRET, settings.password);
	}

	void testOverridesApplyInTheDataSource()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.maximumPoolSize", "3");
		f.set("bluetusk.dataSources.main.targetSessionAttributes", "standby");
		f.world->setRole("127.0.0.1:5432", ServerRole::Primary);
		f.world->setRole("127.0.0.2:5432", ServerRole::Standby);
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		BlueTuskDataSource::Ptr dataSource = subsystem.dataSource("main");
		CPPUNIT_ASSERT_EQUAL(3, dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("127.0.0.1", 5432)).maxSize);
		BlueTuskConnection connection = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2:5432"), connection.connectedEndpoint().toString());
		CPPUNIT_ASSERT(connection.role() == ServerRole::Standby);
	}

	void testCheckoutThroughSubsystem()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Minimum Pool Size=1");
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		{
			BlueTuskConnection connection = subsystem.dataSource("main")->open();
			CPPUNIT_ASSERT(connection.isPooled());
			CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:5432"), connection.connectedEndpoint().toString());
			std::vector<QueryResult> results = connection.executeSimple("SELECT 1");
			CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:5432"), *results.at(0).rows.at(0).at(0));
			// The warmed-up idle session was used, not a new one.
			CPPUNIT_ASSERT_EQUAL(1, f.world->connections("127.0.0.1:5432"));
		}
		PoolStatistics stats = subsystem.dataSource("main")->getHostPoolStatistics().at(BlueTuskHostEndpoint("127.0.0.1", 5432));
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
	}

	void testLookupUnknownNameListsConfigured()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.reports.connectionString", HOSTS);
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		try
		{
			subsystem.dataSource("orders");
			CPPUNIT_FAIL("no exception for an unknown data source");
		}
		catch (Poco::NotFoundException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "no data source \"orders\""));
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "configured: main, reports"));
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "bluetusk.dataSources.orders.connectionString"));
		}
	}

	void testCloseDrainsAndForgets()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Minimum Pool Size=1");
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		BlueTuskDataSource::Ptr kept = subsystem.dataSource("main");
		CPPUNIT_ASSERT_EQUAL(3, f.world->totalLive());
		subsystem.close();
		CPPUNIT_ASSERT(!subsystem.isOpen());
		CPPUNIT_ASSERT(subsystem.names().empty());
		CPPUNIT_ASSERT_THROW(subsystem.dataSource("main"), Poco::NotFoundException);
		// Idle sessions closed at once, pools marked draining.
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
		PoolStatistics stats = kept->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
		CPPUNIT_ASSERT(stats.draining);
		subsystem.close(); // twice is harmless
	}

	void testNoDataSources()
	{
		Fixture f;
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		CPPUNIT_ASSERT(subsystem.isOpen());
		CPPUNIT_ASSERT(subsystem.names().empty());
	}

	void testMissingConnectionStringNamesProperty()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.hostOrder", "random");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<Poco::NotFoundException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.connectionString is missing"));
		CPPUNIT_ASSERT(!subsystem.isOpen());
	}

	void testInvalidConnectionStringNamesProperty()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Port=5432,6432");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskConnectionStringException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.connectionString: "));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "3 hosts but 2 ports"));
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, SECRET));
	}

	void testInvalidOverrideNamesProperty()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.targetSessionAttributes", "read/write");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskConnectionStringException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.targetSessionAttributes: "));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "prefer-standby"));
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, SECRET));
		// Another policy name is a site target-session policy's: unknown here, named with the property.
		f.set("bluetusk.dataSources.main.targetSessionAttributes", "fastest");
		message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.targetSessionAttributes: no target session policy named \"fastest\""));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "available: any, prefer-primary, prefer-standby, primary, read-only, read-write, standby"));
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, SECRET));
	}

	void testUnknownKeywordNamesProperty()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.maximumPoolSise", "5");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskConnectionStringException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.maximumPoolSise: unknown keyword"));
	}

	void testPoolSizesValidatedTogether()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.minimumPoolSize", "10");
		f.set("bluetusk.dataSources.main.maximumPoolSize", "5");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskConnectionStringException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.*: "));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "Minimum Pool Size"));
	}

	void testUnknownHostOrderNamesOverride()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.hostOrder", "fastest");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.hostOrder: no host order policy named \"fastest\""));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "available: parallel, random, sequential"));
	}

	void testUnknownHostOrderInConnectionString()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Host Order=fastest");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.connectionString: no host order policy named \"fastest\""));
	}

	void testPasswordInHostOrderIsRedacted()
	{
		// A libpq tail pasted into the Host Order value puts a password in the policy name, which the
		// lookup's message and the data source's messages quote (found by review: they were not
		// redacted). The message still names the property.
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", "Host=127.0.0.1;Username=app;Host Order=\"x password=hostorder-pw-1\"");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, "hostorder-pw-1"));
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.connectionString: no host order policy named \"x password=***"));
		try
		{
			BlueTuskDataSource::create("Host=127.0.0.1;Username=app;Eviction Policy=\"y password=eviction-pw-2\"", f.context);
			CPPUNIT_FAIL("an unknown eviction policy was accepted");
		}
		catch (Poco::Exception& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), !contains(exc.displayText(), "eviction-pw-2"));
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), contains(exc.displayText(), "password=***"));
		}
	}

	void testUnknownEvictionPolicyNamesProperty()
	{
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.evictionPolicy", "lru");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.evictionPolicy: no eviction policy named \"lru\""));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "available: standard"));
	}

	void testMissingPluginNamesProperty()
	{
		Fixture f;
		f.set("bluetusk.plugins", " /nonexistent/libSitePolicies.so ");
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.plugins: cannot load \"/nonexistent/libSitePolicies.so\""));
		CPPUNIT_ASSERT(subsystem.names().empty());
	}

	void testUnloadablePluginNamesProperty()
	{
		Fixture f;
		Poco::TemporaryFile file;
		std::string path = file.path() + ".so";
		{
			Poco::FileOutputStream out(path);
			out << "not a shared library\n";
		}
		Poco::File cleanup(path);
		f.set("bluetusk.plugins", path);
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		cleanup.remove();
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.plugins: cannot load \"" + path + "\""));
	}

	void testFailureReleasesEarlierDataSources()
	{
		Fixture f;
		f.set("bluetusk.dataSources.a.connectionString", HOSTS + ";Minimum Pool Size=1");
		f.set("bluetusk.dataSources.b.connectionString", HOSTS);
		f.set("bluetusk.dataSources.b.hostOrder", "fastest");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.b.hostOrder: "));
		CPPUNIT_ASSERT(!subsystem.isOpen());
		CPPUNIT_ASSERT(subsystem.names().empty());
		// "a" was created and warmed up (3 sessions) before "b" failed; it was drained again.
		CPPUNIT_ASSERT_EQUAL(3, f.world->connections("127.0.0.1:5432") + f.world->connections("127.0.0.2:5432") + f.world->connections("127.0.0.3:5432"));
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
	}

	void testPolicyPropertiesConfigureOwnInstance()
	{
		// Three random data sources without pooling (each open is a new connection, placed by the policy):
		// "a" and "b" seeded alike through policy.seed walk the same order; "c" seeded differently does not.
		Fixture f;
		for (const std::string name: {"a", "b", "c"})
		{
			f.set("bluetusk.dataSources." + name + ".connectionString", HOSTS + ";Pooling=false");
			f.set("bluetusk.dataSources." + name + ".hostOrder", "random");
			f.set("bluetusk.dataSources." + name + ".policy.seed", name == "c" ? "1234" : "42");
		}
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		auto sequence = [&subsystem](const std::string& name)
		{
			std::string text;
			for (int i = 0; i < 12; ++i)
			{
				BlueTuskConnection connection = subsystem.dataSource(name)->open();
				text += connection.connectedEndpoint().host().substr(8) + " ";
			}
			return text;
		};
		const std::string a = sequence("a");
		const std::string b = sequence("b");
		const std::string c = sequence("c");
		CPPUNIT_ASSERT_EQUAL(a, b);
		CPPUNIT_ASSERT_MESSAGE(a + "/" + c, a != c);
		// Each data source with policy properties has a routing context of its own.
		CPPUNIT_ASSERT(&BlueTusk::Detail::hostStatesOf(subsystem.dataSource("a")->routingContext()) != &BlueTusk::Detail::hostStatesOf(subsystem.dataSource("b")->routingContext()));
	}

	void testPluginPathErrorNamesItsProperty()
	{
		// A Plugin Path entry that does not exist, set by the pluginPath property (the host order by another
		// one): the message names bluetusk.dataSources.main.pluginPath (before: the connection string).
		Fixture f;
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.hostOrder", "random");
		f.set("bluetusk.dataSources.main.pluginPath", "/nonexistent/site-plugins");
		DataSourceSubsystem subsystem(f.context);
		std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.pluginPath (Plugin Path): Plugin Path entry "
			"\"/nonexistent/site-plugins\" does not exist"));
		// In the connection string, the connection string is named.
		Fixture g;
		g.set("bluetusk.dataSources.main.connectionString", HOSTS + ";Plugin Path=/nonexistent/site-plugins");
		DataSourceSubsystem other(g.context);
		message = messageOf<BlueTuskPluginException>(other, *g.config);
		CPPUNIT_ASSERT_MESSAGE(message, startsWith(message, "bluetusk.dataSources.main.connectionString (Plugin Path): "));
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, SECRET));
	}

	void testConfigureFailureIsPluginException()
	{
		// A configure() that throws what is not a Poco::Exception (a std::exception, an int) is a failure of
		// the plugin, not a refusal: a BlueTuskPluginException naming the properties, the family, the policy and
		// its library (before, the std::exception or the int escaped open()).
		const std::string library = std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingHostOrder.so";
		const std::vector<std::pair<std::string, std::string>> cases = {
			{"configure-throwing", "std::exception: configure broke on purpose"},
			{"configure-throwing-int", "an exception that is neither a Poco::Exception nor a std::exception"}};
		for (const auto& c: cases)
		{
			Fixture f;
			f.set("bluetusk.plugins", library);
			f.set("bluetusk.dataSources.main.connectionString", HOSTS);
			f.set("bluetusk.dataSources.main.hostOrder", c.first);
			f.set("bluetusk.dataSources.main.policy.zone", "a");
			DataSourceSubsystem subsystem(f.context);
			const std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
			CPPUNIT_ASSERT_EQUAL("bluetusk.dataSources.main.policy.*: host order policy \"" + c.first +
				"\" (libBlueTuskTestMisbehavingHostOrder.so) failed in configure(): " + c.second, message);
			CPPUNIT_ASSERT(subsystem.names().empty());
		}
	}

	void testTargetConfigureFailureIsPluginException()
	{
		// A site target-session policy's configure() throwing a std::exception is a plugin failure, as for
		// the other families, not "rejected its configuration" (before: reported as a refusal).
		Fixture f;
		f.set("bluetusk.plugins", std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingTargetSession.so");
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.targetSessionAttributes", "configure-throwing");
		f.set("bluetusk.dataSources.main.policy.zone", "a");
		DataSourceSubsystem subsystem(f.context);
		const std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_EQUAL(std::string("bluetusk.dataSources.main.policy.*: target session policy \"configure-throwing\" "
			"(libBlueTuskTestMisbehavingTargetSession.so) failed in configure(): std::exception: configure broke on purpose"), message);
		CPPUNIT_ASSERT(subsystem.names().empty());
	}

	void testUnusedRetryNameFailureNamesDataSource()
	{
		// A retry library loaded but used by no data source, whose name() throws: every retry policy gets the
		// policy.* properties, so the failure names the data source's keys (before: no key at all).
		Fixture f;
		f.set("bluetusk.plugins", std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingRetry.so");
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.policy.zone", "a");
		DataSourceSubsystem subsystem(f.context);
		const std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_EQUAL(std::string("bluetusk.dataSources.main.policy.*: retry policy \"name-throwing-retry\" "
			"(libBlueTuskTestMisbehavingRetry.so) failed in name(): std::exception: name broke on purpose"), message);
		CPPUNIT_ASSERT(subsystem.names().empty());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DataSourceSubsystemTest);
