//
// StatementTest.cpp
//
// Prepared statements, the statement cache and typed values against the primary of the local cluster:
// Describe before execution, every type's round trip compared with the text PostgreSQL itself prints
// (what psql shows), NULL vs empty, a 1 MB bytea, DDL invalidation inside and outside transactions, LRU
// eviction on the server, and bad input that leaves the session usable.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Transaction.h"
#include "TransportTestSupport.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string scalar(Session& session, const std::string& sql)
{
	return session.executeSimple(sql).front().rows.at(0).at(0).value_or("NULL");
}


int preparedOnServer(Session& session)
{
	return std::stoi(scalar(session, "SELECT count(*) FROM pg_prepared_statements"));
}


template <typename F>
std::string sqlStateOf(F&& action)
{
	try
	{
		action();
	}
	catch (BlueTuskServerException& exc)
	{
		return exc.sqlState();
	}
	return "(none)";
}

} // namespace


class StatementTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(StatementTest);
	CPPUNIT_TEST(testPrepareDescribesBeforeExecution);
	CPPUNIT_TEST(testPrepareSyntaxErrorKeepsSession);
	CPPUNIT_TEST(testEveryTypeRoundTrip);
	CPPUNIT_TEST(testArraysRoundTrip);
	CPPUNIT_TEST(testNullAndEmpty);
	CPPUNIT_TEST(testLargeBytea);
	CPPUNIT_TEST(testAutoPrepareAfterMinUsages);
	CPPUNIT_TEST(testCacheEvictionClosesOnServer);
	CPPUNIT_TEST(testDdlRecoversOutsideTransaction);
	CPPUNIT_TEST(testDdlErrorsInsideTransaction);
	CPPUNIT_TEST(testDiscardAllRecovers);
	CPPUNIT_TEST(testWrongParameterCount);
	CPPUNIT_TEST(testWrongParameterType);
	CPPUNIT_TEST(testHandleOnAnotherSession);
	CPPUNIT_TEST(testResetKeepsStatements);
	CPPUNIT_TEST(testPrepareCached);
	CPPUNIT_TEST(testBatch);
	CPPUNIT_TEST(testBatchFailureRollsBack);
	CPPUNIT_TEST(testFetchInPieces);
	CPPUNIT_TEST(testFetchInterruptedByAnotherCommand);
	CPPUNIT_TEST(testFetchError);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPrepareDescribesBeforeExecution()
	{
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement statement = session->prepare("SELECT $1::int4 + 1 AS next, $2::text AS label, now() AS at");
		CPPUNIT_ASSERT(statement.isValid());
		CPPUNIT_ASSERT(std::vector<Poco::UInt32>({TypeOid::Int4, TypeOid::Text}) == statement.parameterTypes());
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), statement.columns().size());
		CPPUNIT_ASSERT_EQUAL(std::string("next"), statement.columns()[0].name);
		CPPUNIT_ASSERT_EQUAL(TypeOid::Int4, statement.columns()[0].typeOid);
		CPPUNIT_ASSERT_EQUAL(TypeOid::TimestampTz, statement.columns()[2].typeOid);
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(1), statement.columns()[0].formatCode);   // binary results asked for
		CPPUNIT_ASSERT_EQUAL(1, preparedOnServer(*session));
		QueryResult result = session->execute(statement, {41, "x"});
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), result.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), result.row(0).get<Poco::Int32>("next"));
		CPPUNIT_ASSERT_EQUAL(std::string("x"), result.row(0).get<std::string>(1));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), result.commandTag);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().prepared);
		session->unprepare(statement);
		CPPUNIT_ASSERT(!statement.isValid());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), session->query("SELECT 1").row(0).get<std::string>(0));   // the Close goes first
		CPPUNIT_ASSERT_EQUAL(0, preparedOnServer(*session));
	}

	void testPrepareSyntaxErrorKeepsSession()
	{
		ProtocolSession::Ptr session = openNode(1);
		CPPUNIT_ASSERT_EQUAL(std::string("42601"), sqlStateOf([&] { session->prepare("SELEC 1"); }));
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(2), session->query("SELECT 1 + 1").row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(std::string("42P01"), sqlStateOf([&] { session->prepare("SELECT * FROM no_such_table_x"); }));
		CPPUNIT_ASSERT_EQUAL(0, preparedOnServer(*session));
	}

	void testEveryTypeRoundTrip()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("SET TimeZone = 'UTC'; CREATE TEMP TABLE every_type (b bool, i2 int2, i4 int4, i8 int8, f4 float4, "
			"f8 float8, t text, v varchar(20), n numeric, y bytea, u uuid, d date, tm time, ts timestamp, tz timestamptz, j json, jb jsonb)");
		PreparedStatement insert = session->prepare("INSERT INTO every_type VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)");
		const Poco::UUID uuid("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
		const Poco::DateTime leap(2024, 2, 29, 23, 59, 58, 123, 456);
		Parameters values{true, static_cast<Poco::Int16>(-32768), -2147483647 - 1, static_cast<Poco::Int64>(-9223372036854775807LL - 1), 1.5f,
			-0.1, "h\xC3\xA9llo", "var", "12345678901234567890.000000000001", Bytes{0, 1, 0xFE, 0xFF}, uuid,
			Parameter::date(Poco::DateTime(1999, 12, 31)), Parameter::time(Poco::Timespan(43200500000LL)), Parameter::timestamp(leap),
			Poco::Timestamp(946684800000001LL), "{\"a\": [1, 2]}", "{\"b\": null}"};
		CPPUNIT_ASSERT_EQUAL(std::string("INSERT 0 1"), session->execute(insert, values).commandTag);
		// the same row read back in binary (prepared) and as text (simple query: what psql prints)
		PreparedStatement select = session->prepare("SELECT * FROM every_type");
		QueryResult binary = session->execute(select);
		QueryResult text = session->executeSimple("SELECT * FROM every_type").front();
		CPPUNIT_ASSERT_EQUAL(std::size_t(17), binary.columns.size());
		for (std::size_t i = 0; i < binary.columns.size(); ++i)
		{
			const std::string printed = *text.rows.at(0).at(i);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(binary.columns[i].name, printed, binary.row(0).get<std::string>(i));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(binary.columns[i].name, printed, text.row(0).get<std::string>(i));
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(0), binary.columns[8].formatCode);   // numeric stays text
		RowView row = binary.row(0);
		CPPUNIT_ASSERT_EQUAL(true, row.get<bool>("b"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(-32768), row.get<Poco::Int16>("i2"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(-2147483647 - 1), row.get<Poco::Int32>("i4"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-9223372036854775807LL - 1), row.get<Poco::Int64>("i8"));
		CPPUNIT_ASSERT_EQUAL(1.5f, row.get<float>("f4"));
		CPPUNIT_ASSERT_EQUAL(-0.1, row.get<double>("f8"));
		CPPUNIT_ASSERT_EQUAL(std::string("h\xC3\xA9llo"), row.get<std::string>("t"));
		CPPUNIT_ASSERT(Bytes({0, 1, 0xFE, 0xFF}) == row.get<Bytes>("y"));
		CPPUNIT_ASSERT(uuid == row.get<Poco::UUID>("u"));
		CPPUNIT_ASSERT_EQUAL(31, row.get<Poco::DateTime>("d").day());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(43200500000LL), row.get<Poco::Timespan>("tm").totalMicroseconds());
		CPPUNIT_ASSERT(leap == row.get<Poco::DateTime>("ts"));   // microseconds kept
		CPPUNIT_ASSERT_EQUAL(Poco::Timestamp::TimeVal(946684800000001LL), row.get<Poco::Timestamp>("tz").epochMicroseconds());
		CPPUNIT_ASSERT_EQUAL(std::string("{\"b\": null}"), row.get<std::string>("jb"));
		// the text result decodes to the same values
		CPPUNIT_ASSERT(leap == text.row(0).get<Poco::DateTime>("ts"));
		CPPUNIT_ASSERT(uuid == text.row(0).get<Poco::UUID>("u"));
		CPPUNIT_ASSERT_EQUAL(-0.1, text.row(0).get<double>("f8"));
	}

	void testArraysRoundTrip()
	{
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement statement = session->prepare("SELECT ARRAY[1, NULL, 3]::int4[] AS a, '{}'::text[] AS e, "
			"ARRAY['a b', '', 'x\"y', NULL]::text[] AS t, ARRAY['2000-01-01'::date] AS d, '{{1,2},{3,4}}'::int4[] AS m");
		QueryResult binary = session->execute(statement);
		QueryResult text = session->executeSimple(statement.sql()).front();
		for (std::size_t i = 0; i < binary.columns.size(); ++i)
			CPPUNIT_ASSERT_EQUAL_MESSAGE(binary.columns[i].name, *text.rows.at(0).at(i), binary.row(0).get<std::string>(i));
		std::vector<std::optional<Poco::Int32>> a = binary.row(0).get<std::vector<std::optional<Poco::Int32>>>("a");
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), a.size());
		CPPUNIT_ASSERT(!a[1]);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(3), *a[2]);
		CPPUNIT_ASSERT(binary.row(0).get<std::vector<std::string>>("e").empty());
		CPPUNIT_ASSERT_EQUAL(std::string("x\"y"), *binary.row(0).get<std::vector<std::optional<std::string>>>("t").at(2));
		CPPUNIT_ASSERT_EQUAL(std::string("x\"y"), *text.row(0).get<std::vector<std::optional<std::string>>>("t").at(2));
		CPPUNIT_ASSERT_EQUAL(2000, binary.row(0).get<std::vector<Poco::DateTime>>("d").at(0).year());
		try
		{
			binary.row(0).get<std::vector<Poco::Int32>>("m");
			CPPUNIT_FAIL("a two-dimensional array is refused");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("column 5 \"m\" (int4[])") == 0);
		}
	}

	void testNullAndEmpty()
	{
		ProtocolSession::Ptr session = openNode(1);
		QueryResult result = session->query("SELECT $1::text AS a, $2::text AS b, $3::int4 AS c", {"", Parameter::null(), std::optional<int>()});
		CPPUNIT_ASSERT(!result.row(0).isNull("a"));
		CPPUNIT_ASSERT_EQUAL(std::string(), result.row(0).get<std::string>("a"));
		CPPUNIT_ASSERT(result.row(0).isNull("b"));
		CPPUNIT_ASSERT(!result.row(0).get<std::optional<Poco::Int32>>("c"));
		try
		{
			result.row(0).get<Poco::Int32>("c");
			CPPUNIT_FAIL("NULL into a non-optional int32 must throw");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("column 3 \"c\" (int4) is NULL and cannot be read as int32; read it as std::optional or test isNull() first"), exc.message());
		}
	}

	void testLargeBytea()
	{
		ProtocolSession::Ptr session = openNode(1);
		Bytes big(1 << 20);
		for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>((i * 7919) & 0xFF);
		PreparedStatement echo = session->prepare("SELECT $1::bytea AS data, length($1::bytea) AS size, md5($1::bytea) AS digest");
		QueryResult result = session->execute(echo, {big});
		CPPUNIT_ASSERT(big == result.row(0).get<Bytes>("data"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1 << 20), result.row(0).get<Poco::Int32>("size"));
		// and through the unnamed statement, whose result comes back as hex text
		QueryResult unnamed = session->query("SELECT $1::bytea", {big});
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(0), unnamed.columns[0].formatCode);
		CPPUNIT_ASSERT(big == unnamed.row(0).get<Bytes>(0));
	}

	void testAutoPrepareAfterMinUsages()
	{
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=3");
		const std::string sql = "SELECT $1::int8 * 2 AS doubled";
		for (int run = 1; run <= 5; ++run)
		{
			QueryResult result = session->query(sql, {static_cast<Poco::Int64>(run)});
			CPPUNIT_ASSERT_EQUAL(Poco::Int64(run * 2), result.row(0).get<Poco::Int64>("doubled"));
			// runs 1-2 unnamed, run 3 prepares it (text rows), runs 4-5 are cache hits with binary rows
			CPPUNIT_ASSERT_EQUAL_MESSAGE("run " + std::to_string(run), Poco::Int16(run >= 4 ? 1 : 0), result.columns[0].formatCode);
		}
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().prepared);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), session->statementStatistics().cacheHits);
		CPPUNIT_ASSERT_EQUAL(1, preparedOnServer(*session));
		ProtocolSession::Ptr off = openNode(1, "Max Auto Prepare=0");
		for (int run = 0; run < 4; ++run) off->query(sql, {1});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), off->statementStatistics().prepared);
		CPPUNIT_ASSERT_EQUAL(0, preparedOnServer(*off));
	}

	void testCacheEvictionClosesOnServer()
	{
		ProtocolSession::Ptr session = openNode(1, "Max Auto Prepare=2;Auto Prepare Min Usages=1");
		for (int i = 1; i <= 3; ++i) session->query("SELECT " + std::to_string(i) + " AS n");
		session->query("SELECT 2 AS n");   // a hit; also sends the Close of the evicted statement
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), session->statementStatistics().prepared);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().evictions);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().cacheHits);
		CPPUNIT_ASSERT_EQUAL(2, preparedOnServer(*session));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 3 AS n"), scalar(*session, "SELECT string_agg(statement, ',' ORDER BY statement) FROM pg_prepared_statements WHERE statement LIKE '%3%'"));
	}

	void testDdlRecoversOutsideTransaction()
	{
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->executeSimple("CREATE TEMP TABLE ddl_outside (a int); INSERT INTO ddl_outside VALUES (1)");
		PreparedStatement star = session->prepare("SELECT * FROM ddl_outside");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), session->execute(star).columns.size());
		session->query("SELECT * FROM ddl_outside");   // cached too
		session->executeSimple("ALTER TABLE ddl_outside ADD COLUMN b text DEFAULT 'x'");
		QueryResult after = session->execute(star);
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), after.columns.size());
		CPPUNIT_ASSERT_EQUAL(std::string("x"), after.row(0).get<std::string>("b"));
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), star.columns().size());   // the handle shows the new columns
		CPPUNIT_ASSERT_EQUAL(std::string("x"), session->query("SELECT * FROM ddl_outside").row(0).get<std::string>("b"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), session->statementStatistics().reprepared);
	}

	void testDdlErrorsInsideTransaction()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE ddl_inside (a int); INSERT INTO ddl_inside VALUES (1)");
		PreparedStatement star = session->prepare("SELECT * FROM ddl_inside");
		session->execute(star);
		{
			Transaction transaction(*session);
			session->executeSimple("ALTER TABLE ddl_inside ADD COLUMN b int DEFAULT 7");
			CPPUNIT_ASSERT_EQUAL(std::string("0A000"), sqlStateOf([&] { session->execute(star); }));
			CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Failed);
			CPPUNIT_ASSERT_EQUAL(std::string("25P02"), sqlStateOf([&] { session->executeSimple("SELECT 1"); }));
		}   // rolled back: the column is gone again
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		QueryResult after = session->execute(star);   // prepared again on its next use
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), after.columns.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), after.row(0).get<Poco::Int32>("a"));
	}

	void testDiscardAllRecovers()
	{
		ProtocolSession::Ptr session = openNode(1, "Auto Prepare Min Usages=1");
		session->query("SELECT 41 + $1", {1});
		session->executeSimple("DISCARD ALL");   // drops every prepared statement behind BlueTusk's back
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), session->query("SELECT 41 + $1", {1}).row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().reprepared);
	}

	void testWrongParameterCount()
	{
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement two = session->prepare("SELECT $1::int4 + $2::int4");
		try
		{
			session->execute(two, {1, 2, 3});
			CPPUNIT_FAIL("three values for two parameters must be refused");
		}
		catch (BlueTuskUsageException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("the statement has 2 parameters but 3 values were given: \"SELECT $1::int4 + $2::int4\""), exc.message());
			CPPUNIT_ASSERT(isSessionUsable(exc));
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(3), session->execute(two, {1, 2}).row(0).get<Poco::Int32>(0));
		// an unprepared text with the wrong count: the server says so (08P01), the session goes on
		CPPUNIT_ASSERT_EQUAL(std::string("08P01"), sqlStateOf([&] { session->query("SELECT $1::int4 + $2::int4", {1}); }));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(5), session->query("SELECT 5").row(0).get<Poco::Int32>(0));
	}

	void testWrongParameterType()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->deferReset();   // a deferred reset waiting in front must survive a refused execution
		PreparedStatement statement = session->prepare("SELECT $1::int2 AS small, $2::uuid AS id");
		try
		{
			session->execute(statement, {true, Poco::UUID()});
			CPPUNIT_FAIL("a bool cannot be sent as int2");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("parameter $1 (int2): cannot send a bool value: the conversion could lose the value"), exc.message());
		}
		try
		{
			session->execute(statement, {100000, Poco::UUID()});
			CPPUNIT_FAIL("100000 does not fit int2");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("parameter $1 (int2): cannot send a int32 value: 100000 is out of range for int2"), exc.message());
		}
		CPPUNIT_ASSERT(!session->isBroken());
		QueryResult result = session->execute(statement, {7, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"});
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(7), result.row(0).get<Poco::Int16>("small"));
		CPPUNIT_ASSERT_EQUAL(std::string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), result.row(0).get<std::string>("id"));
		CPPUNIT_ASSERT(!session->isResetPending());   // the deferred reset went out with the successful execution
	}

	void testHandleOnAnotherSession()
	{
		ProtocolSession::Ptr first = openNode(1);
		ProtocolSession::Ptr second = openNode(1);
		PreparedStatement statement = first->prepare("SELECT 1");
		try
		{
			second->execute(statement);
			CPPUNIT_FAIL("a statement of another session must be refused");
		}
		catch (BlueTuskUsageException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("was prepared on another session") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), second->query("SELECT 1").row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), first->execute(statement).row(0).get<Poco::Int32>(0));
	}

	void testResetKeepsStatements()
	{
		ProtocolSession::Ptr session = openNode(1);
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), session->resetSql());
		PreparedStatement statement = session->prepare("SELECT 40 + $1::int4");
		session->executeSimple("SET search_path = pg_catalog; CREATE TEMP TABLE scratch (a int); SELECT pg_advisory_lock(4711)");
		CPPUNIT_ASSERT(session->resetSql().find("DISCARD TEMP") != std::string::npos);
		session->reset(true);
		CPPUNIT_ASSERT_EQUAL(std::string("\"$user\", public"), scalar(*session, "SHOW search_path"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM pg_class WHERE relname = 'scratch' AND relpersistence = 't'"));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), session->execute(statement, {2}).row(0).get<Poco::Int32>(0));
	}

	void testPrepareCached()
	{
		ProtocolSession::Ptr session = openNode(1, "Max Auto Prepare=2");
		PreparedStatement first = session->prepareCached("SELECT 1 AS a");
		PreparedStatement again = session->prepareCached("SELECT 1 AS a");
		CPPUNIT_ASSERT_EQUAL(first.name(), again.name());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().prepared);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), session->statementStatistics().cacheHits);
		session->prepareCached("SELECT 2 AS a");
		session->prepareCached("SELECT 3 AS a");   // evicts "SELECT 1"
		CPPUNIT_ASSERT(!first.isValid());
		try
		{
			session->execute(first);
			CPPUNIT_FAIL("an evicted statement's handle must be refused");
		}
		catch (BlueTuskUsageException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("evicted from the statement cache") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), session->execute(session->prepareCached("SELECT 1 AS a")).row(0).get<Poco::Int32>("a"));
		CPPUNIT_ASSERT_EQUAL(2, preparedOnServer(*session));
	}

	void testBatch()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE batch_rows (id int PRIMARY KEY, name text, at timestamptz)");
		PreparedStatement insert = session->prepare("INSERT INTO batch_rows VALUES ($1, $2, $3)");
		std::vector<Parameters> rows;
		for (int i = 1; i <= 1000; ++i) rows.push_back({i, "name-" + std::to_string(i), Poco::Timestamp(946684800000000LL + i)});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1000), session->executeBatch(insert, rows));
		QueryResult check = session->query("SELECT count(*), sum(id), max(name), max(at) FROM batch_rows");
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1000), check.row(0).get<Poco::Int64>(0));
		CPPUNIT_ASSERT_EQUAL(std::string("500500"), check.row(0).get<std::string>(1));
		CPPUNIT_ASSERT_EQUAL(std::string("name-999"), check.row(0).get<std::string>(2));
		CPPUNIT_ASSERT_EQUAL(Poco::Timestamp::TimeVal(946684800001000LL), check.row(0).get<Poco::Timestamp>(3).epochMicroseconds());
		try
		{
			session->executeBatch(insert, {{1, 2}});
			CPPUNIT_FAIL("a row with the wrong number of values must be refused");
		}
		catch (BlueTuskUsageException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("row 1 of the batch has 2 values but the statement has 3 parameters") == 0);
		}
	}

	void testBatchFailureRollsBack()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE batch_fail (id int PRIMARY KEY)");
		PreparedStatement insert = session->prepare("INSERT INTO batch_fail VALUES ($1)");
		std::vector<Parameters> rows;
		for (int i = 1; i <= 1000; ++i) rows.push_back({i == 600 ? 1 : i});   // row 600 repeats id 1
		try
		{
			session->executeBatch(insert, rows);
			CPPUNIT_FAIL("the duplicate must fail the batch");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("23505"), exc.sqlState());
			CPPUNIT_ASSERT(exc.message().find("row 600 of the batch; the whole batch was rolled back") != std::string::npos);
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM batch_fail"));
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		// a value that cannot be encoded in a later chunk is refused before anything is sent
		rows[900] = {Parameter(true)};
		try
		{
			session->executeBatch(insert, rows);
			CPPUNIT_FAIL("a bool for an int4 parameter must be refused");
		}
		catch (BlueTuskTypeException&)
		{
		}
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM batch_fail"));
	}

	void testFetchInPieces()
	{
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement series = session->prepare("SELECT i, 'row-' || i FROM generate_series(1, $1::int4) AS i");
		QueryResult piece = session->beginFetch(series, {10000}, 1000);
		Poco::Int64 sum = 0;
		std::size_t pieces = 0, largest = 0;
		for (;;)
		{
			++pieces;
			largest = std::max(largest, piece.rows.size());
			for (RowView row: piece) sum += row.get<Poco::Int32>(0);
			if (!session->isFetching()) break;
			CPPUNIT_ASSERT(piece.commandTag.empty());
			CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);   // as of the last ReadyForQuery
			piece = session->fetch(1000);
		}
		// the last Execute's tag counts the rows it returned: none when the 10th piece ended exactly at the end
		CPPUNIT_ASSERT(piece.commandTag == "SELECT 0" || piece.commandTag == "SELECT 1000");
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(50005000), sum);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1000), largest);
		CPPUNIT_ASSERT(pieces == 10 || pieces == 11);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(7), session->query("SELECT 7").row(0).get<Poco::Int32>(0));
	}

	void testFetchInterruptedByAnotherCommand()
	{
		ProtocolSession::Ptr session = openNode(1);
		PreparedStatement series = session->prepare("SELECT i FROM generate_series(1, 2500) AS i");
		QueryResult first = session->beginFetch(series, {}, 1000);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1000), first.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(5), session->query("SELECT 5").row(0).get<Poco::Int32>(0));   // reads the rest ahead
		CPPUNIT_ASSERT(session->isFetching());
		QueryResult second = session->fetch(1000);
		QueryResult third = session->fetch(1000);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1000), second.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1001), second.row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(std::size_t(500), third.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(2500), third.row(499).get<Poco::Int32>(0));
		CPPUNIT_ASSERT(!session->isFetching());
		CPPUNIT_ASSERT(session->fetch(1000).rows.empty());
		// a new fetch drops what the last one left
		session->beginFetch(series, {}, 10);
		session->beginFetch(series, {}, 10);
		session->endFetch();
		CPPUNIT_ASSERT(!session->isFetching());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(6), session->query("SELECT 6").row(0).get<Poco::Int32>(0));
	}

	void testFetchError()
	{
		ProtocolSession::Ptr session = openNode(1);
		// the error comes with row 3 000, in the third piece
		PreparedStatement failing = session->prepare("SELECT 1 / (3000 - i) FROM generate_series(1, 5000) AS i");
		QueryResult piece = session->beginFetch(failing, {}, 1000);
		std::string state;
		try
		{
			while (session->isFetching()) piece = session->fetch(1000);
		}
		catch (BlueTuskServerException& exc)
		{
			state = exc.sqlState();
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT_EQUAL(std::string("22012"), state);
		CPPUNIT_ASSERT(!session->isFetching());
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(8), session->query("SELECT 8").row(0).get<Poco::Int32>(0));
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(StatementTest);
