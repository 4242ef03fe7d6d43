//
// TopLevelCauseFaultTest.cpp
//
// the message an application catches names the cause, not only the outcome's name.
// Before: "no acceptable host for target any (Host Order=sequential): no-such-host.invalid:5432: error",
// the cause only in a nested exception. And item 9: the message of a long host list is bounded (16
// endpoints named, then "... and N more endpoints").
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "RefusedPort.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;

namespace {

std::string openError(const std::string& connectionString)
{
	try
	{
		BlueTuskConnection::open(connectionString);
	}
	catch (BlueTuskNoAcceptableHostException& exc)
	{
		return exc.what();
	}
	return "(no BlueTuskNoAcceptableHostException)";
}

} // namespace


class TopLevelCauseFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TopLevelCauseFaultTest);
	CPPUNIT_TEST(testUnknownHostName);
	CPPUNIT_TEST(testLongHostListIsBounded);
	CPPUNIT_TEST_SUITE_END();

public:
	void testUnknownHostName()
	{
		const std::string message = openError("Host=no-such-host.invalid;Username=u;Password=cause-secret-1;Timeout=2;SSL Mode=disable");
		CPPUNIT_ASSERT_MESSAGE(message, message.find("no-such-host.invalid:5432: could not translate host name \"no-such-host.invalid\" to address: ") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("cause-secret-1") == std::string::npos);
	}

	void testLongHostListIsBounded()
	{
		const Test::RefusedPort refused;
		const Poco::UInt16 port = refused.port();
		std::string hosts;
		for (int i = 0; i < 300; ++i) hosts += std::string(hosts.empty() ? "" : ",") + "127.0.0.1";
		const std::string message = openError("Host=" + hosts + ";Port=" + std::to_string(port) + ";Username=u;Timeout=2;SSL Mode=disable");
		CPPUNIT_ASSERT_MESSAGE(message, message.find("... and 284 more endpoints (attempts() has every one)") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(message.size()), message.size() < 4096);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(TopLevelCauseFaultTest);
