//
// WrongNodeFaultTest.cpp
//
// Wrong-node answers over the project's fake backends: a read-write lease whose server answers a write
// with SQLSTATE 25006 (it became a standby under the session) gets the error (the write is not re-run
// anywhere), the session's role is re-probed when the lease returns, the endpoint's learned role becomes
// standby in the pool and the host states, and the next read-write checkout goes to the new primary
// without trying the old one. A 25006 from a primary that stays primary (SET TRANSACTION READ ONLY) changes
// nothing.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const INSERT = "INSERT INTO orders VALUES (1)";


QueryAnswer readOnlyRefusal()
{
	return QueryAnswer::error("25006", "cannot execute INSERT in a read-only transaction");
}


long countOf(const std::vector<std::string>& queries, const std::string& statement)
{
	return static_cast<long>(std::count(queries.begin(), queries.end(), statement));
}

} // namespace


class WrongNodeFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(WrongNodeFaultTest);
	CPPUNIT_TEST(testReadOnlyAnswerMovesNextCheckout);
	CPPUNIT_TEST(testReadOnlyAnswerFromRealPrimaryKeepsEndpoint);
	CPPUNIT_TEST(testStandbyLeaseAnsweredAfterPromotion);
	CPPUNIT_TEST_SUITE_END();

public:
	void testReadOnlyAnswerMovesNextCheckout()
	{
		FakeBackend first(BackendScript::primary(), "127.0.0.1");
		FakeBackend second(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create("Host=" + first.hostAndPort() + "," + second.hostAndPort() +
			";Username=app;Password=wrong-node-secret;SSL Mode=disable;Timeout=2;Target Session Attributes=read-write", connector);
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT_EQUAL(first.endpoint().toString(), lease.connectedEndpoint().toString());
			// The roles swap under the open session behind a proxy: the connection now reaches a standby,
			// while the ParameterStatus values the session saw still say primary (so only the 25006 tells).
			BackendScript behindProxy = BackendScript::primary().answer(INSERT, readOnlyRefusal());
			behindProxy.inRecovery = true;
			behindProxy.transactionReadOnly = true;
			first.setScript(behindProxy);
			second.setScript(BackendScript::primary());
			std::string sqlState, message;
			try
			{
				lease.executeSimple(INSERT);
			}
			catch (BlueTuskServerException& exc)
			{
				sqlState = exc.sqlState();
				message = exc.displayText();
			}
			CPPUNIT_ASSERT_EQUAL(std::string("25006"), sqlState);   // the error reaches the caller
			CPPUNIT_ASSERT_MESSAGE(message, message.find(first.hostAndPort()) != std::string::npos);
			CPPUNIT_ASSERT(lease.session().control().roleChangeSuspected());
			CPPUNIT_ASSERT(lease.session().role() == ServerRole::Unknown);
		}
		// Returned: re-probed, and the endpoint is known as a standby everywhere the router looks.
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().at(first.endpoint()).lastKnownRole == ServerRole::Standby);
		CPPUNIT_ASSERT(connector.hostState(first.endpoint()).role == ServerRole::Standby);
		CPPUNIT_ASSERT_EQUAL(1, dataSource->getHostPoolStatistics().at(first.endpoint()).idle);   // still fine for reads

		BlueTuskConnection next = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(second.endpoint().toString(), next.connectedEndpoint().toString());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), next.attemptLog().size());   // the old primary was not even tried
		CPPUNIT_ASSERT_EQUAL(second.endpoint().toString(), next.attemptLog()[0].endpoint.toString());
		// BlueTusk never re-ran the write.
		CPPUNIT_ASSERT_EQUAL(1L, countOf(first.queries(), INSERT));
		CPPUNIT_ASSERT_EQUAL(0L, countOf(second.queries(), INSERT));
	}

	void testStandbyLeaseAnsweredAfterPromotion()
	{
		// a strict standby lease whose own answer carries in_hot_standby=off (the
		// standby was promoted between the checkout and the query). The rows are returned (they are correct
		// data from the promoted server: BlueTusk does not throw after the fact), role() reports the change,
		// and the session is never handed to a standby target again: the endpoint is learned as primary
		// when the lease returns.
		FakeBackend server(BackendScript::standby(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create("Host=" + server.hostAndPort() +
			";Username=app;Password=wrong-node-secret;SSL Mode=disable;Timeout=2;Target Session Attributes=standby", connector);
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT(lease.role() == ServerRole::Standby);
			server.setScript(BackendScript::primary());   // promoted under the open session
			std::vector<QueryResult> results = lease.executeSimple("SELECT 1");
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), results.at(0).rows.size());
			CPPUNIT_ASSERT(lease.role() == ServerRole::Primary);            // reported on the lease
			CPPUNIT_ASSERT(lease.session().control().roleChangeSuspected());
		}
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().at(server.endpoint()).lastKnownRole == ServerRole::Primary);
		CPPUNIT_ASSERT(connector.hostState(server.endpoint()).role == ServerRole::Primary);
		CPPUNIT_ASSERT_THROW(dataSource->open(), BlueTuskNoAcceptableHostException);   // not handed out again
	}

	void testReadOnlyAnswerFromRealPrimaryKeepsEndpoint()
	{
		FakeBackend primary(BackendScript::primary().answer(INSERT, readOnlyRefusal()), "127.0.0.1");
		FakeBackend standby(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create("Host=" + primary.hostAndPort() + "," + standby.hostAndPort() +
			";Username=app;Password=wrong-node-secret;SSL Mode=disable;Timeout=2;Target Session Attributes=read-write", connector);
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT_THROW(lease.executeSimple(INSERT), BlueTuskServerException);
			CPPUNIT_ASSERT(lease.session().control().roleChangeSuspected());
		}
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().at(primary.endpoint()).lastKnownRole == ServerRole::Primary);
		BlueTuskConnection next = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(primary.endpoint().toString(), next.connectedEndpoint().toString());
		CPPUNIT_ASSERT(!next.session().control().roleChangeSuspected());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(WrongNodeFaultTest);
