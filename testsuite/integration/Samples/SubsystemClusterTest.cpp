//
// SubsystemClusterTest.cpp
//
// BlueTusk::DataSourceSubsystem against the local cluster: data sources from a .properties text with
// overrides, warm-up reached on every node, targets landing on the right node, draining on close, warm-up
// failures that are logged rather than fatal, and the subsystem inside a real Poco::Util::Application.
//

#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "BlueTusk/BlueTuskException.h"
#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/AutoPtr.h"
#include "Poco/Util/Application.h"
#include "Poco/Util/MapConfiguration.h"
#include "Poco/Util/PropertyFileConfiguration.h"
#include <cppunit/extensions/HelperMacros.h>
#include <sstream>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string firstValue(BlueTuskConnection& connection, const std::string& sql)
{
	return connection.executeSimple(sql).front().rows.at(0).at(0).value();
}


std::string propertiesText()
	/// What an application's .properties file would say.
{
	std::ostringstream text;
	text << "bluetusk.dataSources.reader.connectionString = " << clusterHosts("127.0.0.1,127.0.0.2,127.0.0.3") << "\n"
		<< "bluetusk.dataSources.reader.targetSessionAttributes = standby\n"
		<< "bluetusk.dataSources.reader.minimumPoolSize = 1\n"
		<< "bluetusk.dataSources.reader.maximumPoolSize = 3\n"
		<< "bluetusk.dataSources.reader.applicationName = subsystem-reader\n"
		<< "bluetusk.dataSources.writer.connectionString = " << clusterHosts("127.0.0.2,127.0.0.3,127.0.0.1") << "\n"
		<< "bluetusk.dataSources.writer.target_session_attrs = read-write\n"
		<< "bluetusk.dataSources.writer.hostOrder = parallel\n";
	return text.str();
}


class SubsystemApplication: public Poco::Util::Application
	/// The way an application registers the subsystem; main() records what it saw.
{
public:
	explicit SubsystemApplication(const RoutingContext& connector)
	{
		addSubsystem(new DataSourceSubsystem(connector));
	}

	std::vector<std::string> names;
	std::string primaryAddress;
	int idleAtStart = -1;

protected:
	int main(const ArgVec&) override
	{
		DataSourceSubsystem& subsystem = getSubsystem<DataSourceSubsystem>();
		names = subsystem.names();
		idleAtStart = subsystem.dataSource("main")->getPoolStatistics().idle;
		BlueTuskConnection connection = subsystem.dataSource("main")->open(TargetSessionAttributes::Primary);
		primaryAddress = firstValue(connection, "SELECT host(inet_server_addr())");
		return EXIT_OK;
	}
};

} // namespace


class SubsystemClusterTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SubsystemClusterTest);
	CPPUNIT_TEST(testDataSourcesFromProperties);
	CPPUNIT_TEST(testWarmUpFailureIsNotFatal);
	CPPUNIT_TEST(testInsidePocoApplication);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDataSourcesFromProperties()
	{
		std::istringstream text(propertiesText());
		Poco::AutoPtr<Poco::Util::PropertyFileConfiguration> config = new Poco::Util::PropertyFileConfiguration(text);
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*config);
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), subsystem.names().size());

		// Warm-up reached: one idle session per standby, opened before open() returned. The primary's one
		// session learned its role and was closed: the data source's target (standby) can never use it
		// (doc/pooling.md, "Sessions of a role the data source cannot use").
		BlueTuskDataSource::Ptr reader = subsystem.dataSource("reader");
		for (int node = 1; node <= 3; ++node)
		{
			PoolStatistics stats = reader->getHostPoolStatistics().at(BlueTuskHostEndpoint(cluster().hosts[node - 1], static_cast<Poco::UInt16>(cluster().port)));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(endpointOf(node), node == 1 ? 0 : 1, stats.idle);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(endpointOf(node), node == 1 ? 0 : 1, stats.total);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(endpointOf(node), Poco::UInt64(1), stats.created);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(endpointOf(node), 3, stats.maxSize);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(endpointOf(node), Poco::UInt64(0), stats.connectFailures);
		}
		{
			// The default target of "reader" is the override (standby): the first standby, its warmed session.
			BlueTuskConnection connection = reader->open();
			CPPUNIT_ASSERT_EQUAL(endpointOf(2), connection.connectedEndpoint().toString());
			CPPUNIT_ASSERT_EQUAL(std::string("t"), firstValue(connection, "SELECT pg_is_in_recovery()"));
			CPPUNIT_ASSERT_EQUAL(std::string("subsystem-reader"), firstValue(connection, "SHOW application_name"));
			// The warmed-up sessions served it: nothing new was opened.
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), reader->getPoolStatistics().created);
		}
		{
			// "writer" lists the primary last and races: read-write still lands on node1.
			BlueTuskConnection connection = subsystem.dataSource("writer")->open();
			CPPUNIT_ASSERT_EQUAL(endpointOf(1), connection.connectedEndpoint().toString());
			CPPUNIT_ASSERT_EQUAL(std::string("f"), firstValue(connection, "SELECT pg_is_in_recovery()"));
		}
		subsystem.close();
		CPPUNIT_ASSERT_EQUAL(0, reader->getPoolStatistics().total);
		CPPUNIT_ASSERT(reader->getPoolStatistics().draining);
	}

	void testWarmUpFailureIsNotFatal()
	{
		// 127.0.0.9 runs no server: its warm-up fails (logged), the other endpoint warms up, initialize succeeds.
		Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;
		config->setString("bluetusk.dataSources.main.connectionString", clusterHosts("127.0.0.9,127.0.0.1", "Minimum Pool Size=1"));
		RoutingContext connector;
		DataSourceSubsystem subsystem(connector);
		subsystem.open(*config);
		BlueTuskDataSource::Ptr dataSource = subsystem.dataSource("main");
		PoolStatistics dead = dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("127.0.0.9", static_cast<Poco::UInt16>(cluster().port)));
		CPPUNIT_ASSERT_EQUAL(0, dead.total);
		CPPUNIT_ASSERT(dead.connectFailures >= 1);
		PoolStatistics live = dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("127.0.0.1", static_cast<Poco::UInt16>(cluster().port)));
		CPPUNIT_ASSERT_EQUAL(1, live.idle);
		BlueTuskConnection connection = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), connection.connectedEndpoint().toString());
	}

	void testInsidePocoApplication()
	{
		RoutingContext connector;
		Poco::AutoPtr<SubsystemApplication> app = new SubsystemApplication(connector);
		app->config().setString("bluetusk.dataSources.main.connectionString", clusterHosts("127.0.0.2,127.0.0.1"));
		app->config().setString("bluetusk.dataSources.main.minimumPoolSize", "2");
		app->config().setString("logging.loggers.root.level", "warning");
		std::vector<std::string> args = {"subsystem-test"};
		app->init(args);
		CPPUNIT_ASSERT_EQUAL(static_cast<int>(Poco::Util::Application::EXIT_OK), app->run());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), app->names.size());
		CPPUNIT_ASSERT_EQUAL(std::string("main"), app->names[0]);
		CPPUNIT_ASSERT_EQUAL(4, app->idleAtStart);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), app->primaryAddress);
		// run() ended with uninitialize(): the subsystem drained and forgot its data sources.
		CPPUNIT_ASSERT(!app->getSubsystem<DataSourceSubsystem>().isOpen());
		CPPUNIT_ASSERT(app->getSubsystem<DataSourceSubsystem>().names().empty());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SubsystemClusterTest);
