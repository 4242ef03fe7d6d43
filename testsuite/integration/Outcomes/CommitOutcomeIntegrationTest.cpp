//
// CommitOutcomeIntegrationTest.cpp
//
// Commit outcome resolution and runInTransaction() against the local cluster (doc/outcomes.md): the capture
// query and COMMIT in one write on a real server (the xid is the transaction's own), pg_xact_status() of
// real xids through the routed resolver (committed, aborted, one the server never assigned), and a real
// serialization failure (write skew under SERIALIZABLE) retried by the default policy.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/Connector.h"
#include "BlueTusk/RoutedOutcomeResolver.h"
#include "BlueTusk/Transaction.h"
#include "TestEnvironment.h"
#include "Poco/NumberParser.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

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
	CPPUNIT_TEST(testSerializationFailureRetried);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCaptureTravelsWithCommit()
	{
		Connector connector;
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
		Connector connector;
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

	void testSerializationFailureRetried()
	{
		Connector connector;
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
};

CPPUNIT_TEST_SUITE_REGISTRATION(CommitOutcomeIntegrationTest);
