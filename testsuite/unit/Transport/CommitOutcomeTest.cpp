//
// CommitOutcomeTest.cpp
//
// The judgement of a primary's pg_xact_status() answer about a transaction whose COMMIT lost its answer
// (doc/outcomes.md, "How the answer is judged"): the transaction's own timeline, a lost timeline tail read
// from the history file, a switch after the transaction's WAL, no readable history, an xid never assigned;
// the commit record read from the capture query's row; the history file's format.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/CommitOutcome.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;

namespace {

CommitRecord record(Poco::UInt32 timeline = 1)
{
	CommitRecord r;
	r.endpoint = BlueTuskHostEndpoint("db-a", 5432);
	r.xid = "4294968296";   // epoch 1, xid 1000: xid8 keeps the epoch
	r.lsnBeforeCommit = Lsn::parse("0/3000148");
	r.timeline = timeline;
	return r;
}


StatusAnswer answer(const char* status, Poco::UInt32 timeline)
{
	StatusAnswer a;
	a.endpoint = BlueTuskHostEndpoint("db-b", 5432);
	if (status) a.status = std::string(status);
	a.timeline = timeline;
	return a;
}


StatusAnswer withHistory(StatusAnswer a, const std::string& history)
{
	a.historyReadable = true;
	a.history = history;
	return a;
}

} // namespace


class CommitOutcomeTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CommitOutcomeTest);
	CPPUNIT_TEST(testSameTimelineStatusIsTheTruth);
	CPPUNIT_TEST(testXidInFutureIsRolledBack);
	CPPUNIT_TEST(testLostTailIsRolledBackWhateverTheStatus);
	CPPUNIT_TEST(testSwitchAfterTheTransactionsWal);
	CPPUNIT_TEST(testWithoutHistoryCommittedIsUnknown);
	CPPUNIT_TEST(testTimelineNotAnAncestor);
	CPPUNIT_TEST(testOlderTimelineCannotTell);
	CPPUNIT_TEST(testRecordFromCapture);
	CPPUNIT_TEST(testHistoryParsing);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSameTimelineStatusIsTheTruth()
	{
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(), answer("committed", 1), why) == CommitOutcome::Committed);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("db-b:5432 (timeline 1) reports xid 4294968296 committed") != std::string::npos);
		CPPUNIT_ASSERT(judgeCommit(record(), answer("aborted", 1), why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT(judgeCommit(record(), answer("in progress", 1), why) == CommitOutcome::InProgress);
		CPPUNIT_ASSERT(judgeCommit(record(), answer(nullptr, 1), why) == CommitOutcome::Unknown);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("older than the commit log") != std::string::npos);
	}

	void testXidInFutureIsRolledBack()
	{
		StatusAnswer a = answer(nullptr, 2);
		a.xidInFuture = true;
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(), a, why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("never assigned xid 4294968296") != std::string::npos);
	}

	void testLostTailIsRolledBackWhateverTheStatus()
	{
		// Timeline 1 ended at 0/3000100 on the new primary, before the WAL position taken before COMMIT:
		// the commit record was on the lost tail; "committed" is another transaction's under the reused id.
		const std::string history = "1\t0/3000100\tno recovery target specified\n";
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(), withHistory(answer("committed", 2), history), why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("timeline 1 ended at 0/3000100") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("lost tail") != std::string::npos);
		// Exactly at the position: the commit record lies after it, so it is lost too.
		CPPUNIT_ASSERT(judgeCommit(record(), withHistory(answer("committed", 2), "1\t0/3000148\tx\n"), why) == CommitOutcome::RolledBack);
	}

	void testSwitchAfterTheTransactionsWal()
	{
		const std::string history = "1\t0/3000100\tfirst\n2\t0/4000000\tsecond\n";
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(2), withHistory(answer("committed", 3), history), why) == CommitOutcome::Committed);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("switched from 2 at 0/4000000") != std::string::npos);
		CPPUNIT_ASSERT(judgeCommit(record(2), withHistory(answer("aborted", 3), history), why) == CommitOutcome::RolledBack);
		// Learned at BEGIN: the position precedes the transaction's writes, so the switch after it proves
		// nothing about the xid; a commit could be another transaction's.
		CommitRecord atBegin = record(2);
		atBegin.takenAtBegin = true;
		CPPUNIT_ASSERT(judgeCommit(atBegin, withHistory(answer("committed", 3), history), why) == CommitOutcome::Unknown);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("learned at BEGIN") != std::string::npos);
		CPPUNIT_ASSERT(judgeCommit(atBegin, withHistory(answer("aborted", 3), history), why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT(judgeCommit(atBegin, answer("committed", 2), why) == CommitOutcome::Committed);   // its own timeline
		// After a promotion no transaction of the old primary is in progress: the id is not this one's.
		CPPUNIT_ASSERT(judgeCommit(record(2), withHistory(answer("in progress", 3), history), why) == CommitOutcome::RolledBack);
	}

	void testWithoutHistoryCommittedIsUnknown()
	{
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(), answer("committed", 2), why) == CommitOutcome::Unknown);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("reused id") != std::string::npos);
		CPPUNIT_ASSERT(judgeCommit(record(), answer("aborted", 2), why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT(judgeCommit(record(), answer("in progress", 2), why) == CommitOutcome::RolledBack);
	}

	void testTimelineNotAnAncestor()
	{
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(4), withHistory(answer("committed", 5), "1\t0/3000100\tx\n2\t0/5000000\ty\n"), why) == CommitOutcome::RolledBack);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("does not descend from timeline 4") != std::string::npos);
	}

	void testOlderTimelineCannotTell()
	{
		std::string why;
		CPPUNIT_ASSERT(judgeCommit(record(3), answer("committed", 2), why) == CommitOutcome::Unknown);
		CPPUNIT_ASSERT_MESSAGE(why, why.find("older than the transaction's 3") != std::string::npos);
	}

	void testRecordFromCapture()
	{
		QueryResult capture;
		capture.rows.append({std::string("4294968296"), std::string("0/3000148"), std::string("0000000A")});
		CommitRecord r = CommitRecord::fromCapture(BlueTuskHostEndpoint("db-a", 5432), capture);
		CPPUNIT_ASSERT_EQUAL(std::string("4294968296"), r.xid);
		CPPUNIT_ASSERT_EQUAL(std::string("0/3000148"), r.lsnBeforeCommit.toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(10), r.timeline);
		CPPUNIT_ASSERT_EQUAL(std::string("xid 4294968296 on db-a:5432 (timeline 10, WAL before COMMIT 0/3000148)"), r.toString());

		QueryResult nothingWritten;
		nothingWritten.rows.append({std::nullopt, std::string("0/3000148"), std::string("00000001")});
		CPPUNIT_ASSERT(!CommitRecord::fromCapture(BlueTuskHostEndpoint("db-a", 5432), nothingWritten).hasXid());

		QueryResult garbage;
		garbage.rows.append({std::string("12x"), std::string("0/1"), std::string("00000001")});
		CPPUNIT_ASSERT_THROW(CommitRecord::fromCapture(BlueTuskHostEndpoint("db-a", 5432), garbage), BlueTuskProtocolException);
		QueryResult badTimeline;
		badTimeline.rows.append({std::string("12"), std::string("0/1"), std::string("1")});
		CPPUNIT_ASSERT_THROW(CommitRecord::fromCapture(BlueTuskHostEndpoint("db-a", 5432), badTimeline), BlueTuskProtocolException);
	}

	void testHistoryParsing()
	{
		bool found = false;
		const std::string history = "# a comment\n1\t0/3000100\tno recovery target specified\n\n2\t1/A0000028\tbefore 2026-12-03\n";
		CPPUNIT_ASSERT_EQUAL(std::string("1/A0000028"), timelineSwitchPoint(history, 2, found).toString());
		CPPUNIT_ASSERT(found);
		timelineSwitchPoint(history, 3, found);
		CPPUNIT_ASSERT(!found);
		CPPUNIT_ASSERT_THROW(timelineSwitchPoint("garbage\n", 1, found), BlueTuskProtocolException);
		CPPUNIT_ASSERT_EQUAL(std::string("pg_wal/0000000C.history"), StatusAnswer::historyFile(12));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CommitOutcomeTest);
