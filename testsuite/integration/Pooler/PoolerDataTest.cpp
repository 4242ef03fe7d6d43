//
// PoolerDataTest.cpp
//
// Poco::Data's connector "bluetusk" behind node 1's PgBouncer in transaction pooling: the transaction
// isolation level goes with each BEGIN (a session-level SET would be refused there, doc/poolers.md).
//

#include "BlueTusk/Data/Connector.h"
#include "PoolerSupport.h"
#include "Poco/Data/Session.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk::Test;
using namespace Poco::Data::Keywords;
using Poco::Data::Session;

class PoolerDataTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerDataTest);
	CPPUNIT_TEST(testIsolationBehindPooler);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		static bool registered = false;
		if (!registered) BlueTusk::Data::Connector::registerConnector();
		registered = true;
	}

	void testIsolationBehindPooler()
		/// setTransactionIsolation() through the PgBouncer: begin() and an owed BEGIN (autoCommit off) run at
		/// that level; a statement in autoCommit runs at the server's default.
	{
		Session session("bluetusk", throughPooler("127.0.0.1", "Server Pooling=transaction"));
		session.setTransactionIsolation(Session::TRANSACTION_SERIALIZABLE);   // refused as a SET before
		CPPUNIT_ASSERT(session.isTransactionIsolation(Session::TRANSACTION_SERIALIZABLE));
		std::string level;
		session.begin();
		session << "SELECT current_setting('transaction_isolation')", into(level), now;
		session.commit();
		CPPUNIT_ASSERT_EQUAL(std::string("serializable"), level);
		session.setTransactionIsolation(Session::TRANSACTION_REPEATABLE_READ);
		session.setFeature("autoCommit", false);
		session << "SELECT current_setting('transaction_isolation')", into(level), now;
		session.commit();
		CPPUNIT_ASSERT_EQUAL(std::string("repeatable read"), level);
		session.setFeature("autoCommit", true);
		session << "SELECT current_setting('transaction_isolation')", into(level), now;
		CPPUNIT_ASSERT_EQUAL(std::string("read committed"), level);   // no SET reached a server session
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerDataTest);
