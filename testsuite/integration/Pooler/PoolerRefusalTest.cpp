//
// PoolerRefusalTest.cpp
//
// What cannot work behind a transaction pooler is refused before it is sent (session/PoolerRefusals.h,
// doc/poolers.md): through node 1's PgBouncer with Server Pooling=transaction, each feature on each statement
// path, the NotificationListener; what stays allowed there (SET LOCAL, the _xact_ locks, ON COMMIT DROP in a
// transaction block, RESET, read your writes); what the scanner does not look into (a function's body, a DO
// block, COPY data); the message's exact shape (the endpoint once, on the paths that add the server as context
// too); and the same statements not refused with Server Pooling=session.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/NotificationListener.h"
#include "BlueTusk/Pipeline.h"
#include "PoolerSupport.h"
#include "session/PoolerDetection.h"
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Refused
{
	std::string sql;
	std::string feature;   /// as the message names it
};


const std::vector<Refused>& refusedStatements()
{
	static const std::vector<Refused> statements{
		{"LISTEN bt_refusal", "LISTEN"},
		{"SELECT pg_advisory_lock(4711)", "pg_advisory_lock()"},
		{"SELECT pg_try_advisory_lock(4711)", "pg_try_advisory_lock()"},
		{"SELECT pg_advisory_lock_shared(4711)", "pg_advisory_lock_shared()"},
		{"SELECT pg_try_advisory_lock_shared(4711)", "pg_try_advisory_lock_shared()"},
		{"SET search_path TO public", "SET without LOCAL"},
		{"SET SESSION statement_timeout = 1000", "SET SESSION"},
		{"SELECT set_config('application_name', 'bt', false)", "set_config(..., false)"},
		{"CREATE TEMP TABLE bt_refusal (a int)", "CREATE TEMPORARY TABLE without ON COMMIT DROP"},
		{"DECLARE bt_refusal CURSOR WITH HOLD FOR SELECT 1", "DECLARE ... WITH HOLD"},
		{"PREPARE bt_refusal AS SELECT 1", "PREPARE (an SQL-level prepared statement)"},
	};
	return statements;
}


std::string refusal(const std::function<void()>& run)
	/// The message of the BlueTuskUsageException run() throws; empty when it throws none.
{
	try
	{
		run();
	}
	catch (const BlueTuskUsageException& exc)
	{
		return exc.message();
	}
	return std::string();
}


void assertRefused(const std::string& message, const std::string& feature, const std::string& where)
	/// "Server Pooling=transaction: <feature> cannot work behind a transaction pooler (server 127.0.0.1:<port>):
	/// <why>; <instead> (doc/poolers.md). Nothing was sent.": the keyword, the feature and node 1's PgBouncer,
	/// each once, and no secret.
{
	const std::string endpoint = "127.0.0.1:" + std::to_string(poolerPort());
	const std::string end = " (doc/poolers.md). Nothing was sent.";
	CPPUNIT_ASSERT_MESSAGE(where + ": not refused", !message.empty());
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.find("Server Pooling=transaction: ") == 0);
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.rfind("Server Pooling") == 0);
	const std::size_t named = message.find(feature + " cannot work behind a transaction pooler (server " + endpoint + "): ");
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, named != std::string::npos && named <= std::string("Server Pooling=transaction: the session-level advisory lock ").size());
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.find(endpoint) == message.rfind(endpoint));
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.find(feature) == message.rfind(feature) || feature == "LISTEN");
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.size() > end.size() && message.compare(message.size() - end.size(), end.size(), end) == 0);
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.find(cluster().password) == std::string::npos);
	CPPUNIT_ASSERT_MESSAGE(where + ": " + message, message.find("bt_refusal") == std::string::npos);   // no SQL text
}

} // namespace


class PoolerRefusalTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerRefusalTest);
	CPPUNIT_TEST(testRefusedOnEveryPath);
	CPPUNIT_TEST(testNothingSent);
	CPPUNIT_TEST(testNotificationListenerRefused);
	CPPUNIT_TEST(testRefusedThroughConnection);
	CPPUNIT_TEST(testBodiesAndCopyDataNotRefused);
	CPPUNIT_TEST(testAllowedBehindPooler);
	CPPUNIT_TEST(testNotRefusedWithSessionPooling);
	CPPUNIT_TEST(testReadYourWritesBehindPooler);
	CPPUNIT_TEST(testStartupParametersBehindPooler);
	CPPUNIT_TEST(testOwnDeallocateOnServerIsNoPooler);
	CPPUNIT_TEST_SUITE_END();

public:
	void testRefusedOnEveryPath()
		/// Each feature through executeSimple(), query(), prepare() and queryEach(), and in a pipeline; the
		/// session stays usable after each refusal.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		Session& session = connection.session();
		for (const Refused& refused: refusedStatements())
		{
			assertRefused(refusal([&] { session.executeSimple(refused.sql); }), refused.feature, "executeSimple " + refused.sql);
			assertRefused(refusal([&] { session.query(refused.sql); }), refused.feature, "query " + refused.sql);
			assertRefused(refusal([&] { session.prepare(refused.sql); }), refused.feature, "prepare " + refused.sql);
			assertRefused(refusal([&] { session.queryEach(refused.sql, {}, [](const RowView&) { return true; }); }),
				refused.feature, "queryEach " + refused.sql);
			assertRefused(refusal([&]
			{
				Pipeline pipeline(session);
				pipeline.add("SELECT 1", {});
				pipeline.add(refused.sql, {});
				pipeline.run();
			}), refused.feature, "pipeline " + refused.sql);
			CPPUNIT_ASSERT_EQUAL(2, connection.query("SELECT 1 + 1").row(0).get<int>(0));
		}
	}

	void testNothingSent()
		/// A refused statement in a text of several runs none of them: the INSERT in front of the SET is not
		/// in the table afterwards.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		connection.executeSimple("DROP TABLE IF EXISTS bt_refusal_rows; CREATE TABLE bt_refusal_rows (a int)");
		assertRefused(refusal([&] { connection.executeSimple("INSERT INTO bt_refusal_rows VALUES (1); SET search_path TO public"); }),
			"SET without LOCAL", "a text of two statements");
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), connection.query("SELECT count(*) FROM bt_refusal_rows").row(0).get<Poco::Int64>(0));
		connection.executeSimple("DROP TABLE bt_refusal_rows");
	}

	void testNotificationListenerRefused()
		/// The listener's LISTEN on a session through the pooler with Server Pooling=transaction.
	{
		NotificationListener listener(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		assertRefused(refusal([&] { listener.listen("bt_refusal"); }), "LISTEN", "NotificationListener::listen");
		CPPUNIT_ASSERT(listener.channels().empty());
	}

	void testRefusedThroughConnection()
		/// BlueTuskConnection's executeSimple() and execute() name the server of an error as context: a
		/// refusal still names the endpoint once. COPY's statement is refused like any other.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		for (const Refused& refused: refusedStatements())
		{
			assertRefused(refusal([&] { connection.executeSimple(refused.sql); }), refused.feature, "connection.executeSimple " + refused.sql);
			assertRefused(refusal([&] { connection.execute(refused.sql); }), refused.feature, "connection.execute " + refused.sql);
			assertRefused(refusal([&] { connection.query(refused.sql); }), refused.feature, "connection.query " + refused.sql);
		}
		assertRefused(refusal([&] { connection.session().copyOut("COPY (SELECT pg_advisory_lock(4711)) TO STDOUT", [](const char*, std::size_t) {}); }),
			"pg_advisory_lock()", "copyOut");
		CPPUNIT_ASSERT_EQUAL(2, connection.query("SELECT 1 + 1").row(0).get<int>(0));
	}

	void testBodiesAndCopyDataNotRefused()
		/// Defining a function (its body runs when called), a DO block and COPY data are not looked into:
		/// each runs through the PgBouncer with Server Pooling=transaction. The bodies' refusable words never run.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		connection.executeSimple("CREATE OR REPLACE FUNCTION bt_refusal_body() RETURNS int LANGUAGE plpgsql AS $$ BEGIN "
			"IF false THEN SET search_path TO public; LISTEN bt_refusal; PERFORM pg_advisory_lock(4711); END IF; RETURN 7; END $$");
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(7), connection.query("SELECT bt_refusal_body()").row(0).get<Poco::Int32>(0));
		connection.executeSimple("CREATE OR REPLACE FUNCTION bt_refusal_atomic() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; "
			"SELECT CASE WHEN false THEN pg_try_advisory_lock(4711)::int ELSE 8 END; END");
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(8), connection.query("SELECT bt_refusal_atomic()").row(0).get<Poco::Int32>(0));
		connection.executeSimple("DO $$ BEGIN IF false THEN LISTEN bt_refusal; SET search_path TO public; END IF; END $$");
		connection.executeSimple("DROP TABLE IF EXISTS bt_refusal_copy; CREATE TABLE bt_refusal_copy (a text)");
		auto copy = connection.session().copyIn("COPY bt_refusal_copy (a) FROM STDIN (FORMAT csv)");
		const std::string data = "LISTEN bt_refusal\n\"SET search_path TO public; SELECT pg_advisory_lock(1)\"\nDECLARE c CURSOR WITH HOLD\n";
		copy->write(data.data(), data.size());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), copy->finish());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(3), connection.query("SELECT count(*) FROM bt_refusal_copy WHERE a ~ '^(LISTEN|SET|DECLARE)'")
			.row(0).get<Poco::Int64>(0));
		connection.executeSimple("DROP TABLE bt_refusal_copy; DROP FUNCTION bt_refusal_body(); DROP FUNCTION bt_refusal_atomic()");
	}

	void testAllowedBehindPooler()
		/// What is transaction-scoped works through the PgBouncer: SET LOCAL and set_config(..., true) seen
		/// inside their block, the _xact_ advisory locks, a temporary table ON COMMIT DROP used in its block,
		/// a cursor without hold in its block, RESET.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		std::vector<QueryResult> results = connection.executeSimple("BEGIN; SET LOCAL application_name = 'bt_local'; "
			"SELECT current_setting('application_name'); SELECT set_config('bt.flag', 'on', true); "
			"SELECT current_setting('bt.flag'); SELECT pg_advisory_xact_lock(4711), pg_try_advisory_xact_lock(4712); "
			"CREATE TEMP TABLE bt_scratch (a int) ON COMMIT DROP; INSERT INTO bt_scratch VALUES (1), (2); "
			"SELECT count(*)::int4 FROM bt_scratch; DECLARE bt_cursor CURSOR FOR SELECT 7; FETCH bt_cursor; COMMIT");
		CPPUNIT_ASSERT_EQUAL(std::string("bt_local"), results.at(2).row(0).get<std::string>(0));
		CPPUNIT_ASSERT_EQUAL(std::string("on"), results.at(4).row(0).get<std::string>(0));
		CPPUNIT_ASSERT(results.at(5).row(0).get<bool>(1));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(2), results.at(8).row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(7), results.at(10).row(0).get<Poco::Int32>(0));
		connection.executeSimple("RESET application_name");
		connection.query("SELECT pg_advisory_xact_lock($1)", {Poco::Int64(4711)});
		CPPUNIT_ASSERT(connection.query("SELECT to_regclass('bt_scratch') IS NULL").row(0).get<bool>(0));
	}

	void testNotRefusedWithSessionPooling()
		/// The refused statements run with Server Pooling=session (to the server itself, where each works):
		/// not one is refused.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(toServer("Server Pooling=session"));
		for (const Refused& refused: refusedStatements())
		{
			CPPUNIT_ASSERT_EQUAL_MESSAGE(refused.sql, std::string(), refusal([&] { connection.executeSimple(refused.sql); }));
		}
		CPPUNIT_ASSERT_EQUAL(std::string("public"), connection.query("SHOW search_path").row(0).get<std::string>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), connection.query("FETCH bt_refusal").row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), connection.query("EXECUTE bt_refusal").row(0).get<Poco::Int32>(0));
		connection.executeSimple("CLOSE bt_refusal; DROP TABLE bt_refusal; DEALLOCATE bt_refusal; SELECT pg_advisory_unlock_all(); UNLISTEN *");
	}

	void testReadYourWritesBehindPooler()
		/// Read Your Writes through the three PgBouncers with Server Pooling=transaction: the token is a WAL
		/// position, checked on the standby the read checkout gets (any of its server sessions replays the
		/// same WAL), so each of 20 writes on the primary is read back from a standby-preferring lease.
	{
		const std::string hosts = "127.0.0.1,127.0.0.2,127.0.0.3";
		{
			BlueTuskConnection setup = BlueTuskConnection::open(throughPooler(hosts, "Target Session Attributes=primary"));
			setup.executeSimple("DROP TABLE IF EXISTS bt_pooler_ryw; CREATE TABLE bt_pooler_ryw (n int)");
		}
		auto dataSource = BlueTuskDataSource::create(throughPooler(hosts, "Server Pooling=transaction;Read Your Writes=true"));
		int onStandby = 0;
		for (int i = 0; i < 20; ++i)
		{
			{
				BlueTuskConnection write = dataSource->open(TargetSessionAttributes::Primary);
				write.query("INSERT INTO bt_pooler_ryw VALUES ($1)", {i});
			}
			BlueTuskConnection read = dataSource->open(TargetSessionAttributes::PreferStandby);
			CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), read.query("SELECT count(*) FROM bt_pooler_ryw WHERE n = $1", {i}).row(0).get<Poco::Int64>(0));
			if (read.query("SELECT pg_is_in_recovery()").row(0).get<bool>(0)) ++onStandby;
		}
		std::cout << "read your writes through PgBouncer: 20 of 20 read back, " << onStandby << " on a standby" << std::endl;
		CPPUNIT_ASSERT(onStandby > 0);   // a standby that replayed the token served reads (the rest waited out the timeout)
		BlueTuskConnection cleanup = BlueTuskConnection::open(throughPooler(hosts, "Target Session Attributes=primary"));
		cleanup.executeSimple("DROP TABLE bt_pooler_ryw");
	}

	void testStartupParametersBehindPooler()
		/// PgBouncer refuses the startup parameter options that Search Path is sent in: the error says so and
		/// names the keywords and ignore_startup_parameters. Application Name passes (PgBouncer sets it on the
		/// server session of each transaction).
	{
		BlueTuskConnection named = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction;Application Name=bt_pooled_app"));
		for (int i = 0; i < 3; ++i)
			CPPUNIT_ASSERT_EQUAL(std::string("bt_pooled_app"), named.query("SELECT current_setting('application_name')").row(0).get<std::string>(0));
		try
		{
			BlueTuskConnection::open(throughPooler("127.0.0.1", "Search Path=public"));
			CPPUNIT_FAIL("PgBouncer accepted the startup parameter options");
		}
		catch (const Poco::Exception& exc)
		{
			const std::string text = exc.displayText();
			CPPUNIT_ASSERT_MESSAGE(text, text.find("unsupported startup parameter") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(text, text.find("Search Path") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(text, text.find("ignore_startup_parameters") != std::string::npos);
		}
	}

	void testOwnDeallocateOnServerIsNoPooler()
		/// Straight to the server with Server Pooling=auto (the default) and any target (no role probe at the
		/// open): the application's own DEALLOCATE ALL, then its prepared statement runs again. The 26000 it
		/// meets comes from the server itself (the probe's pg_backend_pid() equals BackendKeyData's process
		/// id), so the endpoint is not taken for a transaction pooler: SET and temp tables stay allowed.
	{
		BlueTuskConnection direct = BlueTuskConnection::open(toServer());
		const std::string endpoint = direct.connectedEndpoint().toString();
		Detail::forgetTransactionPooler(endpoint);
		PreparedStatement statement = direct.prepare("SELECT $1::int4 + 1");
		direct.executeSimple("DEALLOCATE ALL");
		try
		{
			direct.execute(statement, {Poco::Int32(41)});
		}
		catch (const BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("26000"), exc.sqlState());   // the documented error, or a retry
		}
		CPPUNIT_ASSERT_MESSAGE("the server was taken for a transaction pooler", !Detail::isTransactionPooler(endpoint));
		direct.executeSimple("SET application_name = 'own-deallocate'");
		direct.executeSimple("CREATE TEMP TABLE own_deallocate (a int)");
		BlueTuskConnection other = BlueTuskConnection::open(toServer());
		other.executeSimple("SET application_name = 'other'");
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), other.query("SELECT $1::int4 + 1", {Poco::Int32(41)}).row(0).get<Poco::Int32>(0));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerRefusalTest);
