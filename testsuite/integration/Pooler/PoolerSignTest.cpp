//
// PoolerSignTest.cpp
//
// The signs of a transaction pooler against node 1's real PgBouncer, on the paths PoolerAutoRetryTest does
// not take:
// - 26000 with Server Pooling=session set by hand: the error reaches the application (nothing switches), with
//   a HINT that the endpoint is probably a transaction pooler; on the server itself no such hint.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/Transaction.h"
#include "PoolerSupport.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string poolerEndpoint()
{
	return "127.0.0.1:" + std::to_string(poolerPort());
}

} // namespace


class PoolerSignTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerSignTest);
	CPPUNIT_TEST(testSessionPoolingHint);
	CPPUNIT_TEST(testNoHintOnTheServer);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSessionPoolingHint()
		/// Server Pooling=session in front of the PgBouncer: a prepared statement whose server session lost it
		/// fails with 26000 inside a transaction block, and the error says the endpoint is probably a
		/// transaction pooler and what to set.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=session"));
		PreparedStatement statement = connection.prepare("SELECT $1::int4 - 1");
		CPPUNIT_ASSERT_EQUAL(POOLER_SERVER_SESSIONS, deallocateOnEveryServerSession());
		Transaction transaction(connection.session());
		try
		{
			connection.execute(statement, {Poco::Int32(1)});
			CPPUNIT_FAIL("a statement deallocated on every server session ran");
		}
		catch (const BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("26000"), exc.sqlState());
			const std::string& hint = exc.fields().hint;
			CPPUNIT_ASSERT_MESSAGE(hint, hint.find("Server Pooling=session, but " + poolerEndpoint() + " is probably a transaction pooler") == 0);
			CPPUNIT_ASSERT_MESSAGE(hint, hint.find("Set Server Pooling=transaction (or leave it at auto)") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("HINT: Server Pooling=session, but") != std::string::npos);
		}
		transaction.rollback();
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(5), connection.query("SELECT $1::int4 + 1", {Poco::Int32(4)}).row(0).get<Poco::Int32>(0));
	}

	void testNoHintOnTheServer()
		/// Server Pooling=session on the server itself (the role probe showed it): the application's own
		/// DEALLOCATE ALL makes the next run inside a transaction block fail with 26000, without the hint.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(toServer("Server Pooling=session;Target Session Attributes=primary"));
		PreparedStatement statement = connection.prepare("SELECT $1::int4 - 1");
		connection.executeSimple("DEALLOCATE ALL");
		Transaction transaction(connection.session());
		try
		{
			connection.execute(statement, {Poco::Int32(1)});
			CPPUNIT_FAIL("a deallocated statement ran");
		}
		catch (const BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("26000"), exc.sqlState());
			CPPUNIT_ASSERT_MESSAGE(exc.fields().hint, exc.fields().hint.empty());
		}
		transaction.rollback();
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerSignTest);
