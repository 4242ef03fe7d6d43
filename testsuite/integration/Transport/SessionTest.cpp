//
// SessionTest.cpp
//
// ProtocolSession against the local cluster: SCRAM login on each node, wrong password, queries and
// parameters, NULLs, several result sets, errors, roles, reset, cancel, command timeout, Unix sockets.
//

#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSessionFactory.h"
#include "TransportTestSupport.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class SessionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SessionTest);
	CPPUNIT_TEST(testScramLoginOnEachNode);
	CPPUNIT_TEST(testWrongPassword);
	CPPUNIT_TEST(testSimpleQueryResults);
	CPPUNIT_TEST(testExtendedQueryParameters);
	CPPUNIT_TEST(testRepeatedLargeResults);
	CPPUNIT_TEST(testServerErrorKeepsSession);
	CPPUNIT_TEST(testTransactionStatusAndReset);
	CPPUNIT_TEST(testDeferredReset);
	CPPUNIT_TEST(testRoles);
	CPPUNIT_TEST(testCancel);
	CPPUNIT_TEST(testCommandTimeout);
	CPPUNIT_TEST(testCommandTimeoutAndCancelOverTls);
	CPPUNIT_TEST(testNotices);
	CPPUNIT_TEST(testUnixSocket);
	CPPUNIT_TEST(testBrokenAfterServerTerminates);
	CPPUNIT_TEST(testStartupServerError);
	CPPUNIT_TEST(testTerminatedTlsSessionNeverRaisesSigpipe);
	CPPUNIT_TEST_SUITE_END();

public:
	void testScramLoginOnEachNode()
	{
		for (int node = 1; node <= 3; ++node)
		{
			ProtocolSession::Ptr session = openNode(node);
			CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
			CPPUNIT_ASSERT(!session->isTls());
			CPPUNIT_ASSERT(!session->isBroken());
			CPPUNIT_ASSERT_EQUAL(cluster().hosts[node - 1] + ":" + std::to_string(cluster().port), session->connectedAddress());
			CPPUNIT_ASSERT_EQUAL(std::string("15"), session->parameterStatus("server_version").substr(0, 2));
			CPPUNIT_ASSERT_EQUAL(std::string("UTF8"), session->parameterStatus("client_encoding"));
			CPPUNIT_ASSERT(session->backendProcessId() > 0);
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), session->addressAttempts().size());
			CPPUNIT_ASSERT_EQUAL(AddressAttempt::CONNECTED, session->addressAttempts()[0].outcome);
			std::vector<QueryResult> results = session->executeSimple("SELECT current_user, current_database()");
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), results.size());
			CPPUNIT_ASSERT_EQUAL(cluster().user, *results[0].rows.at(0).at(0));
			CPPUNIT_ASSERT_EQUAL(cluster().database, *results[0].rows.at(0).at(1));
			session->close();
			CPPUNIT_ASSERT(session->isBroken());
			session->close(); // twice is fine
		}
	}

	void testWrongPassword()
	{
		ConnectionSettings settings = nodeSettings(1);
		settings.password = "not-the-password-7f3a";
		ProtocolSessionFactory factory;
		try
		{
			factory.open(settings.endpoints[0], settings);
			CPPUNIT_FAIL("a wrong password must be rejected");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			const auto* server = dynamic_cast<const BlueTuskServerException*>(exc.nested());
			CPPUNIT_ASSERT(server);
			CPPUNIT_ASSERT_EQUAL(std::string("28P01"), server->sqlState());
			CPPUNIT_ASSERT_EQUAL(std::string("FATAL"), server->severity());
			CPPUNIT_ASSERT(exc.message().find("28P01") != std::string::npos);
			CPPUNIT_ASSERT(exc.message().find("password authentication failed") != std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find(settings.password) == std::string::npos);
		}
	}

	void testSimpleQueryResults()
	{
		ProtocolSession::Ptr session = openNode(1);
		std::vector<QueryResult> results = session->executeSimple(
			"SELECT 1 AS a, 'x'::text AS b; SELECT NULL::text AS n, ''::text AS e; "
			"CREATE TEMP TABLE t(x int); INSERT INTO t VALUES (1), (2); SELECT x FROM t ORDER BY x");
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), results.size());
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), results[0].commandTag);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), results[0].columns.at(0).name);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(23), results[0].columns.at(0).typeOid);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(25), results[0].columns.at(1).typeOid);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *results[0].rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("x"), *results[0].rows.at(0).at(1));
		CPPUNIT_ASSERT(!results[1].rows.at(0).at(0));
		CPPUNIT_ASSERT(results[1].rows.at(0).at(1));
		CPPUNIT_ASSERT_EQUAL(std::string(""), *results[1].rows.at(0).at(1));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TABLE"), results[2].commandTag);
		CPPUNIT_ASSERT(results[2].columns.empty());
		CPPUNIT_ASSERT_EQUAL(std::string("INSERT 0 2"), results[3].commandTag);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), results[3].rowsAffected());
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), results[4].rows.size());
		CPPUNIT_ASSERT_EQUAL(0, results[4].columnIndex("x"));
		CPPUNIT_ASSERT_EQUAL(std::string("2"), *results[4].rows[1][0]);
		CPPUNIT_ASSERT(session->executeSimple("").empty());
	}

	void testExtendedQueryParameters()
	{
		ProtocolSession::Ptr session = openNode(1);
		QueryResult result = session->execute("SELECT $1::int + 1 AS answer, $2::text AS n, $3::text AS e, $4::text AS q",
			{std::string("41"), std::nullopt, std::string(""), std::string("it's; \"quoted\"")});
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), result.commandTag);
		CPPUNIT_ASSERT_EQUAL(std::size_t(4), result.columns.size());
		CPPUNIT_ASSERT_EQUAL(std::string("answer"), result.columns[0].name);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(23), result.columns[0].typeOid);
		CPPUNIT_ASSERT_EQUAL(std::string("42"), *result.rows.at(0).at(0));
		CPPUNIT_ASSERT(!result.rows[0][1]);
		CPPUNIT_ASSERT_EQUAL(std::string(""), *result.rows[0][2]);
		CPPUNIT_ASSERT_EQUAL(std::string("it's; \"quoted\""), *result.rows[0][3]);

		session->execute("CREATE TEMP TABLE p(id int, v text)", {});
		QueryResult insert = session->execute("INSERT INTO p SELECT g, $1 FROM generate_series(1, $2::int) g", {std::string("v"), std::string("3")});
		CPPUNIT_ASSERT_EQUAL(std::string("INSERT 0 3"), insert.commandTag);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), insert.rowsAffected());
		QueryResult update = session->execute("UPDATE p SET v = NULL WHERE id > $1::int", {std::string("1")});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), update.rowsAffected());
		QueryResult select = session->execute("SELECT id, v FROM p ORDER BY id", {});
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), select.rows.size());
		CPPUNIT_ASSERT_EQUAL(std::string("v"), *select.rows[0][1]);
		CPPUNIT_ASSERT(!select.rows[2][1]);
	}

	void testRepeatedLargeResults()
	{
		// A statement that returned many rows has them reserved on its next run (doc/performance.md,
		// "Pass 3"); the rows are the same, and a smaller answer keeps no unused reserve.
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE big AS SELECT g AS id FROM generate_series(1, 3000) g");
		const std::string sql = "SELECT id FROM big ORDER BY id";
		for (int run = 0; run < 2; ++run)
		{
			std::vector<QueryResult> results = session->executeSimple(sql);
			CPPUNIT_ASSERT_EQUAL(std::size_t(3000), results.at(0).rows.size());
			CPPUNIT_ASSERT_EQUAL(std::string("3000"), *results[0].rows.back().at(0));
			if (run == 1) CPPUNIT_ASSERT_EQUAL(std::size_t(3000), results[0].rows.capacity());   // reserved once
		}
		session->executeSimple("DELETE FROM big WHERE id > 10");
		std::vector<QueryResult> results = session->executeSimple(sql);
		CPPUNIT_ASSERT_EQUAL(std::size_t(10), results.at(0).rows.size());
		CPPUNIT_ASSERT(results[0].rows.capacity() < 3000);
		QueryResult extended = session->execute(sql, {});
		CPPUNIT_ASSERT_EQUAL(std::size_t(10), extended.rows.size());
		CPPUNIT_ASSERT_EQUAL(std::string("10"), *extended.rows.back().at(0));
	}

	void testServerErrorKeepsSession()
	{
		ProtocolSession::Ptr session = openNode(1);
		try
		{
			session->executeSimple("SELECT * FROM no_such_table_here");
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("42P01"), exc.sqlState());
			CPPUNIT_ASSERT_EQUAL(std::string("ERROR"), exc.severity());
			CPPUNIT_ASSERT_EQUAL(15, exc.fields().position);
			CPPUNIT_ASSERT(exc.fields().message.find("no_such_table_here") != std::string::npos);
			CPPUNIT_ASSERT(exc.sessionUsable());
			CPPUNIT_ASSERT(isSessionUsable(exc));
		}
		try
		{
			session->execute("SELECT $1::int", {std::string("not a number")});
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("22P02"), exc.sqlState());
		}
		// a failing statement in the middle of several stops the rest
		try
		{
			session->executeSimple("CREATE TEMP TABLE e(x int); SELECT 1/0; CREATE TEMP TABLE f(x int)");
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("22012"), exc.sqlState());
		}
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::string("ok"), *session->execute("SELECT 'ok'", {}).rows.at(0).at(0));
		// the multi-statement query ran as one implicit transaction: nothing was created
		CPPUNIT_ASSERT_EQUAL(std::string("0"), *session->executeSimple("SELECT count(*) FROM pg_class WHERE relname IN ('e', 'f') AND relpersistence = 't'")[0].rows[0][0]);
	}

	void testTransactionStatusAndReset()
	{
		ProtocolSession::Ptr session = openNode(1);
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		session->executeSimple("BEGIN");
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::InTransaction);
		CPPUNIT_ASSERT_THROW(session->executeSimple("SELECT 1/0"), BlueTuskServerException);
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Failed);
		try
		{
			session->executeSimple("SET application_name = 'changed'");
			CPPUNIT_FAIL("commands in a failed transaction must fail");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("25P02"), exc.sqlState());
		}
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Failed);
		session->reset(true);
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		session->executeSimple("SET application_name = 'changed'");
		CPPUNIT_ASSERT_EQUAL(std::string("changed"), session->parameterStatus("application_name"));
		session->reset(true);
		CPPUNIT_ASSERT_EQUAL(std::string(""), session->parameterStatus("application_name"));
		CPPUNIT_ASSERT_EQUAL(std::string(""), *session->executeSimple("SHOW application_name")[0].rows[0][0]);
	}

	void testDeferredReset()
	{
		// SessionControl::deferReset(): nothing is sent when the session goes back to its pool; DISCARD ALL goes in
		// front of the next command (simple, extended or the role probe), and that command already sees a
		// clean session.
		ProtocolSession::Ptr session = openNode(1);
		ProtocolSession::Ptr observer = openNode(1);
		const std::string stillDirty = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'deferred-dirty'";
		session->executeSimple("SET application_name = 'deferred-dirty'; CREATE TEMP TABLE deferred_t (x int)");
		CPPUNIT_ASSERT(!session->isResetPending());
		CPPUNIT_ASSERT(session->deferReset());
		CPPUNIT_ASSERT(session->isResetPending());
		// Deferred: the server has not reset the session yet.
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *observer->executeSimple(stillDirty)[0].rows[0][0]);

		std::vector<QueryResult> simple = session->executeSimple("SHOW application_name; SELECT count(*) FROM pg_class WHERE relname = 'deferred_t'");
		CPPUNIT_ASSERT(!session->isResetPending());
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), simple.size());   // the DISCARD ALL's result is not the caller's
		CPPUNIT_ASSERT_EQUAL(std::string(""), *simple[0].rows[0][0]);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), *simple[1].rows[0][0]);
		CPPUNIT_ASSERT_EQUAL(std::string(""), session->parameterStatus("application_name"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), *observer->executeSimple(stillDirty)[0].rows[0][0]);

		// The extended protocol.
		session->executeSimple("SET application_name = 'deferred-dirty'");
		CPPUNIT_ASSERT(session->deferReset());
		QueryResult extended = session->execute("SELECT current_setting('application_name'), $1::int + 1", {std::string("41")});
		CPPUNIT_ASSERT_EQUAL(std::string(""), *extended.rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("42"), *extended.rows.at(0).at(1));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), extended.commandTag);

		// The forced role probe of a targeted checkout carries it (one round trip for both).
		session->executeSimple("SET application_name = 'deferred-dirty'");
		CPPUNIT_ASSERT(session->deferReset());
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Primary), toString(session->probeRole(true)));
		CPPUNIT_ASSERT(!session->isResetPending());
		CPPUNIT_ASSERT_EQUAL(std::string("0"), *observer->executeSimple(stillDirty)[0].rows[0][0]);

		// A server error in the command itself leaves the reset done and the session usable.
		session->executeSimple("SET application_name = 'deferred-dirty'");
		CPPUNIT_ASSERT(session->deferReset());
		CPPUNIT_ASSERT_THROW(session->executeSimple("SELECT 1/0"), BlueTuskServerException);
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::string(""), *session->executeSimple("SHOW application_name")[0].rows[0][0]);

		// Not with a transaction open (the pool rolls back at once instead), nor once closed.
		session->executeSimple("BEGIN");
		CPPUNIT_ASSERT(!session->deferReset());
		CPPUNIT_ASSERT(!session->isResetPending());
		session->executeSimple("ROLLBACK");
		// reset() does the pending DISCARD ALL itself, once.
		CPPUNIT_ASSERT(session->deferReset());
		session->reset(true);
		CPPUNIT_ASSERT(!session->isResetPending());
		session->close();
		CPPUNIT_ASSERT(!session->deferReset());
	}

	void testRoles()
	{
		ProtocolSession::Ptr primary = openNode(1);
		CPPUNIT_ASSERT(primary->role() == ServerRole::Unknown);
		CPPUNIT_ASSERT_EQUAL(std::string("off"), primary->parameterStatus("in_hot_standby"));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Primary), toString(primary->probeRole(false)));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Primary), toString(primary->probeRole(true)));
		for (int node = 2; node <= 3; ++node)
		{
			ProtocolSession::Ptr standby = openNode(node);
			CPPUNIT_ASSERT_EQUAL(std::string("on"), standby->parameterStatus("in_hot_standby"));
			CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(standby->probeRole(false)));
			CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(standby->probeRole(true)));
		}
		ProtocolSession::Ptr readOnly = openNode(1, "Username=bluetusk_ro");
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::PrimaryReadOnly), toString(readOnly->probeRole(false)));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::PrimaryReadOnly), toString(readOnly->probeRole(true)));
		// a targeted open probes during the open, under the host deadline
		ProtocolSession::Ptr targeted = openNode(2, "Target Session Attributes=primary");
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(targeted->role()));
	}

	void testCancel()
	{
		ProtocolSession::Ptr session = openNode(1);
		Poco::Clock started;
		std::thread canceller([&session]
		{
			std::this_thread::sleep_for(std::chrono::milliseconds(300));
			session->cancel();
		});
		try
		{
			session->executeSimple("SELECT pg_sleep(20)");
			canceller.join();
			CPPUNIT_FAIL("the query must be cancelled");
		}
		catch (BlueTuskServerException& exc)
		{
			canceller.join();
			CPPUNIT_ASSERT_EQUAL(std::string("57014"), exc.sqlState());
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT(started.elapsed() < 5000000);
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1")[0].rows[0][0]);
	}

	void testCommandTimeout()
	{
		ProtocolSession::Ptr session = openNode(1, "Command Timeout=1");
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000), session->commandTimeout().totalMilliseconds());
		session->setCommandTimeout(Poco::Timespan(0, 300000));
		Poco::Clock started;
		try
		{
			session->executeSimple("SELECT pg_sleep(20)");
			CPPUNIT_FAIL("the command timeout must cancel the query");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("57014"), exc.sqlState());
			CPPUNIT_ASSERT(exc.message().find("command timeout of 300 ms exceeded") != std::string::npos);
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		const Poco::Clock::ClockDiff elapsed = started.elapsed();
		CPPUNIT_ASSERT(elapsed >= 300000);
		CPPUNIT_ASSERT(elapsed < 3000000);
		CPPUNIT_ASSERT(!session->isBroken());
		// quick statements are not affected
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1")[0].rows[0][0]);
		CPPUNIT_ASSERT_EQUAL(std::string(""), *session->executeSimple("SELECT pg_sleep(0.1)::text")[0].rows[0][0]);
	}

	void testCommandTimeoutAndCancelOverTls()
	{
		ProtocolSession::Ptr session = openNode(3, "SSL Mode=prefer;Command Timeout=0.3");
		CPPUNIT_ASSERT(session->isTls());
		for (int round = 0; round < 2; ++round)
		{
			Poco::Clock started;
			try
			{
				session->executeSimple("SELECT pg_sleep(20)");
				CPPUNIT_FAIL("the command timeout must cancel the query");
			}
			catch (BlueTuskServerException& exc)
			{
				CPPUNIT_ASSERT_EQUAL(std::string("57014"), exc.sqlState());
				CPPUNIT_ASSERT(exc.message().find("command timeout of 300 ms exceeded") != std::string::npos);
			}
			CPPUNIT_ASSERT(started.elapsed() < 3000000);
			CPPUNIT_ASSERT(!session->isBroken());
			// the TLS stream is intact after a receive timeout: a larger result arrives whole
			std::vector<QueryResult> results = session->executeSimple("SELECT repeat('x', 100000), g FROM generate_series(1, 50) g");
			CPPUNIT_ASSERT_EQUAL(std::size_t(50), results.at(0).rows.size());
			CPPUNIT_ASSERT_EQUAL(std::size_t(100000), results[0].rows[49][0]->size());
		}
		session->setCommandTimeout(0);
		std::thread canceller([&session] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); session->cancel(); });
		CPPUNIT_ASSERT_THROW(session->executeSimple("SELECT pg_sleep(20)"), BlueTuskServerException);
		canceller.join();
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1")[0].rows[0][0]);
	}

	void testNotices()
	{
		ProtocolSession::Ptr session = openNode(1);
		std::vector<BlueTuskServerException::Fields> notices;
		session->setNoticeHandler([&notices](const BlueTuskServerException::Fields& notice) { notices.push_back(notice); });
		session->executeSimple("DO $$ BEGIN RAISE NOTICE 'hello %', 42; RAISE WARNING 'careful' USING HINT = 'a hint'; END $$");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), notices.size());
		CPPUNIT_ASSERT_EQUAL(std::string("NOTICE"), notices[0].severity);
		CPPUNIT_ASSERT_EQUAL(std::string("hello 42"), notices[0].message);
		CPPUNIT_ASSERT_EQUAL(std::string("00000"), notices[0].sqlState);
		CPPUNIT_ASSERT_EQUAL(std::string("WARNING"), notices[1].severity);
		CPPUNIT_ASSERT_EQUAL(std::string("01000"), notices[1].sqlState);
		CPPUNIT_ASSERT_EQUAL(std::string("a hint"), notices[1].hint);
	}

	void testUnixSocket()
	{
		const std::string dir = cluster().socketDir(1);
		ConnectionSettings settings = nodeSettings(1, "Host=" + dir + ";SSL Mode=require");
		CPPUNIT_ASSERT(settings.endpoints.at(0).isUnixSocket());
		ProtocolSessionFactory factory;
		ProtocolSession::Ptr session = factory.openSession(settings.endpoints[0], settings);
		CPPUNIT_ASSERT_EQUAL(dir + "/.s.PGSQL." + std::to_string(cluster().port), session->connectedAddress());
		CPPUNIT_ASSERT(!session->isTls()); // TLS is never used over Unix-domain sockets
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1")[0].rows[0][0]);

		ConnectionSettings missing = nodeSettings(1, "Host=/tmp/no-such-socket-dir");
		try
		{
			factory.open(missing.endpoints[0], missing);
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
			CPPUNIT_ASSERT_EQUAL(AddressAttempt::REFUSED, exc.attempts()[0].outcome);
			CPPUNIT_ASSERT_EQUAL(std::string("No such file or directory"), exc.attempts()[0].errorText);
			CPPUNIT_ASSERT_EQUAL(std::string("/tmp/no-such-socket-dir/.s.PGSQL." + std::to_string(cluster().port)), exc.attempts()[0].address);
		}
	}

	void testBrokenAfterServerTerminates()
	{
		ProtocolSession::Ptr victim = openNode(1);
		ProtocolSession::Ptr killer = openNode(1, "Username=bluetusk");
		killer->execute("SELECT pg_terminate_backend($1::int)", {std::to_string(victim->backendProcessId())});
		try
		{
			victim->executeSimple("SELECT 1");
			CPPUNIT_FAIL("the terminated session must fail");
		}
		catch (BlueTuskServerException& exc)
		{
			// FATAL 57P01 "terminating connection due to administrator command"
			CPPUNIT_ASSERT_EQUAL(std::string("57P01"), exc.sqlState());
			CPPUNIT_ASSERT(!exc.sessionUsable());
		}
		catch (BlueTuskSessionBrokenException&)
		{
		}
		CPPUNIT_ASSERT(victim->isBroken());
		CPPUNIT_ASSERT_THROW(victim->executeSimple("SELECT 1"), BlueTuskSessionBrokenException);
	}

	void testTerminatedTlsSessionNeverRaisesSigpipe()
		/// The server ends TLS sessions (FIN, then RST once the client writes); the client writes again,
		/// and close() sends a TLS close_notify. With SIGPIPE at its default action this would kill the
		/// process (the test executable does not ignore SIGPIPE).
	{
		ProtocolSession::Ptr killer = openNode(1);
		for (int round = 0; round < 3; ++round)
		{
			ProtocolSession::Ptr victim = openNode(1, "SSL Mode=require");
			CPPUNIT_ASSERT(victim->isTls());
			killer->execute("SELECT pg_terminate_backend($1::int)", {std::to_string(victim->backendProcessId())});
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
			for (int i = 0; i < 3; ++i)
				CPPUNIT_ASSERT_THROW(victim->executeSimple("SELECT 1"), BlueTuskException);
			CPPUNIT_ASSERT(victim->isBroken());
			victim->close();
			victim->cancel();
		}
	}

	void testStartupServerError()
	{
		ConnectionSettings settings = nodeSettings(1, "Database=no_such_database");
		ProtocolSessionFactory factory;
		try
		{
			factory.open(settings.endpoints[0], settings);
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("3D000"), exc.sqlState());
			CPPUNIT_ASSERT(!exc.sessionUsable());
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SessionTest);
