//
// LibpqLoadBalanceSuiteTest.cpp
//
// libpq's own load-balancing suite, run against BlueTusk and the local cluster: the cases of PostgreSQL's
// src/interfaces/libpq/t/003_load_balance_host_list.pl (PostgreSQL 16+). An unknown load_balance_hosts
// value is refused; disable always takes the first host; 50 opens with random reach every host; with the
// first two hosts down, disable and random both go on to the working one. libpq's suite stops two nodes;
// here their ports are ones nothing listens on (refused at once), so the shared cluster is left alone.
//

#include "TestEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <map>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string libpqString(const std::string& ports, const std::string& extra)
{
	const ClusterInfo& c = cluster();
	return "host=" + c.hosts.at(0) + "," + c.hosts.at(1) + "," + c.hosts.at(2) + " port=" + ports + " user=" + c.user +
		" password=" + c.password + " dbname=" + c.database + " connect_timeout=5 " + extra;
}


std::string allPorts()
{
	const std::string port = std::to_string(cluster().port);
	return port + "," + port + "," + port;
}

} // namespace


class LibpqLoadBalanceSuiteTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqLoadBalanceSuiteTest);
	CPPUNIT_TEST(testUnknownValueIsRefused);
	CPPUNIT_TEST(testDisableTakesTheFirstHost);
	CPPUNIT_TEST(testRandomReachesEveryHost);
	CPPUNIT_TEST(testBothGoOnToAWorkingHost);
	CPPUNIT_TEST_SUITE_END();

public:
	void testUnknownValueIsRefused()
	{
		try
		{
			BlueTuskConnection::open(libpqString(allPorts(), "load_balance_hosts=doesnotexist"));
			CPPUNIT_FAIL("load_balance_hosts=doesnotexist was accepted");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			const std::string message = exc.message();
			CPPUNIT_ASSERT_MESSAGE(message, message.find("load_balance_hosts") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(message, message.find("\"doesnotexist\"") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(message, message.find(cluster().password) == std::string::npos);
		}
	}

	void testDisableTakesTheFirstHost()
	{
		for (int i = 0; i < 5; ++i)
		{
			BlueTuskConnection connection = BlueTuskConnection::open(libpqString(allPorts(), "load_balance_hosts=disable"));
			CPPUNIT_ASSERT_EQUAL(cluster().hosts.at(0), connection.connectedEndpoint().host());
		}
	}

	void testRandomReachesEveryHost()
	{
		// libpq's argument: the chance that 50 random opens miss one of three hosts is (2/3)^50, 1.6e-9
		std::map<std::string, int> opens;
		for (int i = 0; i < 50; ++i)
		{
			BlueTuskConnection connection = BlueTuskConnection::open(libpqString(allPorts(), "load_balance_hosts=random"));
			++opens[connection.connectedEndpoint().host()];
		}
		int total = 0;
		for (const std::string& host: cluster().hosts)
		{
			CPPUNIT_ASSERT_MESSAGE("no random open reached " + host, opens[host] >= 1);
			total += opens[host];
		}
		CPPUNIT_ASSERT_EQUAL(50, total);
	}

	void testBothGoOnToAWorkingHost()
	{
		const std::string port = std::to_string(cluster().port);
		const std::string ports = "1,1," + port;   // nothing listens on port 1: refused at once, like a stopped node
		BlueTuskConnection first = BlueTuskConnection::open(libpqString(ports, "load_balance_hosts=disable"));
		CPPUNIT_ASSERT_EQUAL(cluster().hosts.at(2), first.connectedEndpoint().host());
		for (int i = 0; i < 5; ++i)
		{
			BlueTuskConnection connection = BlueTuskConnection::open(libpqString(ports, "load_balance_hosts=random"));
			CPPUNIT_ASSERT_EQUAL(cluster().hosts.at(2), connection.connectedEndpoint().host());
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LibpqLoadBalanceSuiteTest);
