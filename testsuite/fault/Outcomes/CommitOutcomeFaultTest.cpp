//
// CommitOutcomeFaultTest.cpp
//
// Commit outcome resolution over the project's fake backends (doc/outcomes.md): an old primary that dies
// after receiving COMMIT, before answering, and a second peer, the "new primary", that answers
// pg_xact_statusAnswer() committed, aborted, in progress, "in the future", or not at all; a timeline switch with
// and without a readable history file; a primary that answers COMMIT and then dies (no question asked);
// the transaction id query travelling in the same write as COMMIT; an autocommit write with resolution.
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
const std::string XID = "4294968296";


BackendScript oldPrimary(const QueryAnswer& commit)
{
	return BackendScript::primary().answer(CommitRecord::CAPTURE_SQL, captureAnswer(XID)).answer("COMMIT", commit);
}


BackendScript newPrimary(const QueryAnswer& answer)
{
	return BackendScript::primary().answer(StatusAnswer::STATUS_SQL, answer);
}


struct Cluster
	/// An old primary on 127.0.0.1 and the would-be new primary on 127.0.0.2, a read-write data source over
	/// both; crash() turns the old one away for new connections (57P03) while its open session keeps its
	/// answers, so the resolution routes to the second.
{
	FakeBackend first;
	FakeBackend second;
	RoutingContext connector;
	BlueTuskDataSource::Ptr dataSource;

	Cluster(const BackendScript& old, const BackendScript& next):
		first(old, "127.0.0.1"),
		second(next, "127.0.0.2")
	{
		dataSource = BlueTuskDataSource::create("Host=" + first.hostAndPort() + "," + second.hostAndPort() +
			";Username=app;SSL Mode=disable;Timeout=2;Target Session Attributes=read-write", connector);
	}

	void crash()
	{
		Test::crash(first);
	}

	long statusQueries() const
	{
		return countOf(second.queries(), StatusAnswer::STATUS_SQL);
	}
};


enum class Result { Committed, RolledBack, Unknown, Other };


Result commitOnce(Cluster& cluster, const Poco::Timespan& timeout, std::string& message)
	/// One transaction through a lease: BEGIN, the INSERT, commit() with a resolver of the data source.
{
	BlueTuskConnection lease = cluster.dataSource->open();
	CPPUNIT_ASSERT_EQUAL(cluster.first.endpoint().toString(), lease.connectedEndpoint().toString());
	TransactionOptions options;
	options.outcomeResolver = cluster.dataSource->outcomeResolver(timeout);
	Transaction transaction(lease.session(), options);
	lease.executeSimple(INSERT);
	cluster.crash();
	try
	{
		transaction.commit();
		return Result::Committed;
	}
	catch (BlueTuskTransactionRolledBackException& exc)
	{
		message = exc.displayText();
		return Result::RolledBack;
	}
	catch (BlueTuskCommitOutcomeUnknownException& exc)
	{
		message = exc.displayText();
		return Result::Unknown;
	}
	catch (Poco::Exception& exc)
	{
		message = exc.displayText();
		return Result::Other;
	}
}

} // namespace


class CommitOutcomeFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CommitOutcomeFaultTest);
	CPPUNIT_TEST(testCommitSentInSameWriteAsXidQuery);
	CPPUNIT_TEST(testDiedBeforeAnswerNewPrimarySaysCommitted);
	CPPUNIT_TEST(testDiedBeforeAnswerNewPrimarySaysAborted);
	CPPUNIT_TEST(testDiedBeforeAnswerXidNeverAssigned);
	CPPUNIT_TEST(testInProgressUntilDeadlineIsUnknown);
	CPPUNIT_TEST(testNoServerAnswersIsUnknown);
	CPPUNIT_TEST(testLostTailAfterTimelineSwitch);
	CPPUNIT_TEST(testTimelineSwitchAfterTransactionWal);
	CPPUNIT_TEST(testTimelineSwitchWithoutHistory);
	CPPUNIT_TEST(testTimelineSwitchWithoutHistoryAborted);
	CPPUNIT_TEST(testDiedAfterAnswering);
	CPPUNIT_TEST(testDiedBeforeXidArrived);
	CPPUNIT_TEST(testNothingAnsweredXidFromBegin);
	CPPUNIT_TEST(testBrokenBeforeCommit);
	CPPUNIT_TEST(testAutocommitWriteResolved);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCommitSentInSameWriteAsXidQuery()
	{
		Cluster cluster(oldPrimary(QueryAnswer::command("COMMIT")), newPrimary(statusAnswer("committed")));
		BlueTuskConnection lease = cluster.dataSource->open();
		TransactionOptions options;
		options.outcomeResolver = cluster.dataSource->outcomeResolver(Poco::Timespan(1, 0));
		Transaction transaction(lease.session(), options);
		lease.executeSimple(INSERT);
		cluster.first.resetCounters();
		transaction.commit();
		// The capture query arrived with COMMIT already behind it: one write, no round trip between them.
		CPPUNIT_ASSERT_EQUAL(2, cluster.first.queryCount());
		CPPUNIT_ASSERT_EQUAL(std::string(CommitRecord::CAPTURE_SQL), cluster.first.queries()[0]);
		CPPUNIT_ASSERT_EQUAL(std::string("COMMIT"), cluster.first.queries()[1]);
		CPPUNIT_ASSERT_EQUAL(1, cluster.first.queriesPipelined());
		CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(0L, cluster.statusQueries());
		CPPUNIT_ASSERT(!transaction.isActive());
	}

	void testDiedBeforeAnswerNewPrimarySaysCommitted()
	{
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), newPrimary(statusAnswer("committed")));
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::Committed);
		CPPUNIT_ASSERT_EQUAL(1L, cluster.statusQueries());
		CPPUNIT_ASSERT_EQUAL(1L, countOf(cluster.first.queries(), "COMMIT"));
	}

	void testDiedBeforeAnswerNewPrimarySaysAborted()
	{
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), newPrimary(statusAnswer("aborted")));
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("xid " + XID + " on " + cluster.first.hostAndPort()) != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(cluster.second.hostAndPort() + " (timeline 1) reports xid " + XID + " aborted") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(1L, cluster.statusQueries());
	}

	void testDiedBeforeAnswerXidNeverAssigned()
	{
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()),
			newPrimary(QueryAnswer::error("22023", "transaction ID " + XID + " is in the future")));
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("never assigned xid " + XID) != std::string::npos);
	}

	void testInProgressUntilDeadlineIsUnknown()
	{
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), newPrimary(statusAnswer("in progress")));
		std::string message;
		Poco::Clock started;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(0, 400000), message) == Result::Unknown);
		const Poco::Timespan elapsed(started.elapsed());
		CPPUNIT_ASSERT_MESSAGE(message, message.find("no writable server could answer within 400 ms") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("in progress") != std::string::npos);
		// Asked again with backoff (50, 100, 200 ms ...) until the deadline: at least three times, at most eight.
		CPPUNIT_ASSERT(cluster.statusQueries() >= 3);
		CPPUNIT_ASSERT(cluster.statusQueries() <= 8);
		CPPUNIT_ASSERT(elapsed.totalMilliseconds() < 1500);
	}

	void testNoServerAnswersIsUnknown()
	{
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), BackendScript::startingUp());
		std::string message;
		Poco::Clock started;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(0, 300000), message) == Result::Unknown);
		CPPUNIT_ASSERT(Poco::Timespan(started.elapsed()).totalMilliseconds() < 1500);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("no writable server could answer within 300 ms") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("xid " + XID) != std::string::npos);
		CPPUNIT_ASSERT(cluster.second.startupMessages() >= 2);   // routed again after the backoff
	}

	void testLostTailAfterTimelineSwitch()
	{
		// The new primary is on timeline 2; timeline 1 ended at 0/3000100 there, before the WAL position
		// the transaction reported before COMMIT (0/3000148): "committed" is not this transaction's.
		BackendScript next = newPrimary(statusAnswer("committed", "00000002"))
			.answer(StatusAnswer::HISTORY_SQL, QueryAnswer::value("1\t0/3000100\tno recovery target specified\n"));
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), next);
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("timeline 1 ended at 0/3000100") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(1L, countOf(cluster.second.queries(), StatusAnswer::HISTORY_SQL));
	}

	void testTimelineSwitchAfterTransactionWal()
	{
		// Timeline 1 ended after the transaction's WAL: the new primary replayed it; its answer is the truth.
		BackendScript next = newPrimary(statusAnswer("committed", "00000002"))
			.answer(StatusAnswer::HISTORY_SQL, QueryAnswer::value("1\t0/4000000\tno recovery target specified\n"));
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), next);
		std::string message;
		CPPUNIT_ASSERT_MESSAGE(message, commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::Committed);
	}

	void testTimelineSwitchWithoutHistory()
	{
		BackendScript next = newPrimary(statusAnswer("committed", "00000002"))
			.answer(StatusAnswer::HISTORY_SQL, QueryAnswer::error("42501", "permission denied for function pg_read_file"));
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), next);
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::Unknown);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("history is not readable") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("reused id") != std::string::npos);
	}

	void testTimelineSwitchWithoutHistoryAborted()
	{
		BackendScript next = newPrimary(statusAnswer("aborted", "00000002"))
			.answer(StatusAnswer::HISTORY_SQL, QueryAnswer::error("42501", "permission denied for function pg_read_file"));
		Cluster cluster(oldPrimary(QueryAnswer::dropConnection()), next);
		std::string message;
		CPPUNIT_ASSERT_MESSAGE(message, commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::RolledBack);
	}

	void testDiedAfterAnswering()
	{
		Cluster cluster(oldPrimary(QueryAnswer::command("COMMIT").thenDisconnect()), newPrimary(statusAnswer("aborted")));
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::Committed);
		CPPUNIT_ASSERT_EQUAL(0L, cluster.statusQueries());   // the answer arrived: nothing to ask
		CPPUNIT_ASSERT(cluster.first.waitForActiveConnections(0, Poco::Timespan(2, 0)));
	}

	void testDiedBeforeXidArrived()
	{
		BackendScript old = BackendScript::primary().answer(CommitRecord::CAPTURE_SQL, QueryAnswer::dropConnection());
		Cluster cluster(old, newPrimary(statusAnswer("committed")));
		std::string message;
		CPPUNIT_ASSERT(commitOnce(cluster, Poco::Timespan(2, 0), message) == Result::Unknown);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("before the transaction id query") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0L, cluster.statusQueries());
	}

	void testNothingAnsweredXidFromBegin()
	{
		// xidAtBegin: BEGIN carried the capture (one Query); the COMMIT packet then gets no answer at all.
		BackendScript old = BackendScript::primary()
			.answer(CommitRecord::BEGIN_CAPTURE_SQL, captureAnswer(XID))
			.answer(CommitRecord::CAPTURE_SQL, QueryAnswer::dropConnection());
		Cluster cluster(old, newPrimary(statusAnswer("aborted")));
		BlueTuskConnection lease = cluster.dataSource->open();
		TransactionOptions options;
		options.outcomeResolver = cluster.dataSource->outcomeResolver(Poco::Timespan(2, 0));
		options.xidAtBegin = true;
		cluster.first.resetCounters();
		Transaction transaction(lease.session(), options);
		CPPUNIT_ASSERT_EQUAL(2, cluster.first.queryCount());   // BEGIN and the capture, one Query message
		CPPUNIT_ASSERT_EQUAL(0, cluster.first.queriesPipelined());
		lease.executeSimple(INSERT);
		cluster.crash();
		std::string message;
		try
		{
			transaction.commit();
		}
		catch (BlueTuskTransactionRolledBackException& exc)
		{
			message = exc.displayText();
		}
		CPPUNIT_ASSERT_MESSAGE(message, message.find("xid " + XID + " on " + cluster.first.hostAndPort() + " (timeline 1, WAL at BEGIN") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("reports xid " + XID + " aborted") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(1L, cluster.statusQueries());
	}

	void testBrokenBeforeCommit()
	{
		Cluster cluster(oldPrimary(QueryAnswer::command("COMMIT")).answer(INSERT, QueryAnswer::dropConnection()), newPrimary(statusAnswer("committed")));
		BlueTuskConnection lease = cluster.dataSource->open();
		TransactionOptions options;
		options.outcomeResolver = cluster.dataSource->outcomeResolver(Poco::Timespan(1, 0));
		Transaction transaction(lease.session(), options);
		CPPUNIT_ASSERT_THROW(lease.executeSimple(INSERT), BlueTuskSessionBrokenException);
		std::string message;
		try
		{
			transaction.commit();
		}
		catch (BlueTuskTransactionRolledBackException& exc)
		{
			message = exc.displayText();
		}
		CPPUNIT_ASSERT_MESSAGE(message, message.find("broke before COMMIT was sent") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0L, cluster.statusQueries());
	}

	void testAutocommitWriteResolved()
	{
		Cluster cluster(oldPrimary(QueryAnswer::command("COMMIT")), newPrimary(statusAnswer("committed")));
		auto resolver = cluster.dataSource->outcomeResolver(Poco::Timespan(2, 0));
		{
			BlueTuskConnection lease = cluster.dataSource->open();
			cluster.first.resetCounters();
			std::vector<QueryResult> results = Transaction::executeWithOutcome(lease.session(), INSERT, *resolver);
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), results.size());
			CPPUNIT_ASSERT_EQUAL(4, cluster.first.queryCount());   // BEGIN, the INSERT, the capture; COMMIT
			CPPUNIT_ASSERT_EQUAL(1, cluster.first.queriesPipelined());
			CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::Idle);
		}
		cluster.first.setScript(oldPrimary(QueryAnswer::dropConnection()));
		BlueTuskConnection lease = cluster.dataSource->open();
		cluster.crash();
		std::vector<QueryResult> results = Transaction::executeWithOutcome(lease.session(), INSERT, *resolver);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), results.size());
		CPPUNIT_ASSERT_EQUAL(1L, cluster.statusQueries());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CommitOutcomeFaultTest);
