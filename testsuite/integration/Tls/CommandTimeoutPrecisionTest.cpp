//
// CommandTimeoutPrecisionTest.cpp
//
// Command Timeout is kept to its value over TLS as without it: Command Timeout=1 with
// pg_sleep(5) returned after 2.06-2.10 s over TLS (SSL Mode=prefer, the default) and 1.08 s without, because
// Poco 1.11's SecureSocketImpl waits the socket's receive timeout twice (SO_RCVTIMEO inside SSL_read, then a
// poll() of the same length on SSL_ERROR_WANT_READ). Measured here on the local cluster, for a session of
// its own (ProtocolSession), a direct BlueTuskConnection and a pooled lease of a BlueTuskDataSource, over
// TLS (SSL Mode=require) and plain TCP (SSL Mode=disable), with Command Timeout 0.3, 1 and 2 s: the
// statement is cancelled (57014, "command timeout of N ms exceeded") within [T, T + 0.5 s).
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "TestEnvironment.h"
#include "TlsTestSupport.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const Poco::Clock::ClockDiff SLACK = 500000;   // what a cancel round trip may add on a busy 2-core machine (us)


std::string connectionString(const std::string& sslMode, const std::string& commandTimeout)
{
	const ClusterInfo& c = cluster();
	return c.connectionString(c.hosts.at(0), "Timeout=5;SSL Mode=" + sslMode + ";Command Timeout=" + commandTimeout);
}


Poco::Clock::ClockDiff timeSleep(const std::function<void()>& sleep, Poco::Timespan::TimeDiff expectedMs, const std::string& what)
	/// Runs sleep (a pg_sleep(5) under Command Timeout=expectedMs), checks that it throws the timeout's
	/// BlueTuskServerException, and returns the microseconds it took.
{
	Poco::Clock started;
	try
	{
		sleep();
		CPPUNIT_FAIL(what + ": the command timeout must cancel pg_sleep(5)");
	}
	catch (BlueTuskServerException& exc)
	{
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + exc.displayText(), std::string("57014"), exc.sqlState());
		const std::string expected = "command timeout of " + std::to_string(expectedMs) + " ms exceeded";
		CPPUNIT_ASSERT_MESSAGE(what + ": " + exc.displayText(), exc.message().find(expected) != std::string::npos);
	}
	return started.elapsed();
}


bool isTls(BlueTuskConnection& connection)
	/// Through the application's API (Session::isTls()), no downcast.
{
	return connection.session().isTls();
}


void assertWithin(Poco::Clock::ClockDiff elapsed, Poco::Timespan::TimeDiff expectedMs, const std::string& what)
{
	const Poco::Clock::ClockDiff expected = expectedMs * 1000;
	const std::string text = what + ": returned after " + std::to_string(elapsed / 1000) + " ms, expected [" +
		std::to_string(expectedMs) + ", " + std::to_string(expectedMs + SLACK / 1000) + ") ms";
	CPPUNIT_ASSERT_MESSAGE(text, elapsed >= expected);
	CPPUNIT_ASSERT_MESSAGE(text, elapsed < expected + SLACK);
}

} // namespace


class CommandTimeoutPrecisionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CommandTimeoutPrecisionTest);
	CPPUNIT_TEST(testSessionOverTls);
	CPPUNIT_TEST(testSessionWithoutTls);
	CPPUNIT_TEST(testDirectConnection);
	CPPUNIT_TEST(testPooledLease);
	CPPUNIT_TEST(testStreamedQueryOverTls);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSessionOverTls()
	{
		checkSession("require", true);
	}

	void testSessionWithoutTls()
	{
		checkSession("disable", false);
	}

	void testDirectConnection()
	{
		for (const char* mode: {"require", "disable"})
		{
			for (const auto& timeout: timeouts())
			{
				BlueTuskConnection connection = BlueTuskConnection::open(connectionString(mode, timeout.first));
				CPPUNIT_ASSERT_EQUAL(std::string(mode) == "require", isTls(connection));
				const std::string what = std::string("BlueTuskConnection, SSL Mode=") + mode + ", Command Timeout=" + timeout.first;
				const Poco::Clock::ClockDiff elapsed = timeSleep([&connection] { connection.executeSimple("SELECT pg_sleep(5)"); }, timeout.second, what);
				assertWithin(elapsed, timeout.second, what);
				CPPUNIT_ASSERT_EQUAL(std::string("1"), *connection.executeSimple("SELECT 1").at(0).rows.at(0).at(0));
			}
		}
	}

	void testPooledLease()
	{
		for (const char* mode: {"require", "disable"})
		{
			BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(connectionString(mode, "1"));
			for (int round = 0; round < 2; ++round)   // a new session, then the pooled one again
			{
				BlueTuskConnection lease = dataSource->open();
				CPPUNIT_ASSERT_EQUAL(std::string(mode) == "require", isTls(lease));
				const std::string what = std::string("BlueTuskDataSource lease, SSL Mode=") + mode + ", Command Timeout=1, round " + std::to_string(round + 1);
				const Poco::Clock::ClockDiff elapsed = timeSleep([&lease] { lease.executeSimple("SELECT pg_sleep(5)"); }, 1000, what);
				assertWithin(elapsed, 1000, what);
			}
		}
	}

	void testStreamedQueryOverTls()
		/// A streamed query (queryEach: each wait bounded by Command Timeout) over TLS, as bluetusk-connect
		/// runs --query: cancelled after the timeout once, not twice.
	{
		ProtocolSession::Ptr session = openSession(ConnectionSettings::parse(connectionString("require", "1"), {}));
		CPPUNIT_ASSERT(session->isTls());
		Poco::Clock started;
		try
		{
			session->queryEach("SELECT pg_sleep(5)", {}, [](const RowView&) { return true; });
			CPPUNIT_FAIL("the command timeout must cancel pg_sleep(5)");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL_MESSAGE(exc.displayText(), std::string("57014"), exc.sqlState());
		}
		assertWithin(started.elapsed(), 1000, "queryEach over TLS, Command Timeout=1");
	}

private:
	static std::vector<std::pair<std::string, Poco::Timespan::TimeDiff>> timeouts()
	{
		return {{"1", 1000}, {"0.3", 300}, {"2", 2000}};
	}

	void checkSession(const std::string& mode, bool tls)
	{
		for (const auto& timeout: timeouts())
		{
			ProtocolSession::Ptr session = openSession(ConnectionSettings::parse(connectionString(mode, timeout.first), {}));
			CPPUNIT_ASSERT_EQUAL(tls, session->isTls());
			const std::string what = "ProtocolSession, SSL Mode=" + mode + ", Command Timeout=" + timeout.first;
			for (int round = 0; round < 2; ++round)   // the session stays usable, and the second timeout is as short
			{
				const Poco::Clock::ClockDiff elapsed = timeSleep([&session] { session->executeSimple("SELECT pg_sleep(5)"); }, timeout.second,
					what + ", round " + std::to_string(round + 1));
				assertWithin(elapsed, timeout.second, what + ", round " + std::to_string(round + 1));
				CPPUNIT_ASSERT(!session->isBroken());
			}
			CPPUNIT_ASSERT_EQUAL(std::string("1"), scalar(*session, "SELECT 1"));
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(CommandTimeoutPrecisionTest);
