//
// SecretPlacementFaultTest.cpp
//
// a password that malformed input put somewhere else (a libpq tail pasted into an
// Npgsql value, a URL user name with an unencoded '@', a '/' in a URL password, a mistyped scheme, a
// "password=" tail inside a host) must appear in no message: parser errors, transport failures, routing's
// no-acceptable-host and authentication errors with their attempts, pool timeouts, toString() and every
// log line. Each case also checks that the message still names what it is about (keyword, endpoint).
//

#include "CapturingChannel.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/HostAttemptsException.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include "Peers.h"
#include <cppunit/extensions/HelperMacros.h>
#include <memory>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string MARKER = "Mk7q-Zp9w";



std::string everything(const Poco::Exception& exc)
	/// Every text of exc a user or a log could see: what(), displayText() of it and its nested chain, the
	/// attempts of a routing or transport exception.
{
	std::string text = std::string(exc.what()) + "\n";
	for (const Poco::Exception* e = &exc; e; e = e->nested())
	{
		text += e->displayText() + "\n";
		if (auto routing = dynamic_cast<const HostAttemptsException*>(e))
		{
			for (const HostAttempt& attempt: routing->attempts())
				text += attempt.toString() + "|" + attempt.detailedText() + "|" + attempt.endpoint.host() + "\n";
		}
		if (auto transport = dynamic_cast<const BlueTuskTransportException*>(e))
		{
			text += transport->endpoint() + "\n";
			for (const auto& attempt: transport->attempts()) text += attempt.toString() + "\n";
		}
	}
	return text;
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class SecretPlacementFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SecretPlacementFaultTest);
	CPPUNIT_TEST(testParserErrors);
	CPPUNIT_TEST(testLibpqTailInNpgsqlValue);
	CPPUNIT_TEST(testUrlUserWithUnencodedAt);
	CPPUNIT_TEST(testPasswordTailInHost);
	CPPUNIT_TEST(testNoAcceptableHost);
	CPPUNIT_TEST(testPoolTimeout);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_capture.reset(new LogCapture);
	}

	void tearDown()
	{
		const std::string logged = _capture->channel().text();
		_capture.reset();
		CPPUNIT_ASSERT_MESSAGE(logged, !contains(logged, MARKER) && !contains(logged, "Mk7q") && !contains(logged, "Zp9w"));
	}

	void testParserErrors()
	{
		struct ParseCase
		{
			std::string input;
			const char* named;   /// what the message must still name
		};
		const ParseCase cases[] = {
			// a '/' in a URL password: the URL breaks there and "Mk7q" would be read as a port
			{"postgresql://app:Mk7q/Zp9w@127.0.0.1:5432/db", "port"},
			// a mistyped scheme would be an unknown keyword holding the whole text
			{"postgresql:/app:" + MARKER + "@127.0.0.1:5432/db", "postgresql://"},
			{"postgres:app:" + MARKER + "@127.0.0.1/db", "postgresql://"},
			// the libpq tail makes Timeout's value hold the password
			{"Host=127.0.0.1;Username=app;Timeout=2 password=" + MARKER, "Timeout"},
			{"Host=127.0.0.1;Username=app;SSL Mode=x password=" + MARKER, "SSL Mode"},
		};
		for (const ParseCase& c: cases)
		{
			try
			{
				ConnectionSettings::parse(c.input, {});
				CPPUNIT_FAIL("parsed: " + c.input);
			}
			catch (BlueTuskConnectionStringException& exc)
			{
				const std::string text = everything(exc);
				CPPUNIT_ASSERT_MESSAGE(c.input + " -> " + text, !contains(text, "Mk7q") && !contains(text, "Zp9w"));
				CPPUNIT_ASSERT_MESSAGE(c.input + " -> " + text, contains(text, c.named));
			}
		}
	}

	void testLibpqTailInNpgsqlValue()
	{
		// "...;user=app password=s3cret dbname=db" pasted into an Npgsql string: Username holds the password,
		// and the server echoes the role name in its error, as PostgreSQL does.
		FakeBackend rejecting(BackendScript::startupError("28000", "role \"app password=" + MARKER + " dbname=db\" does not exist"), "127.0.0.6");
		RefusedPort refused("127.0.0.9");
		const std::string cs = "Host=" + refused.hostAndPort() + "," + rejecting.hostAndPort() +
			";SSL Mode=disable;Timeout=1;user=app password=" + MARKER + " dbname=db";
		const ConnectionSettings settings = ConnectionSettings::parse(cs, {});
		CPPUNIT_ASSERT_EQUAL("app password=" + MARKER + " dbname=db", settings.username);
		CPPUNIT_ASSERT_MESSAGE(settings.toString(), !contains(settings.toString(), MARKER));
		CPPUNIT_ASSERT_MESSAGE(settings.toString(), contains(settings.toString(), "Username=app password=***;"));
		try
		{
			BlueTuskConnection::open(cs);
			CPPUNIT_FAIL("opened with a rejected password");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			const std::string text = everything(exc);
			CPPUNIT_ASSERT_MESSAGE(text, !contains(text, MARKER));
			CPPUNIT_ASSERT_MESSAGE(text, contains(text, rejecting.hostAndPort()));
			CPPUNIT_ASSERT_MESSAGE(text, contains(text, "user \"app password=***\""));
			CPPUNIT_ASSERT_MESSAGE(text, contains(text, "role \"app password=***\" does not exist (SQLSTATE 28000)"));
		}
	}

	void testUrlUserWithUnencodedAt()
	{
		// The user info ends at the last '@': the user is "app@corp.example", the password the marker, and
		// the host list only the server.
		FakeBackend rejecting(BackendScript::passwordFailure(), "127.0.0.6");
		const std::string url = "postgresql://app@corp.example:" + MARKER + "@" + rejecting.hostAndPort() + "/db?sslmode=disable&connect_timeout=1";
		const ConnectionSettings settings = ConnectionSettings::parse(url, {});
		CPPUNIT_ASSERT_EQUAL(std::string("app@corp.example"), settings.username);
		CPPUNIT_ASSERT_EQUAL(MARKER, settings.password);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), settings.endpoints.size());
		CPPUNIT_ASSERT_EQUAL(rejecting.hostAndPort(), settings.endpoints[0].toString());
		try
		{
			BlueTuskConnection::open(url);
			CPPUNIT_FAIL("opened with a rejected password");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			const std::string text = everything(exc);
			CPPUNIT_ASSERT_MESSAGE(text, !contains(text, MARKER));
			CPPUNIT_ASSERT_MESSAGE(text, contains(text, "user \"app@corp.example\" at " + rejecting.hostAndPort()));
		}
	}

	void testPasswordTailInHost()
	{
		// A "password=" tail inside a host value: a host holds no white space, so the string is
		// refused before any connect, and the message shows the tail masked.
		const std::string cs = "Host=db.fault.test password=" + MARKER + ";Port=5432;Username=app;Timeout=1;SSL Mode=disable";
		try
		{
			BlueTuskConnection::open(cs);
			CPPUNIT_FAIL("a host with white space was accepted");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			const std::string text = exc.displayText();
			CPPUNIT_ASSERT_MESSAGE(text, !contains(text, MARKER));
			CPPUNIT_ASSERT_MESSAGE(text, contains(text, "Host: the host \"db.fault.test password=***\" is not a valid host name: it holds white space"));
		}
	}

	void testNoAcceptableHost()
	{
		// Target primary over a standby, a refused port and a black hole, with the password in the user name
		// and in the application name: every attempt is described, none shows it.
		FakeBackend standby(BackendScript::standby(), "127.0.0.2");
		RefusedPort refused("127.0.0.9");
		BlackHoleListener hole("127.0.0.7");
		const std::string cs = "Host=" + standby.hostAndPort() + "," + refused.hostAndPort() + "," + hole.hostAndPort() +
			";Username=app;Application Name=x password=" + MARKER + ";Password=" + MARKER +
			";Target Session Attributes=primary;SSL Mode=disable;Timeout=0.5";
		try
		{
			BlueTuskConnection::open(cs);
			CPPUNIT_FAIL("a standby was accepted for target primary");
		}
		catch (HostAttemptsException& exc)
		{
			const std::string text = everything(exc);
			CPPUNIT_ASSERT_MESSAGE(text, !contains(text, MARKER));
			CPPUNIT_ASSERT_EQUAL(std::size_t(3), exc.attempts().size());
			CPPUNIT_ASSERT_MESSAGE(text, contains(exc.message(), standby.hostAndPort() + ": standby, target primary"));
			CPPUNIT_ASSERT_MESSAGE(text, contains(exc.message(), refused.hostAndPort() + ": refused"));
			CPPUNIT_ASSERT_MESSAGE(text, contains(exc.message(), hole.hostAndPort() + ": timed out"));
		}
	}

	void testPoolTimeout()
	{
		FakeBackend primary(BackendScript::primary(), "127.0.0.1");
		const std::string cs = "Host=" + primary.hostAndPort() + ";Username=app password=" + MARKER +
			";SSL Mode=disable;Timeout=1;Maximum Pool Size=1;Checkout Timeout=0.2";
		BlueTuskDataSource::Ptr source = BlueTuskDataSource::create(cs);
		BlueTuskConnection held = source->open();
		try
		{
			source->open();
			CPPUNIT_FAIL("a second checkout of a pool of one succeeded");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			const std::string text = everything(exc);
			CPPUNIT_ASSERT_MESSAGE(text, !contains(text, MARKER));
			CPPUNIT_ASSERT_MESSAGE(text, contains(text, primary.hostAndPort()));
		}
	}

private:
	std::unique_ptr<LogCapture> _capture;
};

CPPUNIT_TEST_SUITE_REGISTRATION(SecretPlacementFaultTest);
