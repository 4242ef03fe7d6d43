//
// PoolerRefusalsTest.cpp
//
// The scanner that finds what cannot work behind a transaction pooler (session/PoolerRefusals.h): each refused
// feature, what stays allowed (SET LOCAL, the _xact_ locks, ON COMMIT DROP, RESET, ...), and the text it must
// not look into (comments, string literals, E'' strings, dollar quotes, quoted identifiers, function bodies,
// DO blocks, COPY data), case, several statements in one text; and the refusal's message, exactly.
//

#include "session/PoolerRefusals.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Detail;

namespace {

std::string feature(const std::string& sql)
{
	return findPoolerRefusal(sql).feature;
}

} // namespace


class PoolerRefusalsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerRefusalsTest);
	CPPUNIT_TEST(testListen);
	CPPUNIT_TEST(testSet);
	CPPUNIT_TEST(testSetConfig);
	CPPUNIT_TEST(testAdvisoryLocks);
	CPPUNIT_TEST(testTemporaryTables);
	CPPUNIT_TEST(testHoldCursors);
	CPPUNIT_TEST(testPrepare);
	CPPUNIT_TEST(testCommentsAndLiterals);
	CPPUNIT_TEST(testDollarQuotes);
	CPPUNIT_TEST(testQuotedIdentifiers);
	CPPUNIT_TEST(testSeveralStatements);
	CPPUNIT_TEST(testFunctionBodies);
	CPPUNIT_TEST(testDoBlocks);
	CPPUNIT_TEST(testCopy);
	CPPUNIT_TEST(testWordsInOtherWords);
	CPPUNIT_TEST(testOrdinaryStatements);
	CPPUNIT_TEST(testMessage);
	CPPUNIT_TEST(testMessageDetected);
	CPPUNIT_TEST_SUITE_END();

public:
	void testListen()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("LISTEN orders"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("  listen \"Orders\""));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("LiStEn orders;"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("UNLISTEN orders"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("UNLISTEN *"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("NOTIFY orders, 'listen'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT pg_notify('orders', 'x')"));
	}

	void testSet()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("SET search_path TO app"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("set statement_timeout = 5000"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("SET TIME ZONE 'UTC'"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("SET ROLE app"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET SESSION"), feature("SET SESSION work_mem = '64MB'"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET SESSION CHARACTERISTICS"),
			feature("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET SESSION AUTHORIZATION"), feature("SET SESSION AUTHORIZATION app"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SET LOCAL search_path TO app"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("set local statement_timeout = 5000"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SET CONSTRAINTS ALL DEFERRED"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("RESET search_path"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("RESET ALL"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("UPDATE t SET a = 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SHOW search_path"));
	}

	void testSetConfig()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("set_config(..., false)"), feature("SELECT set_config('search_path', 'app', false)"));
		CPPUNIT_ASSERT_EQUAL(std::string("set_config(..., false)"), feature("select SET_CONFIG('a.b', lower('X'), FALSE)"));
		CPPUNIT_ASSERT_EQUAL(std::string("set_config(..., false)"), feature("SELECT pg_catalog.set_config('a.b', format('%s,%s', 1, 2), false)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT set_config('search_path', 'app', true)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT set_config('a.b', f(1, false), true)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT set_config($1, $2, $3)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT current_setting('search_path')"));
	}

	void testAdvisoryLocks()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock()"), feature("SELECT pg_advisory_lock(42)"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock_shared()"), feature("select PG_ADVISORY_LOCK_SHARED (1, 2)"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_try_advisory_lock()"), feature("SELECT pg_catalog.pg_try_advisory_lock($1)"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_try_advisory_lock_shared()"),
			feature("SELECT id FROM jobs WHERE pg_try_advisory_lock_shared(id) LIMIT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT pg_advisory_xact_lock(42)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT pg_try_advisory_xact_lock(42)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT pg_advisory_xact_lock_shared(42), pg_try_advisory_xact_lock_shared(1)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT pg_advisory_lock FROM t"));   // a column of that name
	}

	void testTemporaryTables()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY TABLE without ON COMMIT DROP"), feature("CREATE TEMP TABLE t (a int)"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY TABLE without ON COMMIT DROP"), feature("create temporary table t as select 1"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY TABLE without ON COMMIT DROP"), feature("CREATE LOCAL TEMP TABLE t (a int)"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY TABLE without ON COMMIT DROP"), feature("CREATE GLOBAL TEMPORARY TABLE t (a int)"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY TABLE without ON COMMIT DROP"),
			feature("CREATE TEMP TABLE t (a int) ON COMMIT DELETE ROWS"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY VIEW"), feature("CREATE OR REPLACE TEMP VIEW v AS SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY SEQUENCE"), feature("CREATE TEMPORARY SEQUENCE s"));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT ... INTO TEMPORARY"), feature("SELECT * INTO TEMP TABLE t FROM orders"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE TEMP TABLE t (a int) ON COMMIT DROP"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("create temporary table t on commit drop as select 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE TABLE temp (a int)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("INSERT INTO temp VALUES (1)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE UNLOGGED TABLE t (a int)"));
	}

	void testHoldCursors()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("DECLARE ... WITH HOLD"), feature("DECLARE c CURSOR WITH HOLD FOR SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string("DECLARE ... WITH HOLD"), feature("declare c no scroll cursor with hold for select 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DECLARE c CURSOR WITHOUT HOLD FOR SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DECLARE c CURSOR FOR SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DECLARE c CURSOR FOR WITH hold AS (SELECT 1) SELECT * FROM hold"));
	}

	void testPrepare()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("PREPARE (an SQL-level prepared statement)"), feature("PREPARE q (int) AS SELECT $1"));
		CPPUNIT_ASSERT_EQUAL(std::string("PREPARE (an SQL-level prepared statement)"), feature("prepare q as select 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("PREPARE TRANSACTION 'bt1'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("COMMIT PREPARED 'bt1'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DEALLOCATE ALL"));
	}

	void testCommentsAndLiterals()
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("-- LISTEN x\nSELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("/* SET search_path TO a */ SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("/* outer /* nested */ still a comment: LISTEN x */ SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("/* a comment */ LISTEN x"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("-- a comment\nLISTEN x"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT 'pg_advisory_lock(1)'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT 'it''s; LISTEN x'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT E'it\\'s; LISTEN x'"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock()"),
			feature("SELECT E'\\\\', pg_advisory_lock(1)"));   // E'\\' ends after the escaped backslash
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT U&'d\\0061t; LISTEN x'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT X'1F', B'01', N'; SET a = 1'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT 1 -- ; LISTEN x"));
	}

	void testDollarQuotes()
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DO $$BEGIN PERFORM pg_advisory_lock(1); END$$"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT $tag$ ; LISTEN x; $$ still inside $tag$"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("SELECT $a$ x $a$; LISTEN x"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock()"),
			feature("SELECT pg_advisory_lock($1)"));   // $1 is a parameter, not a quote
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("SELECT a$b$ FROM t; LISTEN x"));   // a$b$ is an identifier
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT $$ unterminated LISTEN"));
	}

	void testQuotedIdentifiers()
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT \"LISTEN\" FROM t"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT \"a;b\" FROM t; SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT 1 AS \"SET x\""));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT \"Pg_Advisory_Lock\"(1)"));   // another function
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock()"), feature("SELECT \"pg_advisory_lock\"(1)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT \"with\"\"hold\" FROM t"));
	}

	void testSeveralStatements()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("BEGIN; SET search_path TO app; COMMIT"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("BEGIN; SET LOCAL search_path TO app; SELECT 1; COMMIT"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("SELECT 1;LISTEN x"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature(";;SELECT 1;;"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("BEGIN; CREATE TEMP TABLE t (a int) ON COMMIT DROP; INSERT INTO t VALUES (1); COMMIT"));
		CPPUNIT_ASSERT_EQUAL(std::string("DECLARE ... WITH HOLD"), feature("BEGIN; DECLARE c CURSOR WITH HOLD FOR SELECT 1; COMMIT"));
	}

	void testFunctionBodies()
		/// A routine's body runs when it is called, in the caller's transaction: defining one is never refused
		/// (doc/poolers.md, "What the scanner does not look into"), whatever the body's form.
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN SET x = 1; END $$"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE OR REPLACE FUNCTION f() RETURNS void AS $body$ BEGIN LISTEN x; "
			"PERFORM pg_advisory_lock(1); CREATE TEMP TABLE t (a int); END $body$ LANGUAGE plpgsql"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE FUNCTION f() RETURNS text LANGUAGE sql AS 'SELECT set_config(''a.b'', ''c'', false)'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE FUNCTION f() RETURNS bigint LANGUAGE sql RETURN pg_advisory_lock(1)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("create procedure p() language sql begin atomic select pg_advisory_lock(1); "
			"select case when true then pg_try_advisory_lock(2) end; end"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CREATE FUNCTION f() RETURNS int LANGUAGE sql SET search_path = app AS $$ SELECT 1 $$"));
		// The statement after the body is a statement of its own.
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; "
			"SELECT CASE WHEN true THEN 2 END; END; LISTEN x"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql; SET x = 1"));
		// Calling a routine is not looked into either (its body is on the server); the call's own text is.
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT f()"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("CALL p()"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock()"), feature("SELECT f(pg_advisory_lock(1))"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("ALTER FUNCTION f() SET search_path = app"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("ALTER ROLE app SET statement_timeout = 5000"));
	}

	void testDoBlocks()
		/// A DO block runs now, but its body is a string in the block's language: not looked into.
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DO $$ BEGIN LISTEN x; END $$"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DO $$BEGIN SET search_path TO app; PERFORM pg_advisory_lock(1); END$$"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DO LANGUAGE plpgsql $do$ BEGIN EXECUTE 'SET x = 1'; END $do$"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DO 'BEGIN CREATE TEMP TABLE t (a int); END'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DO E'BEGIN PERFORM set_config(\\'a.b\\', \\'c\\', false); END'"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("DO $$ BEGIN NULL; END $$; LISTEN x"));
	}

	void testCopy()
		/// The COPY statement is SQL and is scanned; its data (CopyData) never reaches the scanner.
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("COPY t (a, b) FROM STDIN"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("COPY t (listen, hold) FROM STDIN WITH (FORMAT csv)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("COPY (SELECT 'SET x = 1; LISTEN y') TO STDOUT"));
		CPPUNIT_ASSERT_EQUAL(std::string("the session-level advisory lock pg_advisory_lock()"),
			feature("COPY (SELECT pg_advisory_lock(1)) TO STDOUT"));
	}

	void testWordsInOtherWords()
		/// The quick check for the words a refusal needs finds them inside other words too (OFFSET, RESET):
		/// the lexer then decides; and a text without any of them is not refused.
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT * FROM t ORDER BY a LIMIT 1 OFFSET 2"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("RESET ALL"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT threshold, template, advisory_notes, preparer, listener FROM t"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT $1::int4 + 1"));
		CPPUNIT_ASSERT_EQUAL(std::string("SET without LOCAL"), feature("sEt x = 1"));
		CPPUNIT_ASSERT_EQUAL(std::string("LISTEN"), feature("SELECT 1;\n\tLISTEN\tx"));
		CPPUNIT_ASSERT_EQUAL(std::string("PREPARE (an SQL-level prepared statement)"), feature("PREPARE"));
		CPPUNIT_ASSERT_EQUAL(std::string("CREATE TEMPORARY TABLE without ON COMMIT DROP"), feature("CREATE TEMP TABLE t()"));
	}

	void testOrdinaryStatements()
	{
		CPPUNIT_ASSERT_EQUAL(std::string(), feature(""));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("   "));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT 1"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT * FROM orders WHERE id = $1 AND note <> 'x'"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("WITH x AS (SELECT 1) SELECT * FROM x"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("DISCARD ALL"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT pg_advisory_unlock(1)"));
		CPPUNIT_ASSERT_EQUAL(std::string(), feature("SELECT 1.5e3, 0x1F, 1_000"));
	}

	void testMessage()
		/// The keyword, the feature and the endpoint once (as "server host:port", which the query paths' own
		/// context does not add again), why, instead, and no SQL text.
	{
		const PoolerRefusal refusal = findPoolerRefusal("LISTEN orders");
		CPPUNIT_ASSERT_EQUAL(std::string("Server Pooling=transaction: LISTEN cannot work behind a transaction pooler (server db-a:6432): "
			"notifications go to the server session that ran LISTEN; the pooler hands the server session to other clients once the "
			"transaction ends, and this client's next transaction may run on another one; listen on a connection that does not go "
			"through the transaction pooler (a connection string to the server itself) (doc/poolers.md). Nothing was sent."),
			poolerRefusalMessage(refusal, "db-a:6432", false));
		const std::string lock = poolerRefusalMessage(findPoolerRefusal("SELECT pg_advisory_lock(1)"), "db-a:6432", false);
		CPPUNIT_ASSERT_EQUAL(std::string("Server Pooling=transaction: the session-level advisory lock pg_advisory_lock() cannot work "
			"behind a transaction pooler (server db-a:6432): the lock stays"), lock.substr(0, lock.find(" with the server session")));
		for (const char* sql: {"LISTEN orders", "SET search_path TO secret_schema", "SELECT set_config('a.password', 'hunter2', false)",
			"CREATE TEMP TABLE secret_rows (a int)", "DECLARE c CURSOR WITH HOLD FOR SELECT 1", "PREPARE q AS SELECT 1",
			"SELECT pg_try_advisory_lock_shared(1)"})
		{
			const std::string message = poolerRefusalMessage(findPoolerRefusal(sql), "db-a:6432", false);
			CPPUNIT_ASSERT_MESSAGE(message, message.find("Server Pooling=transaction: ") == 0);
			CPPUNIT_ASSERT_MESSAGE(message, message.find("db-a:6432") == message.rfind("db-a:6432"));   // once
			CPPUNIT_ASSERT_MESSAGE(message, message.find(" cannot work behind a transaction pooler (server db-a:6432): ") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(message, message.size() > 20 && message.compare(message.size() - 19, 19, ". Nothing was sent.") == 0);
			for (const char* secret: {"orders", "secret", "hunter2"})   // no SQL text: it may hold secrets
				CPPUNIT_ASSERT_MESSAGE(message, message.find(secret) == std::string::npos);
		}
	}

	void testMessageDetected()
		/// With Server Pooling=auto the message says auto found the pooler; the endpoint still once.
	{
		const std::string detected = poolerRefusalMessage(findPoolerRefusal("SET x = 1"), "db-a:6432", true);
		CPPUNIT_ASSERT_EQUAL(std::string("Server Pooling=transaction (Server Pooling=auto found the transaction pooler): SET without "
			"LOCAL cannot work behind a transaction pooler (server db-a:6432): the setting stays"),
			detected.substr(0, detected.find(" on the server session it ran on")));
		CPPUNIT_ASSERT(detected.find("db-a:6432") == detected.rfind("db-a:6432"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerRefusalsTest);
