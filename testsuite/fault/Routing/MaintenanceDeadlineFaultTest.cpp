//
// MaintenanceDeadlineFaultTest.cpp
//
// BlueTusk's own round trips between leases have a deadline even with the default Command Timeout of 0
// (found by review, session 9; doc/reliability.md, finding 17): a server that freezes (a SIGSTOPped
// backend: the kernel still acknowledges) while
//   - a targeted checkout refreshes an idle session's role (the deferred DISCARD ALL carries it),
//   - the pool's pruning thread sends a deferred DISCARD ALL that waited too long,
//   - the router probes a pre-14 server's role after the open,
// costs the Timeout at most, after which the session is closed and the checkout goes on; before, each
// waited for as long as the server stayed frozen (the pruning thread, and with it every endpoint's
// eviction and the data source's destruction). Also: a pre-14 server is probed once per open, not
// twice, and waitForNotification() keeps its timeout however slowly a message trickles in (finding 18).
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const PROBE = "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), pg_backend_pid()";


std::string options(const FakeBackend& server, const std::string& extra)
{
	return "Host=" + server.hostAndPort() + ";Username=app;Password=maintenance-secret;SSL Mode=disable;Timeout=1;Maximum Pool Size=1" + extra;
}


long probesIn(const std::vector<std::string>& queries)
{
	return static_cast<long>(std::count_if(queries.begin(), queries.end(), [](const std::string& q) { return q.find("pg_is_in_recovery") != std::string::npos; }));
}


long resetsIn(const std::vector<std::string>& queries)
{
	return static_cast<long>(std::count(queries.begin(), queries.end(), std::string("DISCARD ALL")));
}


double secondsSince(const Poco::Clock& clock)
{
	return static_cast<double>(clock.elapsed()) / 1e6;
}


std::string notificationMessage(const std::string& channel, const std::string& payload)
	/// NotificationResponse (PostgreSQL docs 55.7): 'A', Int32 length, Int32 process id, channel, payload.
{
	std::string body;
	for (int shift = 24; shift >= 0; shift -= 8) body += static_cast<char>((4242 >> shift) & 0xFF);
	body += channel + '\0' + payload + '\0';
	const Poco::UInt32 length = static_cast<Poco::UInt32>(body.size() + 4);
	std::string message(1, 'A');
	for (int shift = 24; shift >= 0; shift -= 8) message += static_cast<char>((length >> shift) & 0xFF);
	return message + body;
}


struct IdleStandby
	/// A fake standby behind a data source of one session (Target Session Attributes=standby) whose last
	/// lease ran a query, so that its DISCARD ALL is pending; refresh() gives that DISCARD ALL an answer
	/// and times the next checkout, whose role refresh carries it.
{
	FakeBackend server{BackendScript::standby(), "127.0.0.1"};
	RoutingContext connector;
	BlueTuskDataSource::Ptr dataSource;
	BlueTuskConnection lease;

	explicit IdleStandby(const std::string& timeouts):
		dataSource(BlueTuskDataSource::create("Host=" + server.hostAndPort() +
			";Username=app;Password=maintenance-secret;SSL Mode=disable;Maximum Pool Size=1;Target Session Attributes=standby" + timeouts, connector))
	{
		BlueTuskConnection first = dataSource->open();
		first.executeSimple("SELECT 1");
	}

	double refresh(const QueryAnswer& discardAll)
		/// Seconds the checkout took; the lease it got is kept in lease.
	{
		server.setScript(BackendScript::standby().answer("DISCARD ALL", discardAll));
		const Poco::Clock clock;
		lease = dataSource->open();
		return secondsSince(clock);
	}
};

} // namespace


class MaintenanceDeadlineFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MaintenanceDeadlineFaultTest);
	CPPUNIT_TEST(testFrozenRoleRefreshCostsTheTimeout);
	CPPUNIT_TEST(testShorterCommandTimeoutBoundsTheRefresh);
	CPPUNIT_TEST(testTrickledRefreshCostsTheTimeout);
	CPPUNIT_TEST(testFrozenPendingResetDoesNotHoldThePool);
	CPPUNIT_TEST(testPreFourteenServerIsProbedOnce);
	CPPUNIT_TEST(testFrozenProbeAfterOpenCostsTheTimeout);
	CPPUNIT_TEST(testTrickledNotificationKeepsTheWaitTimeout);
	CPPUNIT_TEST_SUITE_END();

public:
	void testFrozenRoleRefreshCostsTheTimeout()
	{
		IdleStandby standby(";Timeout=1");
		const double seconds = standby.refresh(QueryAnswer::command("DISCARD ALL").frozen(20000));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds >= 0.9 && seconds < 4);
		CPPUNIT_ASSERT_EQUAL(2, standby.server.sessionsReady());   // the frozen session was closed, a new one opened
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), standby.lease.executeSimple("SELECT 2").size());
		CPPUNIT_ASSERT(standby.lease.role() == ServerRole::Standby);
	}

	void testTrickledRefreshCostsTheTimeout()
	{
		// The deferred DISCARD ALL's answer trickles in, a byte every 300 ms (17 bytes: 5 s): every read
		// waits only for what is left of the Timeout, so the refresh still ends after 1 s (found by the
		// review of the fix: each read got a fresh wait, as in finding 3).
		IdleStandby standby(";Timeout=1");
		const double seconds = standby.refresh(QueryAnswer::command("DISCARD ALL").trickle(300));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds >= 0.9 && seconds < 4);
		CPPUNIT_ASSERT_EQUAL(2, standby.server.sessionsReady());
	}

	void testShorterCommandTimeoutBoundsTheRefresh()
	{
		// Timeout=5 and Command Timeout=1: the shorter bound applies, the command timeout's (1 s, then its
		// cancel's grace of 250 ms, then the session is closed), as it did before Timeout bounded these.
		IdleStandby standby(";Timeout=5;Command Timeout=1");
		const double seconds = standby.refresh(QueryAnswer::command("DISCARD ALL").frozen(20000));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds >= 1.1 && seconds < 3);
		CPPUNIT_ASSERT(waitUntil([&] { return standby.server.cancelRequests() == 1; }, Poco::Timespan(2, 0)));   // the command timeout's cancel
		CPPUNIT_ASSERT_EQUAL(2, standby.server.sessionsReady());
	}

	void testFrozenPendingResetDoesNotHoldThePool()
	{
		FakeBackend server(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(options(server, ""), connector);
		{
			BlueTuskConnection lease = dataSource->open();
			lease.executeSimple("SELECT 1");
		}
		server.setScript(BackendScript::primary().answer("DISCARD ALL", QueryAnswer::command("DISCARD ALL").frozen(20000)));
		// The pruning thread (every second) sends the reset once it waited a second (PENDING_RESET_FLUSH):
		// by 2 s after the return at the latest; frozen, it must give up after Timeout (1 s) and close it.
		const Poco::Clock clock;
		while (resetsIn(server.queries()) == 0 && clock.elapsed() < 5000000) Poco::Thread::sleep(20);
		CPPUNIT_ASSERT_EQUAL(1L, resetsIn(server.queries()));
		// closed after the Timeout, not still waiting for the frozen server (20 s)
		CPPUNIT_ASSERT_MESSAGE(dataSource->getPoolStatistics().toString(),
			waitUntil([&] { return dataSource->getPoolStatistics().total == 0; }, Poco::Timespan(4, 0)));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(secondsSince(clock)), secondsSince(clock) < 6);
		const Poco::Clock destroying;
		dataSource.reset();   // joins the pruning thread
		CPPUNIT_ASSERT_MESSAGE(std::to_string(secondsSince(destroying)), secondsSince(destroying) < 1.0);
	}

	void testPreFourteenServerIsProbedOnce()
	{
		// No in_hot_standby before PostgreSQL 14: the startup's probe answers the router's question too.
		FakeBackend server(BackendScript::primary().withoutRoleParameters(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(options(server, ";Target Session Attributes=primary"), connector);
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT(lease.role() == ServerRole::Primary);
		CPPUNIT_ASSERT_EQUAL(1L, probesIn(server.queries()));
		lease.executeSimple("SELECT 1");
		CPPUNIT_ASSERT_EQUAL(1L, probesIn(server.queries()));
	}

	void testFrozenProbeAfterOpenCostsTheTimeout()
	{
		// A data source of target any opened for a primary: only the router probes, after the open, outside
		// the startup's deadline; a frozen probe now costs the Timeout (the host fails), not the freeze.
		QueryAnswer frozenProbe;
		frozenProbe.columns = {"pg_is_in_recovery", "current_setting", "pg_backend_pid"};
		frozenProbe.rows = {{std::string("f"), std::string("off"), std::string("4000")}};
		frozenProbe.frozen(20000);
		FakeBackend server(BackendScript::primary().withoutRoleParameters().answer(PROBE, frozenProbe), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(options(server, ""), connector);
		const Poco::Clock clock;
		std::string failure;
		try
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Primary);
		}
		catch (BlueTuskException& exc)
		{
			failure = exc.displayText();
		}
		const double seconds = secondsSince(clock);
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("to the role probe within Timeout (1000 ms)") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("maintenance-secret") == std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds) + ": " + failure, seconds >= 0.9 && seconds < 4);
		CPPUNIT_ASSERT_EQUAL(1L, probesIn(server.queries()));
		CPPUNIT_ASSERT_EQUAL(0, dataSource->getPoolStatistics().total);
	}

	void testTrickledNotificationKeepsTheWaitTimeout()
	{
		// After LISTEN's ReadyForQuery the server trickles a NotificationResponse of 112 bytes, one every
		// 20 ms (2.2 s in all): a wait of 300 ms ends after 300 ms with the partial message kept, and a
		// later wait gets the whole notification. Before, every read waited afresh, so the first wait
		// lasted until the message was complete (for 1 GiB declared, as long as the server liked).
		const std::string payload(100, 'p');
		FakeBackend server(BackendScript::primary().answer("LISTEN c", QueryAnswer::command("LISTEN").thenTrickle(notificationMessage("c", payload), 20)), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(options(server, ""), connector);
		BlueTuskConnection lease = dataSource->open();
		lease.executeSimple("LISTEN c");
		Notification notification;
		const Poco::Clock clock;
		CPPUNIT_ASSERT(!lease.session().waitForNotification(Poco::Timespan(0, 300000), notification));
		const double seconds = secondsSince(clock);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds >= 0.25 && seconds < 1.0);
		CPPUNIT_ASSERT(!lease.session().isBroken());
		CPPUNIT_ASSERT(lease.session().waitForNotification(Poco::Timespan(10, 0), notification));
		CPPUNIT_ASSERT_EQUAL(std::string("c"), notification.channel);
		CPPUNIT_ASSERT_EQUAL(payload, notification.payload);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(4242), notification.processId);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(secondsSince(clock)), secondsSince(clock) > 1.5);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(MaintenanceDeadlineFaultTest);
