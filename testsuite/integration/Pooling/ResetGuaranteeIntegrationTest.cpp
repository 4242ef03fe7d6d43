//
// ResetGuaranteeIntegrationTest.cpp
//
// What the reset on return guarantees (doc/pooling.md, "When a session comes back"), against the real primary: after
// a lease that SET a setting, created a temporary table, LISTENed, took a session-level advisory lock,
// opened a cursor WITH HOLD and left a transaction open, the next lease on the same server session sees
// none of it, both with DISCARD ALL and with the statement-keeping reset (the session holds a prepared
// statement of BlueTusk's statement cache, which stays). A lease that ran nothing leaves nothing pending.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "session/ProtocolSession.h"
#include "TestEnvironment.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string scalar(BlueTuskConnection& lease, const std::string& sql)
{
	return lease.executeSimple(sql).front().rows.at(0).at(0).value();
}


void dirty(BlueTuskConnection& lease)
{
	lease.executeSimple("SET work_mem = '7MB'");
	lease.executeSimple("SET application_name = 'reset-check'");
	lease.executeSimple("CREATE TEMP TABLE reset_check (x int)");
	lease.executeSimple("LISTEN reset_check_channel");
	lease.executeSimple("SELECT pg_advisory_lock(515151)");
	lease.executeSimple("BEGIN");
	lease.executeSimple("DECLARE reset_cursor CURSOR WITH HOLD FOR SELECT 1");
	lease.executeSimple("COMMIT");
	lease.executeSimple("BEGIN");
	lease.executeSimple("SET LOCAL statement_timeout = '1234ms'");
	lease.executeSimple("INSERT INTO reset_check VALUES (1)");
	CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::InTransaction);
}


void assertClean(BlueTuskConnection& lease, const std::string& workMem)
{
	CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::Idle);
	CPPUNIT_ASSERT_EQUAL(workMem, scalar(lease, "SHOW work_mem"));
	CPPUNIT_ASSERT(scalar(lease, "SHOW application_name") != "reset-check");
	CPPUNIT_ASSERT_EQUAL(std::string("t"), scalar(lease, "SELECT to_regclass('pg_temp.reset_check') IS NULL"));
	CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(lease, "SELECT count(*) FROM pg_listening_channels()"));
	CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(lease,
		"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"));
	CPPUNIT_ASSERT_EQUAL(std::string("0"), scalar(lease, "SELECT count(*) FROM pg_cursors"));
	CPPUNIT_ASSERT_EQUAL(std::string("t"), scalar(lease, "SELECT current_user = session_user"));
	CPPUNIT_ASSERT(scalar(lease, "SHOW statement_timeout") != "1234ms");
}

} // namespace


class ResetGuaranteeIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ResetGuaranteeIntegrationTest);
	CPPUNIT_TEST(testNextLeaseSeesANewSession);
	CPPUNIT_TEST(testNextLeaseSeesANewSessionKeepingStatements);
	CPPUNIT_TEST(testEmptyLeaseLeavesNothingPending);
	CPPUNIT_TEST(testDeferredResetBeforeASimpleQuery);
	CPPUNIT_TEST(testDeferredResetBeforeAnExtendedQuery);
	CPPUNIT_TEST(testUnreadFetchEndsOnReturn);
	CPPUNIT_TEST(testUnreadFetchEndsOnReturnWithoutReset);
	CPPUNIT_TEST(testNotificationsAndNoticeHandlerStayWithTheirLease);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNextLeaseSeesANewSession()
	{
		run(false);
	}

	void testNextLeaseSeesANewSessionKeepingStatements()
	{
		run(true);
	}

	void testEmptyLeaseLeavesNothingPending()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0), "Maximum Pool Size=1;Timeout=10"), connector);
		std::string pid;
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT(!lease.session().control().ranSinceReset());   // new
		}
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT(!lease.session().control().isResetPending());
			pid = scalar(lease, "SELECT pg_backend_pid()");
		}
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT(lease.session().control().isResetPending());
			CPPUNIT_ASSERT_EQUAL(pid, scalar(lease, "SELECT pg_backend_pid()"));
		}
	}

	void testDeferredResetBeforeASimpleQuery()
	{
		deferredThenFirstCommand(false);
	}

	void testDeferredResetBeforeAnExtendedQuery()
	{
		deferredThenFirstCommand(true);
	}

	void testUnreadFetchEndsOnReturn()
	{
		fetchThenReturn("");
	}

	void testUnreadFetchEndsOnReturnWithoutReset()
	{
		// No Reset On Close keeps the server's session state, but not the last lease's portal: its implicit
		// transaction would hold a snapshot and locks in the pool (found by review, session 9).
		fetchThenReturn(";No Reset On Close=true");
	}

	void testNotificationsAndNoticeHandlerStayWithTheirLease()
	{
		// A lease that LISTENed and set a notice handler: the notification it did not take and the handler
		// (which may capture the lease's locals) do not reach the next lease on the same server session
		// (found by the review of the session-9 fixes).
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0), "Maximum Pool Size=1;Timeout=10"), connector);
		auto sender = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0), "Maximum Pool Size=1;Timeout=10;Application Name=notifier"), connector);
		int noticesOfFirst = 0;
		std::string pid;
		{
			BlueTuskConnection lease = dataSource->open();
			pid = scalar(lease, "SELECT pg_backend_pid()");
			dynamic_cast<ProtocolSession&>(lease.session()).setNoticeHandler([&noticesOfFirst](const BlueTuskServerException::Fields&) { ++noticesOfFirst; });
			lease.executeSimple("LISTEN reset_check_channel");
			{
				BlueTuskConnection other = sender->open();
				other.executeSimple("BEGIN; NOTIFY reset_check_channel, 'one'; NOTIFY reset_check_channel, 'two'; COMMIT");
			}
			Notification notification;
			CPPUNIT_ASSERT(lease.session().waitForNotification(Poco::Timespan(5, 0), notification));
			CPPUNIT_ASSERT_EQUAL(std::string("one"), notification.payload);   // 'two' arrives with it and is left
			lease.executeSimple("DO $$BEGIN RAISE NOTICE 'for the first lease'; END$$");
			CPPUNIT_ASSERT_EQUAL(1, noticesOfFirst);
		}
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(pid, scalar(lease, "SELECT pg_backend_pid()"));
		lease.executeSimple("DO $$BEGIN RAISE NOTICE 'for the second lease'; END$$");
		CPPUNIT_ASSERT_EQUAL(1, noticesOfFirst);
		const std::vector<Notification> inherited = lease.session().takeNotifications();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(inherited.empty() ? std::string() : inherited.front().payload, std::size_t(0), inherited.size());
	}

private:
	void deferredThenFirstCommand(bool extended)
	{
		// A lease returned with no transaction open: its reset is deferred and goes out, pipelined
		// (Parse/Bind/Execute of DISCARD ALL with no Sync of its own), in front of the next lease's first
		// command. That very command already sees none of the last lease's state: settings, a temporary
		// table, a prepared statement (SQL PREPARE), LISTEN, a session-level advisory lock, a cursor WITH
		// HOLD, SET ROLE.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0), "Maximum Pool Size=1;Timeout=10"), connector);
		std::string pid, workMem;
		{
			BlueTuskConnection lease = dataSource->open();
			pid = scalar(lease, "SELECT pg_backend_pid()");
			workMem = scalar(lease, "SHOW work_mem");
			lease.executeSimple("SET work_mem = '7MB'");
			lease.executeSimple("CREATE TEMP TABLE reset_check (x int)");
			lease.executeSimple("PREPARE reset_check_plan AS SELECT 1");
			lease.executeSimple("LISTEN reset_check_channel");
			lease.executeSimple("SELECT pg_advisory_lock(515152)");
			lease.executeSimple("BEGIN; DECLARE reset_cursor CURSOR WITH HOLD FOR SELECT 1; COMMIT");
			lease.executeSimple("SET ROLE pg_monitor");
			CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::Idle);
		}
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT(lease.session().control().isResetPending());   // deferred: nothing sent on return
		const std::string probe = "SELECT pg_backend_pid()::text, current_setting('work_mem'), "
			"(to_regclass('pg_temp.reset_check') IS NULL)::text, (SELECT count(*) FROM pg_prepared_statements)::text, "
			"(SELECT count(*) FROM pg_listening_channels())::text, "
			"(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())::text, "
			"(SELECT count(*) FROM pg_cursors WHERE name = 'reset_cursor')::text, (current_user = session_user)::text";
		std::vector<std::string> values;
		if (extended)
		{
			const QueryResult result = lease.session().execute(probe + " WHERE $1::int = 1", {FieldValue(std::string("1"))});
			for (std::size_t i = 0; i < 8; ++i) values.push_back(result.rows.at(0).at(i).value());
		}
		else
		{
			const QueryResult result = lease.executeSimple(probe).front();
			for (std::size_t i = 0; i < 8; ++i) values.push_back(result.rows.at(0).at(i).value());
		}
		CPPUNIT_ASSERT(!lease.session().control().isResetPending());
		CPPUNIT_ASSERT_EQUAL(pid, values[0]);   // the same server session
		CPPUNIT_ASSERT_EQUAL(workMem, values[1]);
		CPPUNIT_ASSERT_EQUAL(std::string("true"), values[2]);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), values[3]);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), values[4]);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), values[5]);
		CPPUNIT_ASSERT_EQUAL(std::string("0"), values[6]);
		CPPUNIT_ASSERT_EQUAL(std::string("true"), values[7]);
		CPPUNIT_ASSERT(lease.session().transactionStatus() == TransactionStatus::Idle);
	}

	void fetchThenReturn(const std::string& extra)
	{
		// A lease that began a fetch and did not read it to the end, once with the portal still open and
		// once after another command read its rest ahead: the next lease on the same server session must
		// see no fetch of its own (before: with No Reset On Close the portal stayed open, and with either
		// setting rows read ahead reached the next lease's fetch()), and the server session is idle, not
		// idle in the portal's transaction.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0), "Maximum Pool Size=1;Timeout=10" + extra), connector);
		auto observer = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0), "Maximum Pool Size=1;Timeout=10;Application Name=observer"), connector);
		for (const bool readAhead: {false, true})
		{
			std::string pid;
			{
				BlueTuskConnection lease = dataSource->open();
				pid = scalar(lease, "SELECT pg_backend_pid()");
				PreparedStatement series = lease.prepare("SELECT generate_series(1, 100000) AS i");
				CPPUNIT_ASSERT_EQUAL(std::size_t(10), lease.session().beginFetch(series, {}, 10).rows.size());
				if (readAhead) CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(lease, "SELECT 1"));   // reads the portal's rest ahead
				CPPUNIT_ASSERT(lease.session().isFetching());
			}
			{
				BlueTuskConnection watch = observer->open();
				CPPUNIT_ASSERT_EQUAL(std::string("idle"), scalar(watch, "SELECT state FROM pg_stat_activity WHERE pid = " + pid));
			}
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT_EQUAL(pid, scalar(lease, "SELECT pg_backend_pid()"));
			CPPUNIT_ASSERT(!lease.session().isFetching());
			CPPUNIT_ASSERT_EQUAL(std::size_t(0), lease.session().fetch(10).rows.size());
		}
	}

	void run(bool keepStatements)
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(0),
			"Maximum Pool Size=1;Timeout=10;Auto Prepare Min Usages=1"), connector);
		std::string pid, workMem;
		{
			BlueTuskConnection lease = dataSource->open();
			pid = scalar(lease, "SELECT pg_backend_pid()");
			workMem = scalar(lease, "SHOW work_mem");
			if (keepStatements) CPPUNIT_ASSERT_EQUAL(Poco::Int32(6), lease.query("SELECT $1::int4 * 2 AS doubled", {3}).row(0).get<Poco::Int32>("doubled"));
			dirty(lease);
		}
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(pid, scalar(lease, "SELECT pg_backend_pid()"));   // the same server session
		assertClean(lease, workMem);
		const std::string prepared = scalar(lease, "SELECT count(*) FROM pg_prepared_statements WHERE statement = 'SELECT $1::int4 * 2 AS doubled'");
		CPPUNIT_ASSERT_EQUAL(std::string(keepStatements ? "1" : "0"), prepared);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ResetGuaranteeIntegrationTest);
