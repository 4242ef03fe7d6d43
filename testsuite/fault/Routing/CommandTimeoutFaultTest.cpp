//
// CommandTimeoutFaultTest.cpp
//
// A frozen server (a query that never ends and a CancelRequest that is never acted on, as with a
// SIGSTOPped postmaster) under a pooled lease with Command Timeout=1: the statement fails after about
// 1.25 s (the timeout plus the cancel's grace), the session is broken and discarded when the lease returns
// (not parked for the next user), and the next checkout gets a new, working session.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class CommandTimeoutFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CommandTimeoutFaultTest);
	CPPUNIT_TEST(testFrozenServerFreesLease);
	CPPUNIT_TEST(testCancelledStatementKeepsSession);
	CPPUNIT_TEST(testTricklingAnswerBounded);
	CPPUNIT_TEST_SUITE_END();

public:
	static BlueTuskDataSource::Ptr dataSourceFor(FakeBackend& backend, RoutingContext& connector)
		/// A pooled data source on backend with Command Timeout=1.
	{
		return BlueTuskDataSource::create("Host=" + backend.hostAndPort() +
			";Username=app;Password=frozen-secret;SSL Mode=disable;Timeout=2;Command Timeout=1", connector);
	}

	static BlueTuskDataSource::Ptr timedOutStatementBreaksLease(FakeBackend& backend, RoutingContext& connector)
		/// Runs "SELECT report()" on a lease of a new data source over backend, whose answer never comes
		/// in time and whose CancelRequest is not acted on: the statement fails with the command timeout
		/// in about 1.25 s (the timeout plus the cancel's grace), the session is broken and is discarded
		/// when the lease returns, not parked. Returns the data source for more checks.
	{
		auto dataSource = dataSourceFor(backend, connector);
		Poco::Clock clock;
		std::string failure;
		{
			BlueTuskConnection lease = dataSource->open();
			try
			{
				lease.executeSimple("SELECT report()");
			}
			catch (BlueTuskSessionBrokenException& exc)
			{
				failure = exc.displayText();
			}
			CPPUNIT_ASSERT(lease.session().isBroken());
		}
		const Poco::Clock::ClockDiff elapsed = clock.elapsed();
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("command timeout of 1000 ms") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsed), elapsed >= 1000000 && elapsed < 2000000);
		CPPUNIT_ASSERT_EQUAL(1, backend.cancelRequests());
		PoolStatistics stats = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), 0, stats.busy);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), 0, stats.total);   // discarded, not parked
		return dataSource;
	}

	void testFrozenServerFreesLease()
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT report()", QueryAnswer::value("late").frozen(30000)), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = timedOutStatementBreaksLease(backend, connector);
		BlueTuskConnection next = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), next.executeSimple("SELECT 1").size());
		CPPUNIT_ASSERT_EQUAL(2, backend.sessionsReady());   // a new session
	}

	void testTricklingAnswerBounded()
	{
		// Finding 3: a server that trickles its answer (1 byte every 50 ms, cancel ignored) resets any per-read
		// timeout; Command Timeout bounds the buffered command as a whole, then the cancel's grace, then the
		// session is closed: about 1.25 s with Command Timeout=1, not the 4+ s the answer would take.
		FakeBackend backend(BackendScript::primary().answer("SELECT report()",
			QueryAnswer::value("a long enough answer to take seconds").trickle(50)), "127.0.0.1");
		RoutingContext connector;
		timedOutStatementBreaksLease(backend, connector);
	}

	void testCancelledStatementKeepsSession()
	{
		// The contrast: a slow server that acts on the cancel keeps the session (57014, then reused).
		FakeBackend backend(BackendScript::primary().answer("SELECT report()", QueryAnswer::value("late").delay(30000)), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = dataSourceFor(backend, connector);
		Poco::Clock clock;
		{
			BlueTuskConnection lease = dataSource->open();
			std::string sqlState;
			try
			{
				lease.executeSimple("SELECT report()");
			}
			catch (BlueTuskServerException& exc)
			{
				sqlState = exc.sqlState();
			}
			CPPUNIT_ASSERT_EQUAL(std::string("57014"), sqlState);
			CPPUNIT_ASSERT(!lease.session().isBroken());
		}
		CPPUNIT_ASSERT(clock.elapsed() < 1900000);
		CPPUNIT_ASSERT_EQUAL(1, dataSource->getPoolStatistics().idle);
		BlueTuskConnection next = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), next.executeSimple("SELECT 1").size());
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());   // the same session
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(CommandTimeoutFaultTest);
