//
// PoolerAutoRetryTest.cpp
//
// Server Pooling=auto (the default) meeting its first sign of a transaction pooler on each statement path:
// queryEach(), beginFetch(), a pipeline, executeBatch(). Node 1's PgBouncer; the endpoint is forgotten first
// (Detail::forgetTransactionPooler(), for tests only), a statement is prepared named, then every server session
// behind the PgBouncer loses it (deallocateOnEveryServerSession(), PoolerSupport.h): the next use meets 26000,
// switches the session to transaction pooling and runs again unnamed, and the application sees no error.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/Pipeline.h"
#include "PoolerSupport.h"
#include "session/PoolerDetection.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string poolerEndpoint()
{
	return "127.0.0.1:" + std::to_string(poolerPort());
}


BlueTuskConnection freshAutoSession()
	/// A session of default settings through node 1's PgBouncer, which this process has not found yet. The
	/// server sessions behind it are cleared first: a statement an earlier session of auto left there under
	/// the name this one will use would make its prepare() meet 42P05, the sign, too early.
{
	CPPUNIT_ASSERT_EQUAL(POOLER_SERVER_SESSIONS, deallocateOnEveryServerSession());
	Detail::forgetTransactionPooler(poolerEndpoint());
	BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1"));
	CPPUNIT_ASSERT_EQUAL(poolerEndpoint(), connection.connectedEndpoint().toString());
	return connection;
}


void loseNamedStatements()
{
	CPPUNIT_ASSERT_MESSAGE("the pooler was found before the statement was lost", !Detail::isTransactionPooler(poolerEndpoint()));
	CPPUNIT_ASSERT_EQUAL(POOLER_SERVER_SESSIONS, deallocateOnEveryServerSession());
}


Poco::Int64 countRows(BlueTuskConnection& connection, const std::string& table)
{
	return connection.query("SELECT count(*) FROM " + table).row(0).get<Poco::Int64>(0);
}

} // namespace


class PoolerAutoRetryTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerAutoRetryTest);
	CPPUNIT_TEST(testQueryEach);
	CPPUNIT_TEST(testBeginFetch);
	CPPUNIT_TEST(testPipeline);
	CPPUNIT_TEST(testPipelineOfSegments);
	CPPUNIT_TEST(testExecuteBatch);
	CPPUNIT_TEST_SUITE_END();

public:
	void testQueryEach()
		/// A cached statement's Bind meets 26000 in queryEach(): every row still arrives, once. Afterwards the
		/// session refuses what cannot work behind the pooler, saying that auto found it.
	{
		BlueTuskConnection connection = freshAutoSession();
		Poco::Int64 sum = 0;
		auto run = [&]
		{
			sum = 0;
			return connection.session().queryEach("SELECT g FROM generate_series(1, 100) g", {},
				[&](const RowView& row) { sum += row.get<Poco::Int32>(0); return true; });
		};
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100), run());   // prepared as _bt1 and run
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100), run());   // from the statement cache
		loseNamedStatements();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100), run());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(5050), sum);
		CPPUNIT_ASSERT(Detail::isTransactionPooler(poolerEndpoint()));
		try
		{
			connection.executeSimple("LISTEN bt_retry");
			CPPUNIT_FAIL("LISTEN was not refused after the pooler was found");
		}
		catch (const BlueTuskUsageException& exc)
		{
			const std::string message = exc.message();
			CPPUNIT_ASSERT_MESSAGE(message, message.find("Server Pooling=transaction (Server Pooling=auto found the transaction pooler): "
				"LISTEN cannot work behind a transaction pooler (server " + poolerEndpoint() + "): ") == 0);
			CPPUNIT_ASSERT_MESSAGE(message, message.find(poolerEndpoint()) == message.rfind(poolerEndpoint()));   // once, with the context
			const std::string end = " (doc/poolers.md). Nothing was sent.";
			CPPUNIT_ASSERT_MESSAGE(message, message.compare(message.size() - end.size(), end.size(), end) == 0);
		}
	}

	void testBeginFetch()
		/// A prepared statement's portal, outside a transaction block, meets 26000 at its Bind: the fetch
		/// begins again unnamed and hands out every row in order.
	{
		BlueTuskConnection connection = freshAutoSession();
		PreparedStatement statement = connection.prepare("SELECT g FROM generate_series(1, 10) g");
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), connection.session().beginFetch(statement, {}, 3).rows.size());
		connection.session().endFetch();
		loseNamedStatements();
		QueryResult first = connection.session().beginFetch(statement, {}, 3);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), first.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), first.row(0).get<Poco::Int32>(0));
		QueryResult rest = connection.session().fetch(100);
		CPPUNIT_ASSERT_EQUAL(std::size_t(7), rest.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(10), rest.row(6).get<Poco::Int32>(0));
		connection.session().endFetch();
		CPPUNIT_ASSERT(Detail::isTransactionPooler(poolerEndpoint()));
	}

	void testPipeline()
		/// A pipeline of a prepared INSERT and a text INSERT meets 26000 at the prepared one: it runs again as a
		/// whole, every result Ok, and each row is in the table once.
	{
		BlueTuskConnection connection = freshAutoSession();
		connection.executeSimple("DROP TABLE IF EXISTS bt_retry_pipeline; CREATE TABLE bt_retry_pipeline (n int)");
		PreparedStatement insert = connection.prepare("INSERT INTO bt_retry_pipeline VALUES ($1)");
		connection.execute(insert, {0});
		loseNamedStatements();
		Pipeline pipeline(connection.session());
		pipeline.add(insert, {1});
		pipeline.add("INSERT INTO bt_retry_pipeline VALUES ($1)", {2});
		const std::vector<PipelineResult> results = pipeline.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), results.size());
		for (const PipelineResult& result: results) CPPUNIT_ASSERT_MESSAGE(result.describe(), result.status == PipelineResult::Status::Ok);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(3), countRows(connection, "bt_retry_pipeline"));
		CPPUNIT_ASSERT(Detail::isTransactionPooler(poolerEndpoint()));
		connection.executeSimple("DROP TABLE bt_retry_pipeline");
	}

	void testPipelineOfSegments()
		/// A pipeline of two segments whose first meets 26000 is not run again (its second segment committed
		/// already): the failed result says what happened, the second is Ok, each row is in once; the next
		/// pipeline runs unnamed.
	{
		BlueTuskConnection connection = freshAutoSession();
		connection.executeSimple("DROP TABLE IF EXISTS bt_retry_segments; CREATE TABLE bt_retry_segments (n int)");
		PreparedStatement insert = connection.prepare("INSERT INTO bt_retry_segments VALUES ($1)");
		connection.execute(insert, {0});
		loseNamedStatements();
		Pipeline pipeline(connection.session());
		pipeline.add(insert, {1});
		pipeline.sync();
		pipeline.add("INSERT INTO bt_retry_segments VALUES ($1)", {2});
		std::vector<PipelineResult> results = pipeline.run();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), results.size());
		CPPUNIT_ASSERT_MESSAGE(results[0].describe(), results[0].status == PipelineResult::Status::Failed);
		CPPUNIT_ASSERT_EQUAL(std::string("26000"), results[0].error->sqlState());
		CPPUNIT_ASSERT_MESSAGE(results[0].describe(), results[0].error->message().find("is behind a transaction pooler") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(results[1].describe(), results[1].status == PipelineResult::Status::Ok);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(2), countRows(connection, "bt_retry_segments"));
		Pipeline again(connection.session());
		again.add(insert, {3});
		results = again.run();
		CPPUNIT_ASSERT_MESSAGE(results[0].describe(), results[0].status == PipelineResult::Status::Ok);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(3), countRows(connection, "bt_retry_segments"));
		connection.executeSimple("DROP TABLE bt_retry_segments");
	}

	void testExecuteBatch()
		/// executeBatch() of a prepared INSERT meets 26000: the batch (one implicit transaction, rolled back)
		/// runs again and every row is in the table once.
	{
		BlueTuskConnection connection = freshAutoSession();
		connection.executeSimple("DROP TABLE IF EXISTS bt_retry_batch; CREATE TABLE bt_retry_batch (n int)");
		PreparedStatement insert = connection.prepare("INSERT INTO bt_retry_batch VALUES ($1)");
		connection.execute(insert, {0});
		loseNamedStatements();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), connection.session().executeBatch(insert, {{1}, {2}, {3}}));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(4), countRows(connection, "bt_retry_batch"));
		CPPUNIT_ASSERT(Detail::isTransactionPooler(poolerEndpoint()));
		connection.executeSimple("DROP TABLE bt_retry_batch");
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerAutoRetryTest);
