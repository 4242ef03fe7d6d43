//
// BulkPathTest.cpp
//
// Row streaming, COPY and LISTEN/NOTIFY on the primary: 1,000,000 streamed rows checked value by value,
// stopping early, COPY FROM STDIN of 100,000 rows in text, CSV and binary read back by checksum, a bad
// row (its line named), an abort midway (nothing kept), COPY TO STDOUT equal to what psql's \copy writes,
// and notifications with payloads, also those that arrive while a long query runs.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Pipeline.h"
#include "BlueTusk/TypeOid.h"
#include "ProcessMemory.h"
#include "TransportTestSupport.h"
#include "Poco/Clock.h"
#include "Poco/Pipe.h"
#include "Poco/PipeStream.h"
#include "Poco/Process.h"
#include "Poco/StreamCopier.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string scalar(Session& session, const std::string& sql)
{
	return session.executeSimple(sql).front().rows.at(0).at(0).value_or("NULL");
}


const char* CHECKSUM = "SELECT count(*)::text || '/' || sum(id)::text || '/' || sum(length(name))::text || '/' || "
	"coalesce(sum(extract(epoch FROM at))::bigint, 0)::text FROM copied";


std::string psqlCopyOut(const std::string& table)
	/// What psql's \copy <table> TO STDOUT writes.
{
	const ClusterInfo& c = cluster();
	Poco::Process::Env env;
	env["PGPASSWORD"] = c.password;
	Poco::Pipe out;
	Poco::ProcessHandle handle = Poco::Process::launch("psql", {"-X", "-q", "-h", c.hosts.at(0), "-p", std::to_string(c.port), "-U", c.user,
		"-d", c.database, "-c", "\\copy " + table + " TO STDOUT"}, "", nullptr, &out, nullptr, env);
	Poco::PipeInputStream stream(out);
	std::string text;
	Poco::StreamCopier::copyToString(stream, text);
	CPPUNIT_ASSERT_EQUAL(0, handle.wait());
	return text;
}

} // namespace


class BulkPathTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(BulkPathTest);
	CPPUNIT_TEST(testStreamMillionRows);
	CPPUNIT_TEST(testStreamStopsEarly);
	CPPUNIT_TEST(testCopyInTextCsvBinary);
	CPPUNIT_TEST(testCopyBadRowNamesLine);
	CPPUNIT_TEST(testCopyAbortKeepsNothing);
	CPPUNIT_TEST(testCopyOutEqualsPsql);
	CPPUNIT_TEST(testCopyOutBinaryRows);
	CPPUNIT_TEST(testCopyMisuse);
	CPPUNIT_TEST(testPipelineInOrder);
	CPPUNIT_TEST(testPipelineFailureSkipsItsSegment);
	CPPUNIT_TEST(testPipelineRefusedValueSendsNothing);
	CPPUNIT_TEST(testPipelineOverTls);
	CPPUNIT_TEST(testPipelineStatementClosedAfterAdd);
	CPPUNIT_TEST(testPipelineOfLargeAnswersDoesNotDeadlock);
	CPPUNIT_TEST(testCopyInWithManyNoticesDoesNotDeadlock);
	CPPUNIT_TEST(testRefusedFirstBinaryRowKeepsTheHeader);
	CPPUNIT_TEST(testServerErrorEndsTheCopyAtOnce);
	CPPUNIT_TEST(testNotifications);
	CPPUNIT_TEST(testNotificationDuringLongQuery);
	CPPUNIT_TEST_SUITE_END();

public:
	void testStreamMillionRows()
	{
		ProtocolSession::Ptr session = openNode(1);
		CPPUNIT_ASSERT(resetPeakResident());
		const long connectedKb = statusKilobytes("VmRSS");
		Poco::Int64 expected = 0, sum = 0, textBytes = 0;
		bool inOrder = true;
		const Poco::UInt64 rows = session->queryEach("SELECT i::int8, 'v' || i FROM generate_series(1, $1::int4) AS i", {1000000},
			[&](const RowView& row)
			{
				const Poco::Int64 value = row.get<Poco::Int64>(0);
				inOrder = inOrder && value == ++expected;
				sum += value;
				textBytes += static_cast<Poco::Int64>(row.raw(1)->size());
				return true;
			});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1000000), rows);
		CPPUNIT_ASSERT(inOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(500000500000LL), sum);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(6888896), textBytes);   // "v1".."v1000000"
		// Client memory stays bounded by one row plus the read buffer: the peak RSS while streaming about
		// 15 MB of rows (the buffered result would be well over 32 MB) rose by less than 32 MB.
		const long growthKb = statusKilobytes("VmHWM") - connectedKb;
		std::cout << "\n  peak RSS growth while streaming 1,000,000 rows: " << growthKb << " kB" << std::endl;
		CPPUNIT_ASSERT(connectedKb > 0);
		CPPUNIT_ASSERT(growthKb < 32 * 1024);
	}

	void testStreamStopsEarly()
	{
		ProtocolSession::Ptr session = openNode(1);
		Poco::Clock clock;
		int seen = 0;
		// generate_series in the select list streams its rows (ProjectSet); in FROM it would be materialized
		// whole before the first row is sent (FunctionScan), which takes seconds and is not what is measured.
		const Poco::UInt64 rows = session->queryEach("SELECT generate_series(1, 50000000) AS i", {},
			[&](const RowView& row) { return ++seen < 10 && row.get<Poco::Int32>(0) > 0; });
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(10), rows);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(clock.elapsed()), clock.elapsed() < 5000000);   // cancelled, not read to the end
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(3), session->query("SELECT 3").row(0).get<Poco::Int32>(0));
		// an exception from the callback stops it too, and reaches the caller
		try
		{
			session->queryEach("SELECT i FROM generate_series(1, 1000) AS i", {}, [](const RowView&) -> bool { throw std::runtime_error("stop here"); });
			CPPUNIT_FAIL("the callback's exception must propagate");
		}
		catch (std::runtime_error& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("stop here"), std::string(exc.what()));
		}
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(4), session->query("SELECT 4").row(0).get<Poco::Int32>(0));
		// even when the callback's exception is one of BlueTusk's protocol exceptions (the session's own
		// protocol was fine: it must not be marked broken)
		CPPUNIT_ASSERT_THROW(session->queryEach("SELECT 1", {}, [](const RowView&) -> bool { throw BlueTuskProtocolException("the caller's parser"); }),
			BlueTuskProtocolException);
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(5), session->query("SELECT 5").row(0).get<Poco::Int32>(0));
	}

	void testCopyInTextCsvBinary()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE copied (id int, name text, at timestamptz)");
		// text format, rows split across writes at odd places
		{
			std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied FROM STDIN");
			CPPUNIT_ASSERT(!copy->isBinary());
			std::string data;
			for (int i = 1; i <= 100000; ++i) data += std::to_string(i) + "\tname-" + std::to_string(i) + "\t2000-01-01 00:00:" + std::to_string(i % 60) + "+00\n";
			for (std::size_t at = 0; at < data.size(); at += 70001) copy->write(data.substr(at, 70001));
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100000), copy->finish());
		}
		const std::string text = scalar(*session, CHECKSUM);
		session->executeSimple("TRUNCATE copied");
		{
			std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied FROM STDIN (FORMAT csv)");
			std::string data;
			for (int i = 1; i <= 100000; ++i) data += std::to_string(i) + ",\"name-" + std::to_string(i) + "\",2000-01-01 00:00:" + std::to_string(i % 60) + "+00\n";
			copy->write(data);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100000), copy->finish());
		}
		CPPUNIT_ASSERT_EQUAL(text, scalar(*session, CHECKSUM));
		session->executeSimple("TRUNCATE copied");
		{
			std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied FROM STDIN (FORMAT binary)", {TypeOid::Int4, TypeOid::Text, TypeOid::TimestampTz});
			CPPUNIT_ASSERT(copy->isBinary());
			for (int i = 1; i <= 100000; ++i)
				copy->writeRow({i, "name-" + std::to_string(i), Poco::Timestamp((946684800LL + i % 60) * 1000000)});
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100000), copy->finish());
		}
		CPPUNIT_ASSERT_EQUAL(text, scalar(*session, CHECKSUM));
		CPPUNIT_ASSERT_EQUAL(std::string("100000/5000050000/988895"), text.substr(0, text.rfind('/')));
	}

	void testCopyBadRowNamesLine()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE copied (id int, name text, at timestamptz)");
		std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied (id, name) FROM STDIN");
		copy->write("1\tone\n2\ttwo\nthree\t3\n4\tfour\n");
		try
		{
			copy->finish();
			CPPUNIT_FAIL("the third line is not an int");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("22P02"), exc.sqlState());
			CPPUNIT_ASSERT_MESSAGE(exc.fields().context, exc.fields().context.find("line 3") != std::string::npos);
			CPPUNIT_ASSERT(exc.message().find("CONTEXT: COPY copied, line 3") != std::string::npos);
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM copied"));
	}

	void testCopyAbortKeepsNothing()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE copied (id int, name text, at timestamptz)");
		{
			std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied (id) FROM STDIN");
			for (int i = 0; i < 1000; ++i) copy->write(std::to_string(i) + "\n");
			copy->abort("the application changed its mind");
			CPPUNIT_ASSERT(!copy->isOpen());
		}
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM copied"));
		// an exception in the caller's code: the CopyIn's destructor sends CopyFail
		try
		{
			std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied (id) FROM STDIN");
			copy->write("1\n2\n");
			throw std::runtime_error("the producer failed");
		}
		catch (std::runtime_error&)
		{
		}
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM copied"));
		CPPUNIT_ASSERT(!session->isBroken());
	}

	void testCopyOutEqualsPsql()
	{
		ProtocolSession::Ptr admin = openNode(1);
		admin->executeSimple("DROP TABLE IF EXISTS copy_source; CREATE TABLE copy_source AS "
			"SELECT i AS id, 'name ' || i || E'\\ttab' AS name, CASE WHEN i % 10 = 0 THEN NULL ELSE i * 1.5 END AS amount "
			"FROM generate_series(1, 20000) AS i");
		std::string data;
		std::size_t chunks = 0;
		const Poco::UInt64 rows = admin->copyOut("COPY copy_source TO STDOUT", [&](const char* bytes, std::size_t size)
		{
			data.append(bytes, size);
			++chunks;
		});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(20000), rows);
		CPPUNIT_ASSERT_EQUAL(std::size_t(20000), chunks);   // one CopyData per row in text format
		CPPUNIT_ASSERT(data == psqlCopyOut("copy_source"));
		CPPUNIT_ASSERT(data.find("name 10\\ttab\t\\N\n") != std::string::npos);
		// the consumer's exception stops the delivery; the session goes on
		try
		{
			admin->copyOut("COPY copy_source TO STDOUT (FORMAT csv)", [](const char*, std::size_t) { throw std::runtime_error("disk full"); });
			CPPUNIT_FAIL("the consumer's exception must propagate");
		}
		catch (std::runtime_error&)
		{
		}
		CPPUNIT_ASSERT_EQUAL(std::string("20000"), scalar(*admin, "SELECT count(*) FROM copy_source"));
	}

	void testCopyOutBinaryRows()
	{
		ProtocolSession::Ptr session = openNode(1);
		const std::string sql = "COPY (SELECT i::int8 AS id, 'v' || i AS name, NULLIF(i % 3, 0)::int4 AS m, "
			"timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS at FROM generate_series(1, 100000) AS i) "
			"TO STDOUT (FORMAT binary)";
		Poco::Int64 ids = 0, textBytes = 0, ms = 0, nulls = 0;
		Poco::Timestamp last;
		const Poco::UInt64 rows = session->copyOutRows(sql, {TypeOid::Int8, TypeOid::Text, TypeOid::Int4, TypeOid::TimestampTz},
			[&](const RowView& row)
			{
				ids += row.get<Poco::Int64>(0);
				textBytes += static_cast<Poco::Int64>(row.get<std::string>("column2").size());
				if (row.isNull(2)) ++nulls; else ms += row.get<Poco::Int32>(2);
				last = row.get<Poco::Timestamp>(3);
			});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100000), rows);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(5000050000LL), ids);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(588895), textBytes);   // "v1".."v100000"
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(33333), nulls);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(33334 * 1 + 33333 * 2), ms);
		CPPUNIT_ASSERT_EQUAL(Poco::Timestamp::fromEpochTime(1767225600 + 100000).epochMicroseconds(), last.epochMicroseconds());
		// a wrong column list and a text COPY are refused; the session goes on
		CPPUNIT_ASSERT_THROW(session->copyOutRows(sql, {TypeOid::Int8}, [](const RowView&) {}), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(session->copyOutRows("COPY (SELECT 1) TO STDOUT", {TypeOid::Int4}, [](const RowView&) {}), BlueTuskProtocolException);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT 1"));
	}

	void testCopyMisuse()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE copied (id int)");
		CPPUNIT_ASSERT_THROW(session->copyIn("SELECT 1"), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(session->copyIn("COPY copied TO STDOUT"), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(session->copyOut("COPY copied FROM STDIN", [](const char*, std::size_t) {}), BlueTuskUsageException);
		try
		{
			session->copyIn("COPY no_such_table FROM STDIN");
			CPPUNIT_FAIL("unknown table");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("42P01"), exc.sqlState());
		}
		std::unique_ptr<CopyIn> copy = session->copyIn("COPY copied FROM STDIN");
		CPPUNIT_ASSERT_THROW(session->query("SELECT 1"), BlueTuskUsageException);   // one thing at a time
		copy->write("5\n");
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), copy->finish());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT count(*) FROM copied"));
	}

	void testPipelineInOrder()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE piped (id int PRIMARY KEY, name text)");
		PreparedStatement insert = session->prepare("INSERT INTO piped VALUES ($1, $2)");
		Pipeline pipeline(*session);
		for (int i = 1; i <= 5; ++i) pipeline.add(insert, {i, "n" + std::to_string(i)});
		const std::size_t count = pipeline.add("SELECT count(*), max(name) FROM piped");
		const std::size_t echo = pipeline.add("SELECT $1::text || '!'", {"hi"});
		CPPUNIT_ASSERT_EQUAL(std::size_t(7), pipeline.size());
		std::vector<PipelineResult> results = pipeline.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(7), results.size());
		CPPUNIT_ASSERT_EQUAL(std::string("ok: INSERT 0 1"), results[0].describe());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(5), results[count].result.row(0).get<Poco::Int64>(0));
		CPPUNIT_ASSERT_EQUAL(std::string("n5"), results[count].result.row(0).get<std::string>(1));
		CPPUNIT_ASSERT_EQUAL(std::string("hi!"), results[echo].result.row(0).get<std::string>(0));
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), pipeline.size());
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
	}

	void testPipelineFailureSkipsItsSegment()
	{
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE piped (id int PRIMARY KEY)");
		PreparedStatement insert = session->prepare("INSERT INTO piped VALUES ($1)");
		// one segment: statement 500 repeats id 1; the 499 before it are rolled back with it, the 500 after skipped
		Pipeline single(*session);
		for (int i = 1; i <= 1000; ++i) single.add(insert, {i == 500 ? 1 : i});
		std::vector<PipelineResult> results = single.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1000), results.size());
		CPPUNIT_ASSERT(results[498].status == PipelineResult::Status::Ok);
		CPPUNIT_ASSERT(results[499].status == PipelineResult::Status::Failed);
		CPPUNIT_ASSERT_EQUAL(std::string("23505"), results[499].error->sqlState());
		CPPUNIT_ASSERT(results[500].status == PipelineResult::Status::Skipped);
		CPPUNIT_ASSERT(results[999].status == PipelineResult::Status::Skipped);
		CPPUNIT_ASSERT_EQUAL(std::string("skipped because of an earlier error in the pipeline (statement 500)"), results[999].describe());
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM piped"));
		// segments of 100: only the failing segment (401-500) is lost, the later ones run
		Pipeline segmented(*session);
		for (int i = 1; i <= 1000; ++i)
		{
			segmented.add(insert, {i == 450 ? 1 : i});
			if (i % 100 == 0) segmented.sync();
		}
		results = segmented.run();
		std::size_t ok = 0, failed = 0, skipped = 0;
		for (const PipelineResult& r: results)
		{
			ok += r.status == PipelineResult::Status::Ok;
			failed += r.status == PipelineResult::Status::Failed;
			skipped += r.status == PipelineResult::Status::Skipped;
		}
		CPPUNIT_ASSERT_EQUAL(std::size_t(949), ok);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), failed);
		CPPUNIT_ASSERT_EQUAL(std::size_t(50), skipped);
		CPPUNIT_ASSERT_EQUAL(std::string("900"), scalar(*session, "SELECT count(*) FROM piped"));
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
	}

	void testPipelineRefusedValueSendsNothing()
	{
		// The whole pipeline is encoded before any of it is sent: a value refused in the third chunk (of
		// 256 statements) leaves the first two unsent, and the session usable with nothing left over.
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE piped (id int2)");
		PreparedStatement insert = session->prepare("INSERT INTO piped VALUES ($1)");
		Pipeline pipeline(*session);
		for (int i = 1; i <= 700; ++i) pipeline.add(insert, {i == 600 ? 70000 : i});
		try
		{
			pipeline.run();
			CPPUNIT_FAIL("no BlueTuskTypeException for 70000 as int2");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("70000 is out of range for int2") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM piped"));
		Pipeline again(*session);
		for (int i = 1; i <= 700; ++i) again.add(insert, {i});
		CPPUNIT_ASSERT_EQUAL(std::size_t(700), again.run().size());
		CPPUNIT_ASSERT_EQUAL(std::string("700"), scalar(*session, "SELECT count(*) FROM piped"));
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
	}

	void testPipelineOverTls()
	{
		// On TLS nothing is sent ahead (OpenSSL writes the socket): the chunks go one after another.
		ProtocolSession::Ptr session = openNode(1, "SSL Mode=require");
		CPPUNIT_ASSERT(session->isTls());
		session->executeSimple("CREATE TEMP TABLE piped (id int)");
		PreparedStatement insert = session->prepare("INSERT INTO piped VALUES ($1)");
		Pipeline pipeline(*session);
		for (int i = 1; i <= 1000; ++i) pipeline.add(insert, {i});
		const std::vector<PipelineResult> results = pipeline.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1000), results.size());
		CPPUNIT_ASSERT_EQUAL(std::string("ok: INSERT 0 1"), results[999].describe());
		CPPUNIT_ASSERT_EQUAL(std::string("500500"), scalar(*session, "SELECT sum(id) FROM piped"));
	}

	void testPipelineStatementClosedAfterAdd()
	{
		// A statement closed between add() and run() runs as its text with the unnamed statement, as
		// before the pipeline kept no copy of the text (found by review: it was sent as empty SQL and
		// reported "ok" without running); an empty handle is refused by add().
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE piped (id int)");
		PreparedStatement insert = session->prepare("INSERT INTO piped VALUES ($1)");
		Pipeline pipeline(*session);
		pipeline.add(insert, {7});
		session->unprepare(insert);
		const std::vector<PipelineResult> results = pipeline.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), results.size());
		CPPUNIT_ASSERT_EQUAL(std::string("ok: INSERT 0 1"), results[0].describe());
		CPPUNIT_ASSERT_EQUAL(std::string("7"), scalar(*session, "SELECT sum(id) FROM piped"));
		CPPUNIT_ASSERT_THROW(pipeline.add(PreparedStatement(), {1}), BlueTuskUsageException);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), pipeline.size());
	}

	void testPipelineOfLargeAnswersDoesNotDeadlock()
	{
		// 300 statements of 100 kB each way: a chunk (256 statements, 25 MB) is far more than the socket
		// buffers hold, and the server, blocked on answers nobody reads, stops reading. A send that only
		// waits for room would hang until Command Timeout (found by review; the chunked send before it
		// had the same limit): the send reads the answers that arrive meanwhile.
		ProtocolSession::Ptr session = openNode(1, "Command Timeout=20");
		const std::string value(100000, 'v');
		Pipeline pipeline(*session);
		for (int i = 0; i < 300; ++i) pipeline.add("SELECT $1::text", {value});
		const Poco::Clock started;
		const std::vector<PipelineResult> results = pipeline.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(300), results.size());
		for (const PipelineResult& result: results)
		{
			CPPUNIT_ASSERT(result.status == PipelineResult::Status::Ok);
			CPPUNIT_ASSERT_EQUAL(value.size(), result.result.row(0).get<std::string>(0).size());
		}
		CPPUNIT_ASSERT_MESSAGE(std::to_string(started.elapsed()), started.elapsed() < 15 * Poco::Clock::resolution());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT 1"));
		// the same for a batch (executeBatch(): one prepared statement, 300 rows)
		PreparedStatement echo = session->prepare("SELECT $1::text");
		const std::vector<Parameters> rows(300, Parameters{value});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(300), session->executeBatch(echo, rows));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT 1"));
	}

	void testCopyInWithManyNoticesDoesNotDeadlock()
	{
		// A row trigger raising a 500-byte notice per row: 50,000 rows of 200 bytes (10 MB) make 25 MB of
		// notices during the COPY, far more than the socket buffers hold. A COPY that only sent (nothing
		// read until finish()) blocked with the server, itself blocked on the notices once a few MB of them
		// were unread and so no longer reading the rows, until Command Timeout broke the session
		// (found by review, session 9; with Command Timeout=0 it would wait for good). The chunks are now
		// sent reading what arrives meanwhile, and the notices reach the handler as they come.
		ProtocolSession::Ptr session = openNode(1, "Command Timeout=20");
		session->executeSimple("CREATE TEMP TABLE noisy (id int, filler text)");
		session->executeSimple("CREATE FUNCTION pg_temp.noisy_notice() RETURNS trigger LANGUAGE plpgsql AS "
			"$$BEGIN RAISE NOTICE '%', repeat('n', 500); RETURN NEW; END$$");
		session->executeSimple("CREATE TRIGGER noisy_notice BEFORE INSERT ON noisy FOR EACH ROW EXECUTE FUNCTION pg_temp.noisy_notice()");
		std::size_t notices = 0;
		std::size_t noticeBytes = 0;
		session->setNoticeHandler([&](const BlueTuskServerException::Fields& notice) { ++notices; noticeBytes += notice.message.size(); });
		std::string data;
		const std::string filler(192, 'f');
		for (int i = 1; i <= 50000; ++i) data += std::to_string(i) + "\t" + filler + "\n";
		const Poco::Clock started;
		std::unique_ptr<CopyIn> copy = session->copyIn("COPY noisy FROM STDIN");
		for (std::size_t at = 0; at < data.size(); at += 10000) copy->write(data.substr(at, 10000));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(50000), copy->finish());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(started.elapsed()), started.elapsed() < 15 * Poco::Clock::resolution());
		CPPUNIT_ASSERT_EQUAL(std::size_t(50000), notices);
		CPPUNIT_ASSERT_EQUAL(std::size_t(50000 * 500), noticeBytes);
		CPPUNIT_ASSERT_EQUAL(std::string("50000"), scalar(*session, "SELECT count(*) FROM noisy"));
	}

	void testServerErrorEndsTheCopyAtOnce()
	{
		// The first row is refused by the server (22P02), which then drops every CopyData: the COPY ends
		// with that error on a write() soon after, not after 40 MB more at finish() (libpq stops too).
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE refused (id int4)");
		std::unique_ptr<CopyIn> copy = session->copyIn("COPY refused FROM STDIN");
		std::string piece;
		while (piece.size() < 65536) piece += "1\n";
		const int pieces = 640;   // 42 MB
		int written = 0;
		std::string sqlState;
		try
		{
			copy->write("not a number\n");
			for (; written < pieces; ++written) copy->write(piece);
			copy->finish();
		}
		catch (BlueTuskServerException& exc)
		{
			sqlState = exc.sqlState();
		}
		CPPUNIT_ASSERT_EQUAL(std::string("22P02"), sqlState);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(written), written < pieces / 2);
		CPPUNIT_ASSERT(!copy->isOpen());
		CPPUNIT_ASSERT_THROW(copy->write(piece), BlueTuskUsageException);
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(*session, "SELECT count(*) FROM refused"));
	}

	void testRefusedFirstBinaryRowKeepsTheHeader()
	{
		// The first binary row refused (a value with no binary form for its column): nothing of it is
		// sent, the header included, so the rows after it still start with the COPY signature (before, the
		// header was marked written with the refused row and the server failed the COPY: "COPY file
		// signature not recognized"; review, session 9).
		ProtocolSession::Ptr session = openNode(1);
		session->executeSimple("CREATE TEMP TABLE binary_rows (id int4)");
		std::unique_ptr<CopyIn> copy = session->copyIn("COPY binary_rows FROM STDIN (FORMAT binary)", {TypeOid::Int4});
		CPPUNIT_ASSERT_THROW(copy->writeRow({std::string("not a number")}), BlueTuskTypeException);
		copy->writeRow({Poco::Int32(7)});
		copy->writeRow({Poco::Int32(8)});
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), copy->finish());
		CPPUNIT_ASSERT_EQUAL(std::string("15"), scalar(*session, "SELECT sum(id) FROM binary_rows"));
	}

	void testNotifications()
	{
		ProtocolSession::Ptr listener = openNode(1);
		ProtocolSession::Ptr sender = openNode(1);
		listener->executeSimple("LISTEN orders_placed; LISTEN orders_cancelled");
		Notification notification;
		Poco::Clock clock;
		CPPUNIT_ASSERT(!listener->waitForNotification(Poco::Timespan(0, 300000), notification));   // nothing yet
		CPPUNIT_ASSERT(clock.elapsed() >= 290000 && clock.elapsed() < 2000000);
		const std::string senderPid = scalar(*sender, "SELECT pg_backend_pid()::text");
		sender->executeSimple("NOTIFY orders_placed, 'order 17'");
		CPPUNIT_ASSERT(listener->waitForNotification(Poco::Timespan(5, 0), notification));
		CPPUNIT_ASSERT_EQUAL(std::string("orders_placed"), notification.channel);
		CPPUNIT_ASSERT_EQUAL(std::string("order 17"), notification.payload);
		CPPUNIT_ASSERT_EQUAL(senderPid, std::to_string(notification.processId));
		// one from a thread while the listener waits
		std::thread later([&] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); sender->executeSimple("SELECT pg_notify('orders_cancelled', '')"); });
		const bool arrived = listener->waitForNotification(Poco::Timespan(5, 0), notification);
		later.join();
		CPPUNIT_ASSERT(arrived);
		CPPUNIT_ASSERT_EQUAL(std::string("orders_cancelled"), notification.channel);
		CPPUNIT_ASSERT_EQUAL(std::string(), notification.payload);
		// a pooled return resets with UNLISTEN *: no more notifications after a reset
		listener->reset(true);
		sender->executeSimple("NOTIFY orders_placed, 'after the reset'");
		CPPUNIT_ASSERT(!listener->waitForNotification(Poco::Timespan(0, 300000), notification));
	}

	void testNotificationDuringLongQuery()
	{
		ProtocolSession::Ptr listener = openNode(1);
		ProtocolSession::Ptr sender = openNode(1);
		listener->executeSimple("LISTEN jobs");
		std::thread notifier([&]
		{
			std::this_thread::sleep_for(std::chrono::milliseconds(150));
			sender->executeSimple("NOTIFY jobs, 'first'; NOTIFY jobs, 'second'");
		});
		listener->executeSimple("SELECT pg_sleep(0.6)");   // the notifications arrive while this runs
		notifier.join();
		// PostgreSQL delivers them when the listener's query ends; they were queued, none lost
		listener->query("SELECT 1");
		std::vector<Notification> all = listener->takeNotifications();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), all.size());
		CPPUNIT_ASSERT_EQUAL(std::string("first"), all[0].payload);
		CPPUNIT_ASSERT_EQUAL(std::string("second"), all[1].payload);
		CPPUNIT_ASSERT(listener->takeNotifications().empty());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(BulkPathTest);
