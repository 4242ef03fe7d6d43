//
// TransactionRetryFaultTest.cpp
//
// BlueTuskDataSource::runInTransaction() and the standard retry policies over the project's fake backends
// (doc/outcomes.md, "Retrying"): 40001 and 40P01 retried with a bounded backoff and counted, no-retry and
// read-only, a failover (a connection lost mid-transaction) retried on the new primary, a COMMIT resolved as
// rolled back retried, and never a retry after an unknown outcome or after work committed by itself.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/Transaction.h"
#include "OutcomeFaultSupport.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const INSERT = "INSERT INTO orders VALUES (1)";
const char* const CONFLICT = "UPDATE accounts SET balance = balance - 1";
const char* const DEADLOCK = "UPDATE stock SET count = count - 1";


BackendScript conflicting()
{
	return BackendScript::primary()
		.answer(CONFLICT, QueryAnswer::error("40001", "could not serialize access due to concurrent update"))
		.answer(DEADLOCK, QueryAnswer::error("40P01", "deadlock detected"));
}


BlueTuskDataSource::Ptr dataSourceFor(const std::string& hosts, RoutingContext& connector, const std::string& target = "read-write")
{
	return BlueTuskDataSource::create("Host=" + hosts + ";Username=app;SSL Mode=disable;Timeout=2" +
		(target.empty() ? std::string() : ";Target Session Attributes=" + target), connector);
}


BackendScript refusingStandby()
	/// A hot standby: a write gets 25006, as PostgreSQL answers it.
{
	return BackendScript::standby().answer(INSERT, QueryAnswer::error("25006", "cannot execute INSERT in a read-only transaction"));
}


} // namespace


class TransactionRetryFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TransactionRetryFaultTest);
	CPPUNIT_TEST(testSerializationFailureRetried);
	CPPUNIT_TEST(testDeadlockNotRetriedByNoRetry);
	CPPUNIT_TEST(testReadOnlyPolicy);
	CPPUNIT_TEST(testBackoffBoundedAndAttemptsCounted);
	CPPUNIT_TEST(testOtherErrorsNotRetried);
	CPPUNIT_TEST(testFailoverRetriedOnNewPrimary);
	CPPUNIT_TEST(testRolledBackCommitRetried);
	CPPUNIT_TEST(testNoRetryAfterUnknownOutcome);
	CPPUNIT_TEST(testNoRetryAfterWorkCommitted);
	CPPUNIT_TEST(testUnknownPolicyName);
	CPPUNIT_TEST(testNoTargetWritesOnPrimary);
	CPPUNIT_TEST(testReadOnlyWorkTakesDataSourceTarget);
	CPPUNIT_TEST(testReadOnlySqlTransactionRetriedOnWritableServer);
	CPPUNIT_TEST(testReadOnlySqlTransactionInReadOnlyWorkNotRetried);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSerializationFailureRetried()
	{
		FakeBackend primary(conflicting(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		int calls = 0;
		const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			lease.executeSimple(++calls < 3 ? CONFLICT : INSERT);
		});
		CPPUNIT_ASSERT_EQUAL(3u, attempts);
		CPPUNIT_ASSERT_EQUAL(3, calls);
		const std::vector<std::string> queries = primary.queries();
		CPPUNIT_ASSERT_EQUAL(3L, countOf(queries, "BEGIN"));
		CPPUNIT_ASSERT_EQUAL(2L, countOf(queries, "ROLLBACK"));   // the failed attempts, rolled back
		CPPUNIT_ASSERT_EQUAL(1L, countOf(queries, INSERT));
		CPPUNIT_ASSERT_EQUAL(1L, countOf(queries, "COMMIT"));
	}

	void testDeadlockNotRetriedByNoRetry()
	{
		FakeBackend primary(conflicting(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		int calls = 0;
		CPPUNIT_ASSERT_EQUAL(std::string("40P01"), sqlStateOf([&]
		{
			dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
			{
				++calls;
				lease.executeSimple(DEADLOCK);
			}, "no-retry");
		}));
		CPPUNIT_ASSERT_EQUAL(1, calls);

		// The default policy retries the deadlock.
		calls = 0;
		CPPUNIT_ASSERT_EQUAL(2u, dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			lease.executeSimple(++calls == 1 ? DEADLOCK : INSERT);
		}));
	}

	void testReadOnlyPolicy()
	{
		FakeBackend primary(conflicting(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		int calls = 0;
		auto work = [&](BlueTuskConnection& lease, Transaction&)
		{
			lease.executeSimple(++calls == 1 ? CONFLICT : "SELECT 1");
		};
		CPPUNIT_ASSERT_THROW(dataSource->runInTransaction(work, "read-only"), BlueTuskServerException);
		CPPUNIT_ASSERT_EQUAL(1, calls);   // a read-write unit of work is not re-run

		calls = 0;
		TransactionOptions readOnly;
		readOnly.readOnly = true;
		CPPUNIT_ASSERT_EQUAL(2u, dataSource->runInTransaction(work, "read-only", readOnly));
		CPPUNIT_ASSERT_EQUAL(2, calls);
		CPPUNIT_ASSERT(countOf(primary.queries(), "BEGIN READ ONLY") == 2);
	}

	void testBackoffBoundedAndAttemptsCounted()
	{
		FakeBackend primary(conflicting(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		int calls = 0;
		Poco::Clock started;
		const std::string sqlState = sqlStateOf([&]
		{
			dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
			{
				++calls;
				lease.executeSimple(CONFLICT);
			});
		});
		const Poco::Timespan::TimeDiff elapsedMs = Poco::Timespan(started.elapsed()).totalMilliseconds();
		CPPUNIT_ASSERT_EQUAL(std::string("40001"), sqlState);   // the last failure reaches the caller
		CPPUNIT_ASSERT_EQUAL(5, calls);                          // the default policy's five attempts
		// Waits of half to all of 50, 100, 200, 400 ms: 375 to 750 ms in all, plus the round trips.
		CPPUNIT_ASSERT(elapsedMs >= 375);
		CPPUNIT_ASSERT(elapsedMs < 2000);
	}

	void testOtherErrorsNotRetried()
	{
		FakeBackend primary(BackendScript::primary().answer(INSERT, QueryAnswer::error("23505", "duplicate key value violates unique constraint")), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		int calls = 0;
		CPPUNIT_ASSERT_EQUAL(std::string("23505"), sqlStateOf([&]
		{
			dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
			{
				++calls;
				lease.executeSimple(INSERT);
			});
		}));
		CPPUNIT_ASSERT_EQUAL(1, calls);
	}

	void testFailoverRetriedOnNewPrimary()
	{
		FakeBackend first(BackendScript::primary().answer(INSERT, QueryAnswer::dropConnection()), "127.0.0.1");
		FakeBackend second(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = dataSourceFor(first.hostAndPort() + "," + second.hostAndPort(), connector);
		std::vector<std::string> endpoints;
		const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			endpoints.push_back(lease.connectedEndpoint().toString());
			if (endpoints.size() == 1)
			{
				crash(first);                               // the primary dies during the transaction,
				second.setScript(BackendScript::primary()); // the standby is promoted
			}
			lease.executeSimple(INSERT);
		});
		CPPUNIT_ASSERT_EQUAL(2u, attempts);
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), endpoints.size());
		CPPUNIT_ASSERT_EQUAL(first.hostAndPort(), endpoints[0]);
		CPPUNIT_ASSERT_EQUAL(second.hostAndPort(), endpoints[1]);
		CPPUNIT_ASSERT_EQUAL(1L, countOf(second.queries(), "COMMIT"));
		CPPUNIT_ASSERT_EQUAL(0L, countOf(first.queries(), "COMMIT"));
	}

	void testRolledBackCommitRetried()
	{
		FakeBackend first(BackendScript::primary().answer(CommitRecord::CAPTURE_SQL, captureAnswer("777")).answer("COMMIT", QueryAnswer::dropConnection()), "127.0.0.1");
		FakeBackend second(BackendScript::primary().answer(StatusAnswer::STATUS_SQL, statusAnswer("aborted")), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = dataSourceFor(first.hostAndPort() + "," + second.hostAndPort(), connector);
		std::vector<std::string> endpoints;
		const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			endpoints.push_back(lease.connectedEndpoint().toString());
			lease.executeSimple(INSERT);
			if (endpoints.size() == 1) crash(first);
		});
		CPPUNIT_ASSERT_EQUAL(2u, attempts);
		CPPUNIT_ASSERT_EQUAL(second.hostAndPort(), endpoints.at(1));
		CPPUNIT_ASSERT_EQUAL(1L, countOf(second.queries(), StatusAnswer::STATUS_SQL));
		CPPUNIT_ASSERT_EQUAL(1L, countOf(second.queries(), "COMMIT"));   // the second attempt's, answered
	}

	void testNoRetryAfterUnknownOutcome()
	{
		FakeBackend first(BackendScript::primary().answer(CommitRecord::CAPTURE_SQL, captureAnswer("777")).answer("COMMIT", QueryAnswer::dropConnection()), "127.0.0.1");
		FakeBackend second(BackendScript::startingUp(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = dataSourceFor(first.hostAndPort() + "," + second.hostAndPort(), connector);
		TransactionOptions options;
		options.outcomeResolver = dataSource->outcomeResolver(Poco::Timespan(0, 200000));
		int calls = 0;
		CPPUNIT_ASSERT_THROW(dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			++calls;
			lease.executeSimple(INSERT);
			crash(first);
		}, "default", options), BlueTuskCommitOutcomeUnknownException);
		CPPUNIT_ASSERT_EQUAL(1, calls);
		CPPUNIT_ASSERT_EQUAL(1L, countOf(first.queries(), INSERT));
	}

	void testNoRetryAfterWorkCommitted()
	{
		FakeBackend primary(conflicting(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		int calls = 0;
		CPPUNIT_ASSERT_THROW(dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction& transaction)
		{
			++calls;
			lease.executeSimple(INSERT);
			transaction.commit();           // committed: whatever follows must not run the INSERT again
			lease.executeSimple(CONFLICT);
		}), BlueTuskServerException);
		CPPUNIT_ASSERT_EQUAL(1, calls);
		CPPUNIT_ASSERT_EQUAL(1L, countOf(primary.queries(), INSERT));
	}

	void testUnknownPolicyName()
	{
		FakeBackend primary(conflicting(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		std::string message;
		try
		{
			dataSource->runInTransaction([](BlueTuskConnection&, Transaction&) {}, "forever");
		}
		catch (BlueTuskPluginException& exc)
		{
			message = exc.displayText();
		}
		CPPUNIT_ASSERT_MESSAGE(message, message.find("no retry policy named \"forever\"; available: default, no-retry, read-only") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, primary.queryCount());
	}

	void testNoTargetWritesOnPrimary()
	{
		// a host list whose first host is a standby and no Target Session Attributes (any).
		// Before, the unit of work ran on the data source's target, the standby: 25006 on every one of the
		// default policy's five attempts. Without a target runInTransaction() now takes read-write.
		FakeBackend standby(refusingStandby(), "127.0.0.1");
		FakeBackend primary(BackendScript::primary(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = dataSourceFor(standby.hostAndPort() + "," + primary.hostAndPort(), connector, "");
		std::vector<std::string> endpoints;
		const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			endpoints.push_back(lease.connectedEndpoint().toString());
			lease.executeSimple(INSERT);
		});
		CPPUNIT_ASSERT_EQUAL(1u, attempts);
		CPPUNIT_ASSERT_EQUAL(primary.hostAndPort(), endpoints.at(0));
		CPPUNIT_ASSERT_EQUAL(0L, countOf(standby.queries(), INSERT));
		CPPUNIT_ASSERT_EQUAL(1L, countOf(primary.queries(), "COMMIT"));
		// The data source's own target is unchanged for open().
		CPPUNIT_ASSERT_EQUAL(standby.hostAndPort(), dataSource->open().connectedEndpoint().toString());
	}

	void testReadOnlyWorkTakesDataSourceTarget()
	{
		// A unit of work declared read-only (TransactionOptions::readOnly) keeps the data source's target.
		FakeBackend primary(BackendScript::primary(), "127.0.0.1");
		FakeBackend standby(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort() + "," + standby.hostAndPort(), connector, "prefer-standby");
		TransactionOptions readOnly;
		readOnly.readOnly = true;
		std::string endpoint;
		auto work = [&](BlueTuskConnection& lease, Transaction&)
		{
			endpoint = lease.connectedEndpoint().toString();
			lease.executeSimple("SELECT 1");
		};
		CPPUNIT_ASSERT_EQUAL(1u, dataSource->runInTransaction(work, "read-only", readOnly));
		CPPUNIT_ASSERT_EQUAL(standby.hostAndPort(), endpoint);
		CPPUNIT_ASSERT_EQUAL(1u, dataSource->runInTransaction(work));                  // not declared read-only: read-write
		CPPUNIT_ASSERT_EQUAL(primary.hostAndPort(), endpoint);
		CPPUNIT_ASSERT_EQUAL(1u, dataSource->runInTransaction(TargetSessionAttributes::PreferStandby, work));   // as asked
		CPPUNIT_ASSERT_EQUAL(standby.hostAndPort(), endpoint);
	}

	void testReadOnlySqlTransactionRetriedOnWritableServer()
	{
		// A unit of work given target any lands on the first host, a standby, and its INSERT gets 25006: the
		// retry goes to a writable server (read-write), not to the standby again (under a kill -9
		// of the primary, 209 of 215 such units failed because every retry landed on a standby).
		FakeBackend standby(refusingStandby(), "127.0.0.1");
		FakeBackend primary(BackendScript::primary(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = dataSourceFor(standby.hostAndPort() + "," + primary.hostAndPort(), connector, "");
		std::vector<std::string> endpoints;
		const unsigned attempts = dataSource->runInTransaction(TargetSessionAttributes::Any, [&](BlueTuskConnection& lease, Transaction&)
		{
			endpoints.push_back(lease.connectedEndpoint().toString());
			lease.executeSimple(INSERT);
		});
		CPPUNIT_ASSERT_EQUAL(2u, attempts);
		CPPUNIT_ASSERT_EQUAL(standby.hostAndPort(), endpoints.at(0));
		CPPUNIT_ASSERT_EQUAL(primary.hostAndPort(), endpoints.at(1));
		CPPUNIT_ASSERT_EQUAL(1L, countOf(standby.queries(), INSERT));
		CPPUNIT_ASSERT_EQUAL(1L, countOf(primary.queries(), "COMMIT"));

		// The same with a policy object and target standby: the retry still needs a writable server.
		endpoints.clear();
		RetryPolicy::Ptr policy = connector.retryPolicy("default");
		CPPUNIT_ASSERT_EQUAL(2u, dataSource->runInTransaction(TargetSessionAttributes::Standby, [&](BlueTuskConnection& lease, Transaction&)
		{
			endpoints.push_back(lease.connectedEndpoint().toString());
			lease.executeSimple(INSERT);
		}, *policy));
		CPPUNIT_ASSERT_EQUAL(standby.hostAndPort(), endpoints.at(0));
		CPPUNIT_ASSERT_EQUAL(primary.hostAndPort(), endpoints.at(1));
	}

	void testReadOnlySqlTransactionInReadOnlyWorkNotRetried()
	{
		// 25006 inside a transaction the unit of work declared read-only is its own doing: every server would
		// answer the same, so it reaches the caller at once.
		FakeBackend primary(BackendScript::primary().answer(INSERT, QueryAnswer::error("25006", "cannot execute INSERT in a read-only transaction")), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(primary.hostAndPort(), connector);
		TransactionOptions readOnly;
		readOnly.readOnly = true;
		int calls = 0;
		CPPUNIT_ASSERT_EQUAL(std::string("25006"), sqlStateOf([&]
		{
			dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
			{
				++calls;
				lease.executeSimple(INSERT);
			}, "default", readOnly);
		}));
		CPPUNIT_ASSERT_EQUAL(1, calls);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TransactionRetryFaultTest);
