//
// CommitOutcomeIntegrationTest.cpp
//
// Commit outcome resolution and runInTransaction() against the local cluster (doc/outcomes.md): the capture
// query and COMMIT in one write on a real server (the xid is the transaction's own), pg_xact_status() of
// real xids through the routed resolver (committed, aborted, one the server never assigned), a backend
// terminated while its COMMIT runs (a deferred trigger) resolved as rolled back, and a real
// serialization failure (write skew under SERIALIZABLE) retried by the default policy.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/RoutingContext.h"
#include "datasource/RoutedOutcomeResolver.h"
#include "BlueTusk/Transaction.h"
#include "TestEnvironment.h"
#include "Poco/NumberParser.h"
#include "Poco/Thread.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string standbysFirst()
	/// the standbys first, no Target Session Attributes (any).
{
	return cluster().connectionString("127.0.0.2,127.0.0.3,127.0.0.1", "SSL Mode=disable;Timeout=2");
}


std::string hosts()
{
	return cluster().connectionString("127.0.0.1,127.0.0.2,127.0.0.3", "SSL Mode=disable;Timeout=2;Target Session Attributes=read-write");
}


void recreate(BlueTuskConnection& lease, const std::string& table)
{
	lease.executeSimple("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int, v int)");
}


CommitRecord recordOf(BlueTuskConnection& lease)
	/// The capture query run inside the open transaction, as commit() sends it.
{
	std::vector<QueryResult> results = lease.executeSimple(CommitRecord::CAPTURE_SQL);
	return CommitRecord::fromCapture(lease.connectedEndpoint(), results.at(0));
}

} // namespace


class CommitOutcomeIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CommitOutcomeIntegrationTest);
	CPPUNIT_TEST(testCaptureTravelsWithCommit);
	CPPUNIT_TEST(testStatusOfRealXids);
	CPPUNIT_TEST(testSessionEndedDuringCommit);
	CPPUNIT_TEST(testSerializationFailureRetried);
	CPPUNIT_TEST(testNoTargetWritesOnPrimary);
	CPPUNIT_TEST(testReadOnlySqlTransactionRetriedOnPrimary);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCaptureTravelsWithCommit()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(hosts(), connector);
		BlueTuskConnection lease = dataSource->open();
		recreate(lease, "outcome_capture");
		Transaction transaction(lease.session());
		lease.executeSimple("INSERT INTO outcome_capture VALUES (1, 1)");
		const std::string own = *lease.executeSimple("SELECT pg_current_xact_id()::text").at(0).rows.at(0).at(0);
		std::vector<std::vector<QueryResult>> answers;
		lease.session().executeSimpleSequence({CommitRecord::CAPTURE_SQL, "COMMIT"}, answers);
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), answers.size());
		CommitRecord record = CommitRecord::fromCapture(lease.connectedEndpoint(), answers[0].at(0));
		CPPUNIT_ASSERT_EQUAL(own, record.xid);                 // the transaction's own xid8
		CPPUNIT_ASSERT(record.timeline >= 1);
		CPPUNIT_ASSERT(record.lsnBeforeCommit.isValid());
		CPPUNIT_ASSERT_EQUAL(std::string("COMMIT"), answers[1].at(0).commandTag);
		CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::Idle);
		transaction.rollback();   // nothing open any more: ROLLBACK only warns
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *lease.executeSimple("SELECT count(*) FROM outcome_capture").at(0).rows.at(0).at(0));
	}

	void testStatusOfRealXids()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(hosts(), connector);
		RoutedOutcomeResolver resolver(dataSource->settings(), connector, Poco::Timespan(5, 0));
		BlueTuskConnection lease = dataSource->open();
		recreate(lease, "outcome_status");

		CommitRecord committed;
		{
			Transaction transaction(lease.session());
			lease.executeSimple("INSERT INTO outcome_status VALUES (1, 1)");
			committed = recordOf(lease);
			transaction.commit();
		}
		std::string why;
		CPPUNIT_ASSERT_MESSAGE(why, resolver.resolve(committed, why) == CommitOutcome::Committed);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("reports xid " + committed.xid + " committed") != std::string::npos);

		CommitRecord aborted;
		{
			Transaction transaction(lease.session());
			lease.executeSimple("INSERT INTO outcome_status VALUES (2, 2)");
			aborted = recordOf(lease);
			transaction.rollback();
		}
		CPPUNIT_ASSERT_MESSAGE(why, resolver.resolve(aborted, why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("reports xid " + aborted.xid + " aborted") != std::string::npos);

		// An xid far beyond what the server assigned: PostgreSQL's 22023 "is in the future".
		CommitRecord future = committed;
		future.xid = std::to_string(Poco::NumberParser::parseUnsigned64(committed.xid) + 1000000000ULL);
		CPPUNIT_ASSERT_MESSAGE(why, resolver.resolve(future, why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("never assigned xid " + future.xid) != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(1, resolver.attemptsMade());

		// The history file of the server's timeline is readable by the application role (scripts/cluster's
		// grant) when the cluster has one (after a promotion); timeline 1 has none.
		if (committed.timeline > 1)
		{
			QueryResult history = lease.execute(StatusAnswer::HISTORY_SQL, {FieldValue(StatusAnswer::historyFile(committed.timeline))});
			bool found = false;
			timelineSwitchPoint(*history.rows.at(0).at(0), committed.timeline - 1, found);
			CPPUNIT_ASSERT(found);
		}
	}

	void testSessionEndedDuringCommit()
	{
		// A deferred constraint trigger makes COMMIT run for 3 s; the backend is terminated meanwhile (its
		// client gets FATAL 57P01 instead of COMMIT's answer): the resolution asks the primary, which reports
		// the xid aborted.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(hosts(), connector);
		BlueTuskConnection other = dataSource->open();
		recreate(other, "outcome_deferred");
		other.executeSimple("CREATE OR REPLACE FUNCTION outcome_slow() RETURNS trigger LANGUAGE plpgsql AS "
			"$$ BEGIN PERFORM pg_sleep(3); RETURN NULL; END $$; "
			"CREATE CONSTRAINT TRIGGER outcome_slow AFTER INSERT ON outcome_deferred DEFERRABLE INITIALLY DEFERRED "
			"FOR EACH ROW EXECUTE FUNCTION outcome_slow()");
		BlueTuskConnection lease = dataSource->open();
		const std::string pid = *lease.executeSimple("SELECT pg_backend_pid()").at(0).rows.at(0).at(0);
		TransactionOptions options;
		options.outcomeResolver = dataSource->outcomeResolver(Poco::Timespan(5, 0));
		Transaction transaction(lease.session(), options);
		lease.executeSimple("INSERT INTO outcome_deferred VALUES (1, 1)");
		std::thread terminator([&]
		{
			Poco::Thread::sleep(500);
			other.executeSimple("SELECT pg_terminate_backend(" + pid + ")");
		});
		std::string message, cause;
		try
		{
			transaction.commit();
		}
		catch (BlueTuskTransactionRolledBackException& exc)
		{
			message = exc.displayText();
			if (exc.nested()) cause = exc.nested()->displayText();
		}
		terminator.join();
		CPPUNIT_ASSERT_MESSAGE(message, message.find("reports xid ") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(" aborted") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(cause, cause.find("57P01") != std::string::npos);   // the connection failure, nested
		CPPUNIT_ASSERT_EQUAL(std::string("0"), *other.executeSimple("SELECT count(*) FROM outcome_deferred").at(0).rows.at(0).at(0));
	}

	void testSerializationFailureRetried()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(hosts(), connector);
		{
			BlueTuskConnection setup = dataSource->open();
			recreate(setup, "outcome_skew");
		}
		BlueTuskConnection other = dataSource->open();
		TransactionOptions serializable;
		serializable.isolation = IsolationLevel::Serializable;
		int calls = 0;
		const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			++calls;
			lease.executeSimple("SELECT sum(v) FROM outcome_skew");
			if (calls == 1)
			{
				// Write skew: a concurrent serializable transaction reads the same rows, writes and commits first.
				Transaction concurrent(other.session(), serializable);
				other.executeSimple("SELECT sum(v) FROM outcome_skew");
				other.executeSimple("INSERT INTO outcome_skew VALUES (2, 1)");
				concurrent.commit();
			}
			lease.executeSimple("INSERT INTO outcome_skew VALUES (1, 1)");
		}, "default", serializable);
		CPPUNIT_ASSERT_EQUAL(2u, attempts);
		CPPUNIT_ASSERT_EQUAL(2, calls);
		CPPUNIT_ASSERT_EQUAL(std::string("2"), *other.executeSimple("SELECT count(*) FROM outcome_skew").at(0).rows.at(0).at(0));
	}

	void testNoTargetWritesOnPrimary()
	{
		// Before this was fixed, the unit of work took the data source's target (any) and ran on 127.0.0.2, a
		// standby: 25006 on each of the default policy's five attempts.
		RoutingContext connector;
		{
			BlueTuskConnection setup = BlueTuskDataSource::create(hosts(), connector)->open();
			recreate(setup, "outcome_targets");
		}
		auto dataSource = BlueTuskDataSource::create(standbysFirst(), connector);
		std::vector<std::string> hostsUsed;
		const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
		{
			hostsUsed.push_back(lease.connectedEndpoint().host());
			lease.executeSimple("INSERT INTO outcome_targets VALUES (1, 1)");
		});
		CPPUNIT_ASSERT_EQUAL(1u, attempts);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), hostsUsed.at(0));
		BlueTuskConnection check = dataSource->open(TargetSessionAttributes::Primary);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *check.executeSimple("SELECT count(*) FROM outcome_targets WHERE id = 1").at(0).rows.at(0).at(0));
	}

	void testReadOnlySqlTransactionRetriedOnPrimary()
	{
		// Target any on purpose: the first attempt lands on the standby 127.0.0.2 and gets 25006 from its
		// INSERT; the retry goes to a writable server, not to a standby again.
		RoutingContext connector;
		{
			BlueTuskConnection setup = BlueTuskDataSource::create(hosts(), connector)->open();
			recreate(setup, "outcome_targets");
		}
		auto dataSource = BlueTuskDataSource::create(standbysFirst(), connector);
		std::vector<std::string> hostsUsed;
		const unsigned attempts = dataSource->runInTransaction(TargetSessionAttributes::Any, [&](BlueTuskConnection& lease, Transaction&)
		{
			hostsUsed.push_back(lease.connectedEndpoint().host());
			lease.executeSimple("INSERT INTO outcome_targets VALUES (2, 1)");
		});
		CPPUNIT_ASSERT_EQUAL(2u, attempts);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2"), hostsUsed.at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), hostsUsed.at(1));
		BlueTuskConnection check = dataSource->open(TargetSessionAttributes::Primary);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *check.executeSimple("SELECT count(*) FROM outcome_targets WHERE id = 2").at(0).rows.at(0).at(0));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CommitOutcomeIntegrationTest);
