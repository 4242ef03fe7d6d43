//
// RoleSourceFaultTest.cpp
//
// Where a session's role comes from (Transport/src/session/RoleSource.cpp): ParameterStatus only once the
// role probe's pg_backend_pid() has matched BackendKeyData's process id (the peer is the server), else the
// probe query. A fake backend whose probe answers another process id and another role plays a pooler that
// replays a standby's cached ParameterStatus after a promotion (PgBouncer 1.18, doc/poolers.md).
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "PeerWire.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string PROBE = "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), pg_backend_pid()";


QueryAnswer promotedBehindPooler()
	/// The probe's answer from the server behind a pooler: a primary, another process than BackendKeyData's.
{
	QueryAnswer answer;
	answer.columns = {"pg_is_in_recovery", "current_setting", "pg_backend_pid"};
	answer.columnTypes = {Wire::OID_BOOL, Wire::OID_TEXT, Wire::OID_INT4};
	answer.rows = {{std::string("f"), std::string("off"), std::string("424242")}};
	return answer;
}


QueryAnswer poolerWithServerDown()
	/// PgBouncer 1.18 whose server login failed a moment ago: FATAL to the first statement, then it closes.
{
	Wire::ErrorFields fields;
	fields.severity = "FATAL";
	fields.sqlState = "08P01";
	fields.message = "server login has been failing, try again later (server_login_retry)";
	return QueryAnswer::raw(Wire::errorResponse(fields));
}

} // namespace


class RoleSourceFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RoleSourceFaultTest);
	CPPUNIT_TEST(testReplayedParametersNeverDecide);
	CPPUNIT_TEST(testTargetedOpenProbesThroughReplay);
	CPPUNIT_TEST(testServerConfirmedOnce);
	CPPUNIT_TEST(testBrokenByProbeNamesWhy);
	CPPUNIT_TEST_SUITE_END();

public:
	void testReplayedParametersNeverDecide()
		/// in_hot_standby=on at login, the probe says primary from another process: every role question
		/// goes to the probe, the cheap refresh included.
	{
		FakeBackend backend(BackendScript::standby().answer(PROBE, promotedBehindPooler()));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		CPPUNIT_ASSERT_EQUAL(std::string("on"), session->parameterStatus("in_hot_standby"));
		CPPUNIT_ASSERT_EQUAL(std::string("unknown"), toString(session->reportedRole()));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->probeRole(false)));
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
		session->executeSimple("SELECT 1");
		CPPUNIT_ASSERT_EQUAL(std::string("unknown"), toString(session->reportedRole()));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->probeRole(false)));
		CPPUNIT_ASSERT_EQUAL(3, backend.queryCount());
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->refreshRole()));
		CPPUNIT_ASSERT_EQUAL(4, backend.queryCount());
		CPPUNIT_ASSERT_EQUAL(PROBE, backend.queries().at(3));
		CPPUNIT_ASSERT(!session->roleConfirmedWithin(Poco::Timespan(60, 0)));
	}

	void testTargetedOpenProbesThroughReplay()
		/// A targeted open asks the probe inside the open: the replayed standby is a primary.
	{
		FakeBackend backend(BackendScript::standby().answer(PROBE, promotedBehindPooler()));
		ProtocolSessionFactory factory;
		ConnectionSettings settings = fastSettings(1000);
		settings.targetSessionAttributes = TargetSessionAttributes::Primary;
		auto session = factory.openSession(backend.endpoint(), settings);
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->role()));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->probeRole(false)));   // the open's answer, no second trip
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
	}

	void testServerConfirmedOnce()
		/// A server (the process ids match): one probe, then the refresh is the bare Sync (no statement).
	{
		FakeBackend backend(BackendScript::standby());
		ProtocolSessionFactory factory;
		ConnectionSettings settings = fastSettings(1000);
		settings.targetSessionAttributes = TargetSessionAttributes::Standby;
		auto session = factory.openSession(backend.endpoint(), settings);
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), toString(session->reportedRole()));
		backend.setScript(BackendScript::primary());   // promoted: reported in front of the next ReadyForQuery
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->refreshRole()));
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
	}

	void testBrokenByProbeNamesWhy()
		/// The role probe meets a pooler's FATAL (its server is down); a caller that only asked for the role
		/// may swallow that error (bluetusk-connect did, in a new user's trial): the next use's "broken"
		/// error still says what ended the session.
	{
		FakeBackend backend(BackendScript::primary().answer(PROBE, poolerWithServerDown()));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		try
		{
			session->probeRole(true);
			CPPUNIT_FAIL("the probe succeeded");
		}
		catch (const BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("08P01"), exc.sqlState());
		}
		try
		{
			session->executeSimple("SELECT 1");
			CPPUNIT_FAIL("a broken session ran a statement");
		}
		catch (const BlueTuskSessionBrokenException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("is broken and cannot be used (the server ended it: FATAL 08P01 "
				"server login has been failing, try again later (server_login_retry))") != std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(RoleSourceFaultTest);
