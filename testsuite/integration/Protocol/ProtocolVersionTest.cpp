//
// ProtocolVersionTest.cpp
//
// Protocol 3.2 against the local PostgreSQL 15 cluster: max_protocol_version=3.2 still connects (the server
// answers NegotiateProtocolVersion 3.0) and cancels with its 4-byte key; min_protocol_version=3.2 fails
// clearly, naming the server and the keyword.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "TestEnvironment.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

ConnectionSettings settingsFor(int node, const std::string& extra)
{
	const ClusterInfo& c = cluster();
	return ConnectionSettings::parse(c.connectionString(c.hosts.at(node - 1), "Timeout=5;SSL Mode=prefer;" + extra), {});
}

} // namespace


class ProtocolVersionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ProtocolVersionTest);
	CPPUNIT_TEST(testMaximumThreeTwoNegotiatesDown);
	CPPUNIT_TEST(testMinimumThreeTwoFails);
	CPPUNIT_TEST_SUITE_END();

public:
	void testMaximumThreeTwoNegotiatesDown()
	{
		for (const std::string& extra: {std::string("max_protocol_version=3.2"), std::string("Max Protocol Version=latest;SSL Mode=disable")})
		{
			ConnectionSettings settings = settingsFor(1, extra);
			ProtocolSessionFactory factory;
			ProtocolSession::Ptr session = factory.openSession(settings.endpoints.at(0), settings);
			CPPUNIT_ASSERT_EQUAL(0, session->protocolVersion());
			CPPUNIT_ASSERT_EQUAL(std::size_t(4), session->cancelKeyLength());
			CPPUNIT_ASSERT_EQUAL(cluster().user, *session->executeSimple("SELECT current_user").at(0).rows.at(0).at(0));
			// the key is sent back as the server gave it: a cancel ends a running statement
			std::thread canceller([&] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); session->cancel(); });
			try
			{
				session->executeSimple("SELECT pg_sleep(10)");
				canceller.join();
				CPPUNIT_FAIL("the statement must be cancelled");
			}
			catch (BlueTuskServerException& exc)
			{
				canceller.join();
				CPPUNIT_ASSERT_EQUAL(std::string("57014"), exc.sqlState());
			}
			CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1").at(0).rows.at(0).at(0));
		}
	}

	void testMinimumThreeTwoFails()
	{
		ConnectionSettings settings = settingsFor(2, "min_protocol_version=3.2");
		ProtocolSessionFactory factory;
		try
		{
			factory.openSession(settings.endpoints.at(0), settings);
			CPPUNIT_FAIL("PostgreSQL 15 speaks 3.0 only: min_protocol_version=3.2 must fail");
		}
		catch (BlueTuskException& exc)
		{
			const std::string text = exc.displayText();
			CPPUNIT_ASSERT_MESSAGE(text, text.find(cluster().hosts[1] + ":" + std::to_string(cluster().port) + " protocol error (the server "
				"supports protocol version 3.0 at most, but Min Protocol Version (min_protocol_version) is 3.2") != std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProtocolVersionTest);
