//
// QuickStartTest.cpp
//
// The README's quick start (compiled from README.md into bluetusk-quickstart) run against the local
// cluster with all three nodes in the host list: it lands on the primary, writes and reads the order, and
// reports the duplicate by its SQLSTATE; run twice, the second run finds the order already there.
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/DateTime.h"
#include "Poco/DateTimeFormatter.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk::Test;

class QuickStartTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(QuickStartTest);
	CPPUNIT_TEST(testReadmeQuickStartRuns);
	CPPUNIT_TEST_SUITE_END();

public:
	void testReadmeQuickStartRuns()
	{
		const std::string program = builtFile("bin/bluetusk-quickstart");
		// the standbys first: the read-write lease must still land on the primary
		const std::string connection = cluster().connectionString("127.0.0.2,127.0.0.3,127.0.0.1", "Timeout=10");
		runProgram(program, {connection});
		ProgramResult result = runProgram(program, {connection});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(result.describe(), 0, result.status);
		const std::vector<std::string> lines = result.lines();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(result.describe(), std::size_t(2), lines.size());
		CPPUNIT_ASSERT_EQUAL(std::string("order 1: 19.90 on "), lines[0].substr(0, 18));
		CPPUNIT_ASSERT_EQUAL(std::size_t(28), lines[0].size());   // a date yyyy-mm-dd at the end
		CPPUNIT_ASSERT_EQUAL(std::string("order 1 exists already (orders_pkey)"), lines[1]);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(QuickStartTest);
