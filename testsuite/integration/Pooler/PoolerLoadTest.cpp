//
// PoolerLoadTest.cpp
//
// A heavy load through the per-node PgBouncers (scripts/pgbouncer: transaction pooling, 8 server sessions per
// node) with default settings, Server Pooling left at auto: 16 threads x 10,000 operations mixing every
// statement path a pooled application uses (a parameterized query(), repeated texts through the statement
// cache, prepare()d statements run on later commands, executeBatch(), COPY FROM STDIN, Poco::Data statements
// through the bluetusk connector, reads from a lease of target any). The switch to transaction pooling
// happens under this load, on whichever thread meets 26000 or 42P05 first. No operation may fail, and every
// answer and every row written is checked. doc/poolers.md, "A load through PgBouncer", has the figures.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/CopyIn.h"
#include "BlueTusk/Data/Connector.h"
#include "PoolerSupport.h"
#include "session/PoolerDetection.h"
#include "Poco/Clock.h"
#include "Poco/Data/Session.h"
#include "Poco/Data/Statement.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

using namespace BlueTusk;
using namespace BlueTusk::Test;
using namespace Poco::Data::Keywords;

namespace {

constexpr int THREADS = 16;
constexpr int ROUNDS = 10000;        // per thread: 160,000 operations
constexpr int KINDS = 10;            // round i does operation i % KINDS
constexpr int LEASE_ROUNDS = 100;    // a thread's primary lease and Poco::Data session serve this many rounds
constexpr int BATCH_ROWS = 4;
constexpr int COPY_ROWS = 3;

const char* const COUNT_SINCE = "SELECT count(*)::int4 FROM bt_pooler_load WHERE thread = $1 AND n >= $2";
	/// The thread's rows since its writer's first round: the index on (thread, n) keeps it cheap as the
	/// table grows to 160,000 rows (counting all of a thread's rows is the likely reason a first version
	/// took 122 s instead of about 30).
const char* const CACHED_TEXTS[] = {"SELECT $1::int8 + 0", "SELECT $1::int8 + 1", "SELECT $1::int8 + 2", "SELECT $1::int8 + 3"};


void expect(bool condition, const std::string& what, Poco::Int64 got)
	/// A wrong answer counts as an error of its round.
{
	if (!condition) throw Poco::DataException("wrong answer: " + what + ", got " + std::to_string(got));
}


struct Writer
	/// One thread's primary lease with its prepared statements, and its Poco::Data session; both renewed
	/// every LEASE_ROUNDS rounds.
{
	BlueTuskConnection lease;
	PreparedStatement insert;
	PreparedStatement countRows;
	Poco::Data::Session data;
	const Poco::Int32 firstRound;
	const Poco::Int32 rowsBefore;  /// the thread's rows written before firstRound

	Writer(BlueTuskDataSource& dataSource, const std::string& dataString, int round, Poco::Int32 rows):
		lease(dataSource.open(TargetSessionAttributes::Primary)),
		insert(lease.prepare("INSERT INTO bt_pooler_load VALUES ($1, $2, $3)")),
		countRows(lease.prepare(COUNT_SINCE)),
		data("bluetusk", dataString),
		firstRound(round),
		rowsBefore(rows)
	{
	}
};


int runRound(BlueTuskDataSource& dataSource, Writer& writer, int t, int i, Poco::Int32& rows)
	/// Operation i % KINDS of thread t; rows counts the thread's rows in bt_pooler_load. Returns the rows
	/// the round wrote.
{
	const Poco::Int32 round = i;
	const Poco::Int32 thread = t;
	switch (i % KINDS)
	{
	case 0:
	{
		const QueryResult result = writer.lease.query("INSERT INTO bt_pooler_load VALUES ($1, $2, 'query')", {thread, round});
		expect(result.rowsAffected() == 1, "query() INSERT", result.rowsAffected());
		return 1;
	}
	case 1:
	{
		const Poco::Int32 sum = writer.lease.query("SELECT $1::int4 * 2 + $2::int4", {round, thread}).row(0).get<Poco::Int32>(0);
		expect(sum == 2 * round + thread, "SELECT $1 * 2 + $2", sum);
		return 0;
	}
	case 2:
	{
		const int k = (i / KINDS) % 4;
		const Poco::Int64 value = writer.lease.query(CACHED_TEXTS[k], {Poco::Int64(round)}).row(0).get<Poco::Int64>(0);
		expect(value == round + k, CACHED_TEXTS[k], value);
		return 0;
	}
	case 3:
	{
		const QueryResult result = writer.lease.execute(writer.insert, {thread, round, std::string("prepared")});
		expect(result.rowsAffected() == 1, "prepared INSERT", result.rowsAffected());
		return 1;
	}
	case 4:
	{
		const Poco::Int32 count = writer.lease.execute(writer.countRows, {thread, writer.firstRound}).row(0).get<Poco::Int32>(0);
		expect(count == rows - writer.rowsBefore, "prepared count of the thread's rows", count);
		return 0;
	}
	case 5:
	{
		std::vector<Parameters> batch;
		for (int r = 0; r < BATCH_ROWS; ++r) batch.push_back({thread, round, std::string("batch")});
		const Poco::UInt64 inserted = writer.lease.session().executeBatch(writer.insert, batch);
		expect(inserted == BATCH_ROWS, "executeBatch() rows", Poco::Int64(inserted));
		return BATCH_ROWS;
	}
	case 6:
	{
		auto copy = writer.lease.session().copyIn("COPY bt_pooler_load (thread, n, source) FROM STDIN (FORMAT csv)");
		for (int r = 0; r < COPY_ROWS; ++r) copy->write(std::to_string(t) + "," + std::to_string(i) + ",copy\n");
		const Poco::UInt64 copied = copy->finish();
		expect(copied == COPY_ROWS, "COPY rows", Poco::Int64(copied));
		return COPY_ROWS;
	}
	case 7:
	{
		Poco::Int32 bound = thread;
		Poco::Int32 n = round;
		writer.data << "INSERT INTO bt_pooler_load VALUES ($1, $2, 'data')", use(bound), use(n), now;
		return 1;
	}
	case 8:
	{
		Poco::Int32 bound = thread;
		Poco::Int32 since = writer.firstRound;
		Poco::Int32 count = -1;
		writer.data << COUNT_SINCE, use(bound), use(since), into(count), now;
		expect(count == rows - writer.rowsBefore, "Poco::Data count of the thread's rows", count);
		return 0;
	}
	default:
	{
		BlueTuskConnection reader = dataSource.open(TargetSessionAttributes::Any);
		const Poco::Int32 value = thread * 100000 + round;
		const Poco::Int32 next = reader.query("SELECT $1::int4 + 1", {value}).row(0).get<Poco::Int32>(0);
		expect(next == value + 1, "read lease SELECT $1 + 1", next);
		return 0;
	}
	}
}

} // namespace


class PoolerLoadTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerLoadTest);
	CPPUNIT_TEST(testMixedLoadWithDefaults);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		BlueTusk::Data::Connector::registerConnector();
		BlueTuskConnection setup = BlueTuskConnection::open(throughPoolers("Target Session Attributes=primary"));
		setup.executeSimple("DROP TABLE IF EXISTS bt_pooler_load; CREATE TABLE bt_pooler_load (thread int, n int, source text); "
			"CREATE INDEX ON bt_pooler_load (thread, n)");
	}

	void tearDown()
	{
		BlueTuskConnection cleanup = BlueTuskConnection::open(throughPoolers("Target Session Attributes=primary"));
		cleanup.executeSimple("DROP TABLE IF EXISTS bt_pooler_load");
	}

	void testMixedLoadWithDefaults()
		/// 16 threads x 10,000 operations with default settings: 0 errors, every answer right, every row
		/// there, and the primary's PgBouncer known as a transaction pooler afterwards.
	{
		const std::string primaryEndpoint = "127.0.0.1:" + std::to_string(poolerPort());
		const bool knownBefore = Detail::isTransactionPooler(primaryEndpoint);
		const std::string writes = throughPoolers("Target Session Attributes=primary");
		auto dataSource = BlueTuskDataSource::create(throughPoolers());
		std::vector<std::unique_ptr<Writer>> writers(THREADS);
		std::vector<Poco::Int32> rows(THREADS, 0);
		const Poco::Clock started;
		std::mutex mutex;
		std::atomic<Poco::Int64> microseconds[KINDS] = {}; // per operation kind, all threads together
		int failed[KINDS] = {};
		const int errors = countErrors(THREADS, ROUNDS, [&](int t, int i)
		{
			if (i % LEASE_ROUNDS == 0 || !writers[t])
			{
				writers[t].reset();
				writers[t] = std::make_unique<Writer>(*dataSource, writes, i, rows[t]);
			}
			const Poco::Clock roundStarted;
			try
			{
				rows[t] += runRound(*dataSource, *writers[t], t, i, rows[t]);
			}
			catch (const Poco::Exception& exc)
			{
				std::lock_guard<std::mutex> lock(mutex);
				if (failed[i % KINDS]++ < 3) std::cerr << "operation " << i % KINDS << ", round " << i << ": " << exc.displayText() << std::endl;
				throw;
			}
			microseconds[i % KINDS] += roundStarted.elapsed();
		});
		writers.clear();
		const double seconds = started.elapsed() / 1e6;
		std::cerr << "PoolerLoadTest: " << THREADS << " x " << ROUNDS << " operations through PgBouncer in " << seconds << " s ("
			<< int(THREADS * ROUNDS / seconds) << " per second), " << errors << " errors; the primary's PgBouncer was "
			<< (knownBefore ? "already" : "not yet") << " known as a transaction pooler before the load; mean ms per operation:";
		for (int k = 0; k < KINDS; ++k) std::cerr << " " << k << ": " << microseconds[k] / (1000.0 * THREADS * ROUNDS / KINDS);
		std::cerr << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, errors);
		CPPUNIT_ASSERT(Detail::isTransactionPooler(primaryEndpoint));

		BlueTuskConnection check = BlueTuskConnection::open(writes);
		const QueryResult counts = check.query("SELECT source, count(*)::int4 FROM bt_pooler_load GROUP BY source ORDER BY source");
		std::map<std::string, Poco::Int32> bySource;
		for (std::size_t r = 0; r < counts.rows.size(); ++r) bySource[counts.row(r).get<std::string>(0)] = counts.row(r).get<Poco::Int32>(1);
		const Poco::Int32 each = THREADS * ROUNDS / KINDS;
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), bySource.size());
		CPPUNIT_ASSERT_EQUAL(each, bySource["query"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["prepared"]);
		CPPUNIT_ASSERT_EQUAL(each * BATCH_ROWS, bySource["batch"]);
		CPPUNIT_ASSERT_EQUAL(each * COPY_ROWS, bySource["copy"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["data"]);
		const QueryResult perThread = check.query("SELECT thread, count(*)::int4, sum(n)::int8 FROM bt_pooler_load GROUP BY thread ORDER BY thread");
		CPPUNIT_ASSERT_EQUAL(std::size_t(THREADS), perThread.rows.size());
		Poco::Int64 roundSum = 0; // the n of every row a thread writes: each writing round's i, once per row
		for (int i = 0; i < ROUNDS; ++i)
		{
			const int kind = i % KINDS;
			roundSum += Poco::Int64(i) * (kind == 5 ? BATCH_ROWS : kind == 6 ? COPY_ROWS : (kind == 0 || kind == 3 || kind == 7) ? 1 : 0);
		}
		for (int t = 0; t < THREADS; ++t)
		{
			CPPUNIT_ASSERT_EQUAL(t, perThread.row(t).get<Poco::Int32>(0));
			CPPUNIT_ASSERT_EQUAL(rows[t], perThread.row(t).get<Poco::Int32>(1));
			CPPUNIT_ASSERT_EQUAL(roundSum, perThread.row(t).get<Poco::Int64>(2));
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerLoadTest);
