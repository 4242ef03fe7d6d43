//
// SchemaChangeTest.cpp
//
// The statement cache across schema changes (doc/statements.md): DDL run by the session marks its
// cached statements stale (prepared again with their next run, in the same write); DDL run by another
// session is found by the error (42804 from parameter types inferred for the old table, 0A000 from a
// changed result) or by a value the old types refuse, and retried once outside a transaction block;
// inside one the error says what happened. The pool's own reset marks nothing.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Transaction.h"
#include "TransportTestSupport.h"
#include "Poco/DateTime.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string scalar(Session& session, const std::string& sql)
{
	return session.executeSimple(sql).front().rows.at(0).at(0).value_or("NULL");
}


class SharedTable
	/// A table of the test's own (not TEMP: other sessions must see it) and the other session that
	/// creates, changes and at the end drops it.
{
public:
	SharedTable(const std::string& name, const std::string& columns):
		_owner(openNode(1)),
		_name(name)
	{
		recreate(columns);
	}

	Session& session()
	{
		return *_owner;
	}

	~SharedTable()
	{
		try
		{
			_owner->executeSimple("DROP TABLE IF EXISTS " + _name);
		}
		catch (...)
		{
		}
	}

	void recreate(const std::string& columns)
	{
		_owner->executeSimple("DROP TABLE IF EXISTS " + _name + "; CREATE TABLE " + _name + " (" + columns + ")");
	}

private:
	ProtocolSession::Ptr _owner;
	std::string _name;
};

} // namespace


class SchemaChangeTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SchemaChangeTest);
	CPPUNIT_TEST(testOwnDdlMarksCachedStatements);
	CPPUNIT_TEST(testOwnDdlKeepsOneName);
	CPPUNIT_TEST(testDeallocateAllByTheUser);
	CPPUNIT_TEST(testPoolResetMarksNothing);
	CPPUNIT_TEST(testOtherSessionDdlRetriedOutsideTransaction);
	CPPUNIT_TEST(testOtherSessionDdlChangesResult);
	CPPUNIT_TEST(testOtherSessionDdlRefusedValueRetried);
	CPPUNIT_TEST(testOtherSessionDdlInsideTransactionSaysStale);
	CPPUNIT_TEST(testGenuineMismatchStillFails);
	CPPUNIT_TEST(testBatchAfterOtherSessionDdl);
	CPPUNIT_TEST_SUITE_END();

public:
	void testOwnDdlMarksCachedStatements()
	{
		// A text value's type is left to the server: prepared for a varchar column it is varchar, and the
		// server keeps that type for the named statement however the table changes. Before the cache followed the schema, the
		// second insert failed with 42804 (column "v" is of type integer but expression is of type
		// character varying).
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->executeSimple("CREATE TEMP TABLE own_ddl (v varchar(30))");
		session->query("INSERT INTO own_ddl VALUES ($1)", {"abc"});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().prepared);
		session->executeSimple("DROP TABLE own_ddl");
		session->executeSimple("CREATE TEMP TABLE own_ddl (v integer)");
		session->query("INSERT INTO own_ddl VALUES ($1)", {"42"});
		CPPUNIT_ASSERT_EQUAL(std::string("42"), scalar(*session, "SELECT v FROM own_ddl"));
		CPPUNIT_ASSERT_EQUAL(std::string("integer"), scalar(*session, "SELECT pg_typeof(v)::text FROM own_ddl"));
		const StatementStatistics statistics = session->statementStatistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), statistics.reprepared);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), statistics.cacheHits);
		// The statement on the server is the one prepared again (int4), under the same name.
		CPPUNIT_ASSERT_EQUAL(std::string("{integer}"), scalar(*session,
			"SELECT parameter_types::text FROM pg_prepared_statements WHERE statement = 'INSERT INTO own_ddl VALUES ($1)'"));
	}

	void testOwnDdlKeepsOneName()
	{
		// The stale statement is prepared again under its own name (Close + Parse in the write of its run):
		// one name on the server, one re-prepare counted, no new cache entry.
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->executeSimple("CREATE TEMP TABLE own_rt (a int)");
		for (int i = 0; i < 3; ++i) session->query("INSERT INTO own_rt VALUES ($1)", {i});
		session->executeSimple("ALTER TABLE own_rt ADD COLUMN b text");
		session->query("INSERT INTO own_rt VALUES ($1)", {3});
		const StatementStatistics statistics = session->statementStatistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), statistics.prepared - statistics.reprepared);   // one name ever
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), statistics.reprepared);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT count(*) FROM pg_prepared_statements"));
		CPPUNIT_ASSERT_EQUAL(std::string("4"), scalar(*session, "SELECT count(*) FROM own_rt"));
	}

	void testDeallocateAllByTheUser()
	{
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->query("SELECT 40 + $1", {2});
		session->query("SELECT 30 + $1", {2});
		session->executeSimple("DEALLOCATE ALL");
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM pg_prepared_statements"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), session->query("SELECT 40 + $1", {2}).row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(32), session->query("SELECT 30 + $1", {2}).row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), session->statementStatistics().reprepared);
		CPPUNIT_ASSERT_EQUAL(std::string("2"), scalar(*session, "SELECT count(*) FROM pg_prepared_statements"));
	}

	void testPoolResetMarksNothing()
	{
		// The reset that keeps statements ends with DISCARD SEQUENCES and DISCARD TEMP: neither may make the
		// cache prepare everything again on the next lease.
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->query("SELECT 1 + $1", {1});
		session->reset(true);
		session->query("SELECT 1 + $1", {1});
		const StatementStatistics statistics = session->statementStatistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), statistics.reprepared);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), statistics.cacheHits);
	}

	void testOtherSessionDdlRetriedOutsideTransaction()
	{
		SharedTable table("schema_change_retry", "v varchar(30)");
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->query("INSERT INTO schema_change_retry VALUES ($1)", {"abc"});
		table.recreate("v integer");
		session->query("INSERT INTO schema_change_retry VALUES ($1)", {"7"});   // 42804 once, then prepared again
		CPPUNIT_ASSERT_EQUAL(std::string("7"), scalar(*session, "SELECT v FROM schema_change_retry"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().reprepared);
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
	}

	void testOtherSessionDdlChangesResult()
	{
		SharedTable table("schema_change_result", "a int");
		table.session().executeSimple("INSERT INTO schema_change_result VALUES (1)");
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), session->query("SELECT * FROM schema_change_result").columns.size());
		table.recreate("a int, b text");
		table.session().executeSimple("INSERT INTO schema_change_result VALUES (2, 'two')");
		QueryResult after = session->query("SELECT * FROM schema_change_result");   // 0A000 once
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), after.columns.size());
		CPPUNIT_ASSERT_EQUAL(std::string("two"), after.row(0).get<std::string>("b"));
	}

	void testOtherSessionDdlRefusedValueRetried()
	{
		// A statement prepared with the types the server inferred: the old int4 refuses a timestamp before
		// anything is sent; asked again, the server says timestamp.
		SharedTable table("schema_change_refused", "v int");
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement insert = session->prepareCached("INSERT INTO schema_change_refused VALUES ($1)");
		session->execute(insert, {5});
		table.recreate("v timestamp");
		const Poco::DateTime born(2024, 2, 29, 12, 30, 15);
		session->execute(insert, {born});
		CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29 12:30:15"), scalar(*session, "SELECT v::text FROM schema_change_refused"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(1114), insert.parameterTypes().at(0));   // timestamp
	}

	void testOtherSessionDdlInsideTransactionSaysStale()
	{
		SharedTable table("schema_change_inside", "v varchar(30)");
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->query("INSERT INTO schema_change_inside VALUES ($1)", {"abc"});
		table.recreate("v integer");
		{
			Transaction transaction(*session);
			try
			{
				session->query("INSERT INTO schema_change_inside VALUES ($1)", {"8"});
				CPPUNIT_FAIL("a stale statement inside a transaction block is not retried");
			}
			catch (BlueTuskServerException& exc)
			{
				CPPUNIT_ASSERT_EQUAL(std::string("42804"), exc.sqlState());
				CPPUNIT_ASSERT(exc.message().find("statement cache") != std::string::npos);
				CPPUNIT_ASSERT(exc.message().find("roll back and run the transaction again") != std::string::npos);
			}
			CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Failed);
		}   // rolled back
		session->query("INSERT INTO schema_change_inside VALUES ($1)", {"8"});   // prepared again on its next use
		CPPUNIT_ASSERT_EQUAL(std::string("8"), scalar(*session, "SELECT v FROM schema_change_inside"));
	}

	void testGenuineMismatchStillFails()
	{
		// A value the current table cannot take fails as before (once re-prepared, the same error), and the
		// session stays usable.
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->executeSimple("CREATE TEMP TABLE genuine (v integer)");
		session->query("INSERT INTO genuine VALUES ($1)", {"1"});
		try
		{
			session->query("INSERT INTO genuine VALUES ($1)", {"not a number"});
			CPPUNIT_FAIL("text that is no integer must be refused");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("22P02"), exc.sqlState());
		}
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), session->statementStatistics().reprepared);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT count(*) FROM genuine"));
	}

	void testBatchAfterOtherSessionDdl()
	{
		SharedTable table("schema_change_batch", "v varchar(30)");
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement insert = session->prepareCached("INSERT INTO schema_change_batch VALUES ($1)");
		session->executeBatch(insert, {{"a"}, {"b"}});
		table.recreate("v bigint");
		std::vector<Parameters> rows;
		for (int i = 0; i < 300; ++i) rows.push_back({std::to_string(i)});   // more than one chunk
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(300), session->executeBatch(insert, rows));
		CPPUNIT_ASSERT_EQUAL(std::string("44850"), scalar(*session, "SELECT sum(v) FROM schema_change_batch"));
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(SchemaChangeTest);
