//
// ConnectionLevelTest.cpp
//
// a BlueTuskConnection-level single-host open against the cluster works with SCRAM
// over TLS (the router on top of ProtocolSessionFactory), and its failures keep the per-address detail.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSession.h"
#include "TestEnvironment.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class ConnectionLevelTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionLevelTest);
	CPPUNIT_TEST(testSingleHostScramOverTls);
	CPPUNIT_TEST(testSingleHostFailure);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSingleHostScramOverTls()
	{
		const ClusterInfo& c = cluster();
		BlueTuskConnection connection = BlueTuskConnection::open(c.connectionString(c.hosts[0],
			"SSL Mode=verify-full;Root Certificate=" + c.rootCertificate() + ";Timeout=5"));
		CPPUNIT_ASSERT(connection.isOpen());
		CPPUNIT_ASSERT_EQUAL(BlueTuskHostEndpoint(c.hosts[0], static_cast<Poco::UInt16>(c.port)).toString(), connection.connectedEndpoint().toString());
		auto* session = dynamic_cast<ProtocolSession*>(&connection.session());
		CPPUNIT_ASSERT(session);
		CPPUNIT_ASSERT(session->isTls());
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256-PLUS"), session->authenticationMethod());
		std::vector<QueryResult> results = connection.executeSimple("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
		CPPUNIT_ASSERT_EQUAL(std::string("true"), *results.at(0).rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("42"), *connection.execute("SELECT $1::int + 1", {std::string("41")}).rows.at(0).at(0));
	}

	void testSingleHostFailure()
	{
		const ClusterInfo& c = cluster();
		try
		{
			BlueTuskConnection::open("Host=127.0.0.1;Port=1;Username=" + c.user + ";Password=" + c.password + ";Timeout=2");
			CPPUNIT_FAIL("nothing listens on port 1");
		}
		catch (BlueTuskException& exc)
		{
			CPPUNIT_ASSERT(exc.displayText().find("127.0.0.1:1") != std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find("refused") != std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find(c.password) == std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionLevelTest);
