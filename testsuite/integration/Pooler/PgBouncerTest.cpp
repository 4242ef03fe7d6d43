//
// PgBouncerTest.cpp
//
// BlueTusk behind Debian's PgBouncer 1.18 in transaction pooling, one PgBouncer in front of each node of the
// local cluster (scripts/pgbouncer: node N's on 127.0.0.N, port BLUETUSK_PGBOUNCER_PORT, default the cluster
// port + 7), with default settings: what a new user gets who moves an application behind a transaction pooler.
//
// First contact at 3680bc9: bluetusk-connect --pool, 8 threads x 300 leases of one query, failed 1687 times of
// 2400 with 42P05 (prepared statement "_bt2" already exists); direct opens with target read-write failed the
// same way. The cause: two client sessions name their cached statements alike ("_bt1", ...) and PgBouncer
// gives them the same server connection between transactions.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Pipeline.h"
#include "PoolerEnvironment.h"
#include "TestEnvironment.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string serverAddress(BlueTuskConnection& connection)
{
	return connection.query("SELECT host(inet_server_addr())").row(0).get<std::string>(0);
}


bool inRecovery(BlueTuskConnection& connection)
{
	return connection.query("SELECT pg_is_in_recovery()").row(0).get<bool>(0);
}


int countErrors(int threads, int rounds, const std::function<void(int thread, int round)>& work)
	/// Runs work(t, i) for i < rounds on each of threads threads; returns how many rounds threw a
	/// Poco::Exception (the first one is printed).
{
	std::atomic<int> errors{0};
	std::mutex mutex;
	std::string firstError;
	std::vector<std::thread> running;
	for (int t = 0; t < threads; ++t)
	{
		running.emplace_back([&, t]
		{
			for (int i = 0; i < rounds; ++i)
			{
				try
				{
					work(t, i);
				}
				catch (const Poco::Exception& exc)
				{
					std::lock_guard<std::mutex> lock(mutex);
					if (errors++ == 0) firstError = exc.displayText();
				}
			}
		});
	}
	for (std::thread& thread: running) thread.join();
	if (errors > 0) std::cerr << "first error of " << errors << ": " << firstError << std::endl;
	return errors;
}

} // namespace


class PgBouncerTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PgBouncerTest);
	CPPUNIT_TEST(testDirectOpenPerTarget);
	CPPUNIT_TEST(testPooledQueriesWithDefaults);
	CPPUNIT_TEST(testPooledQueriesTransactionPooling);
	CPPUNIT_TEST(testStatementKindsTransactionPooling);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDirectOpenPerTarget()
		/// Each target through the PgBouncers lands on a server of that role, from an unpooled open.
	{
		const std::map<std::string, bool> targets{{"primary", false}, {"read-write", false},
			{"standby", true}, {"read-only", true}};
		for (const auto& [target, standby]: targets)
		{
			for (int i = 0; i < 5; ++i)
			{
				BlueTuskConnection connection = BlueTuskConnection::open(throughPoolers("Target Session Attributes=" + target));
				CPPUNIT_ASSERT_EQUAL_MESSAGE(target, standby, inRecovery(connection));
				CPPUNIT_ASSERT_EQUAL_MESSAGE(target, connection.connectedEndpoint().host(), serverAddress(connection));
			}
		}
	}

	void testPooledQueriesWithDefaults()
		/// 8 threads x 300 leases of one parameterized query through a data source with default settings:
		/// 0 errors, every answer right.
	{
		runPooledQueries(throughPoolers());
	}

	void testPooledQueriesTransactionPooling()
		/// The same with Server Pooling=transaction.
	{
		runPooledQueries(throughPoolers("Server Pooling=transaction"));
	}

	void testStatementKindsTransactionPooling()
		/// Every statement path through the PgBouncers with Server Pooling=transaction, from 6 threads sharing
		/// the PgBouncers' 8 server sessions per node: query() of a repeated text, prepare() run on later
		/// commands, executeBatch(), a pipeline, a fetch in a transaction. Every row lands, nothing fails.
	{
		{
			BlueTuskConnection setup = BlueTuskConnection::open(throughPoolers("Target Session Attributes=primary"));
			setup.executeSimple("DROP TABLE IF EXISTS bt_pooler_items; CREATE TABLE bt_pooler_items (thread int, n int, source text)");
		}
		auto dataSource = BlueTuskDataSource::create(throughPoolers("Server Pooling=transaction;Target Session Attributes=primary"));
		constexpr int THREADS = 6;
		constexpr int ROUNDS = 40;
		const int errors = countErrors(THREADS, ROUNDS, [&](int t, int i)
		{
			BlueTuskConnection lease = dataSource->open();
			lease.query("INSERT INTO bt_pooler_items VALUES ($1, $2, 'query')", {t, i});
			PreparedStatement insert = lease.prepare("INSERT INTO bt_pooler_items VALUES ($1, $2, $3)");
			lease.execute(insert, {t, i, std::string("prepared")});
			lease.execute(insert, {t, i, std::string("prepared-again")});
			lease.session().executeBatch(insert, {{t, i, std::string("batch")}, {t, i, std::string("batch")}});
			Pipeline pipeline(lease.session());
			pipeline.add(insert, {t, i, std::string("pipeline")});
			pipeline.add("INSERT INTO bt_pooler_items VALUES ($1, $2, 'pipeline-text')", {t, i});
			pipeline.run();
			lease.executeSimple("BEGIN");
			QueryResult first = lease.session().beginFetch(lease.prepare("SELECT n FROM bt_pooler_items WHERE thread = $1"), {t}, 2);
			if (first.rows.empty()) throw Poco::IllegalStateException("the fetch returned no rows");
			lease.session().endFetch();
			lease.executeSimple("COMMIT");
		});
		CPPUNIT_ASSERT_EQUAL(0, errors);
		BlueTuskConnection check = BlueTuskConnection::open(throughPoolers("Target Session Attributes=primary"));
		const QueryResult counts = check.query("SELECT source, count(*)::int4 FROM bt_pooler_items GROUP BY source ORDER BY source");
		std::map<std::string, int> bySource;
		for (std::size_t r = 0; r < counts.rows.size(); ++r) bySource[counts.row(r).get<std::string>(0)] = counts.row(r).get<Poco::Int32>(1);
		const int each = THREADS * ROUNDS;
		CPPUNIT_ASSERT_EQUAL(each * 2, bySource["batch"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["pipeline"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["pipeline-text"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["prepared"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["prepared-again"]);
		CPPUNIT_ASSERT_EQUAL(each, bySource["query"]);
		check.executeSimple("DROP TABLE bt_pooler_items");
	}

	void runPooledQueries(const std::string& connectionString)
	{
		auto dataSource = BlueTuskDataSource::create(connectionString);
		std::atomic<int> wrong{0};
		const int errors = countErrors(8, 300, [&](int t, int i)
		{
			BlueTuskConnection lease = dataSource->open(i % 2 ? TargetSessionAttributes::Any : TargetSessionAttributes::Primary);
			const Poco::Int32 value = t * 1000 + i;
			if (lease.query("SELECT $1::int4 + 1", {value}).row(0).get<Poco::Int32>(0) != value + 1) ++wrong;
		});
		CPPUNIT_ASSERT_EQUAL(0, errors);
		CPPUNIT_ASSERT_EQUAL(0, wrong.load());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PgBouncerTest);
