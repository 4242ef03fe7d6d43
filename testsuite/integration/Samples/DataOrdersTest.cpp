//
// DataOrdersTest.cpp
//
// bluetusk-data-orders (samples/DataOrders) against the local cluster: with the standbys written first it
// still writes on the primary, reports on a standby, and places every order.
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class DataOrdersTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DataOrdersTest);
	CPPUNIT_TEST(testPlacesOrdersOnThePrimaryAndReportsOnAStandby);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPlacesOrdersOnThePrimaryAndReportsOnAStandby()
	{
		// The sample creates its table on the primary and reports on a standby a few milliseconds later;
		// a standby that has not replayed the CREATE yet fails that report (replication is asynchronous).
		// Create the table first and wait until both standbys have it, so every report can count.
		{
			BlueTuskConnection primary = BlueTuskConnection::open(cluster().connectionString("127.0.0.1", "SSL Mode=disable"));
			primary.executeSimple("DROP TABLE IF EXISTS sample_orders_test; CREATE TABLE sample_orders_test "
				"(id int PRIMARY KEY, customer text, total numeric, placed timestamptz DEFAULT now())");
			for (const char* standby: {"127.0.0.2", "127.0.0.3"})
			{
				BlueTuskConnection replica = BlueTuskConnection::open(cluster().connectionString(standby, "SSL Mode=disable"));
				Poco::Clock waited;
				while (*replica.executeSimple("SELECT to_regclass('sample_orders_test') IS NOT NULL")[0].rows[0][0] != "t")
				{
					CPPUNIT_ASSERT_MESSAGE(std::string(standby) + " did not replay the CREATE TABLE in 10 s", waited.elapsed() < 10000000);
					std::this_thread::sleep_for(std::chrono::milliseconds(10));
				}
			}
		}
		const std::string connection = cluster().connectionString("127.0.0.2,127.0.0.3,127.0.0.1", "SSL Mode=disable;Timeout=10;Failover Timeout=10");
		ProgramResult result = runProgram(builtFile("bin/bluetusk-data-orders"), {"--set=orders.connection=" + connection,
			"--set=orders.count=6", "--set=orders.intervalMs=1", "--set=orders.reportEvery=3", "--set=orders.table=sample_orders_test"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(result.describe(), 0, result.status);
		const std::vector<std::string> lines = result.lines();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(result.describe(), std::string("writes on " + endpointOf(1) + " (primary)"), lines.at(0));
		int placed = 0, reports = 0;
		for (const std::string& line: lines)
		{
			if (line.find(" placed on " + endpointOf(1) + " (primary)") != std::string::npos) ++placed;
			if (line.find("report on ") == 0)
			{
				++reports;
				CPPUNIT_ASSERT_MESSAGE(line, line.find("(standby)") != std::string::npos);
			}
		}
		CPPUNIT_ASSERT_EQUAL(6, placed);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(result.describe(), 3, reports);
		CPPUNIT_ASSERT_EQUAL(std::string("placed 6 orders, 0 retried after a failover"), lines.back());
		CPPUNIT_ASSERT(result.err.find(cluster().password) == std::string::npos);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(DataOrdersTest);
