//
// SessionStartupFaultTest.cpp
//
// ProtocolSessionFactory against the fake backend (doc/transport.md): what every startup
// failure becomes (exception type, SQLSTATE, per-address outcome), how fast, and that a session that did
// start answers its role, queries, cancel and close as the protocol says.
//

#include "TransportFaultSupport.h"
#include "BlackHoleListener.h"
#include "FakeBackend.h"
#include "RefusedPort.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string PROBE = "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), pg_backend_pid()";

}


class SessionStartupFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SessionStartupFaultTest);
	CPPUNIT_TEST(testOpensWithStartupParameters);
	CPPUNIT_TEST(testRoleFromParameterStatus);
	CPPUNIT_TEST(testRoleByProbe);
	CPPUNIT_TEST(testThreeAddressesSkipEarlyClose);
	CPPUNIT_TEST(testClosedBeforeAuthentication);
	CPPUNIT_TEST(testResetBeforeAuthentication);
	CPPUNIT_TEST(testGarbageIsAProtocolError);
	CPPUNIT_TEST(testAvailabilityErrors);
	CPPUNIT_TEST(testServerErrorStopsAtOnce);
	CPPUNIT_TEST(testPasswordRejected);
	CPPUNIT_TEST(testRejectionBeforeAuthenticationNamesUser);
	CPPUNIT_TEST(testPasswordMethods);
	CPPUNIT_TEST(testScramServerSignatureMismatch);
	CPPUNIT_TEST(testUnsupportedAuthenticationMethod);
	CPPUNIT_TEST(testDelayLongerThanDeadline);
	CPPUNIT_TEST(testHangTimesOut);
	CPPUNIT_TEST(testPreferFallsBackToPlain);
	CPPUNIT_TEST(testRequireRefusedNeverSendsStartup);
	CPPUNIT_TEST(testQueryErrorAndBrokenSession);
	CPPUNIT_TEST(testWritesToAClosedPeerNeverRaiseSigpipe);
	CPPUNIT_TEST(testCommandTimeoutCancels);
	CPPUNIT_TEST(testCloseSendsTerminate);
	CPPUNIT_TEST_SUITE_END();

public:
	void testOpensWithStartupParameters()
	{
		FakeBackend backend(BackendScript::primary("15.4"), "127.0.0.2");
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(backend.hostAndPort(), session->connectedAddress());
		CPPUNIT_ASSERT(backend.endpoint() == session->endpoint());
		CPPUNIT_ASSERT_EQUAL(std::string("15.4"), session->parameterStatus("server_version"));
		CPPUNIT_ASSERT_EQUAL(std::string("trust"), session->authenticationMethod());
		CPPUNIT_ASSERT(session->backendProcessId() >= 4000);
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		auto startup = backend.lastStartupParameters();
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), startup["user"]);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), startup["database"]);
		CPPUNIT_ASSERT_EQUAL(std::string("fault-test"), startup["application_name"]);
		CPPUNIT_ASSERT_EQUAL(std::string("UTF8"), startup["client_encoding"]);
		CPPUNIT_ASSERT_EQUAL(std::string("connected"), outcomes(session->addressAttempts()));
		CPPUNIT_ASSERT_EQUAL(0, backend.sslRequests()); // SSL Mode disable
	}

	void testRoleFromParameterStatus()
	{
		struct Case { BackendScript script; ServerRole role; };
		std::vector<Case> cases = {
			{BackendScript::primary(), ServerRole::Primary},
			{BackendScript::standby(), ServerRole::Standby},
			{BackendScript::readOnlyPrimary(), ServerRole::PrimaryReadOnly}
		};
		ProtocolSessionFactory factory;
		for (const auto& c: cases)
		{
			FakeBackend backend(c.script);
			auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
			// Unconfirmed, ParameterStatus may be a pooler's replay: the first question asks the server,
			// whose pg_backend_pid() equals BackendKeyData's; from then on ParameterStatus answers.
			CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Unknown), toString(session->reportedRole()));
			CPPUNIT_ASSERT_EQUAL(toString(c.role), toString(session->probeRole(false)));
			CPPUNIT_ASSERT_EQUAL(toString(c.role), toString(session->role()));
			CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
			CPPUNIT_ASSERT_EQUAL(PROBE, backend.queries().at(0));
			session->executeSimple("SELECT 1");
			CPPUNIT_ASSERT_EQUAL(toString(c.role), toString(session->reportedRole()));
			CPPUNIT_ASSERT_EQUAL(toString(c.role), toString(session->probeRole(false)));
			CPPUNIT_ASSERT_EQUAL(2, backend.queryCount()); // the SELECT 1 alone: PostgreSQL 14+, confirmed
			// a forced probe asks the server
			CPPUNIT_ASSERT_EQUAL(toString(c.role), toString(session->probeRole(true)));
			CPPUNIT_ASSERT_EQUAL(3, backend.queryCount());
			CPPUNIT_ASSERT_EQUAL(PROBE, backend.queries().at(2));
		}
	}

	void testRoleByProbe()
	{
		ProtocolSessionFactory factory;
		FakeBackend backend(BackendScript::standby().withoutRoleParameters());
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), toString(session->probeRole(false)));
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
		CPPUNIT_ASSERT_EQUAL(PROBE, backend.queries().at(0));

		// promoted while the session was open: a forced probe sees it
		backend.setScript(BackendScript::primary().withoutRoleParameters());
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), toString(session->probeRole(true)));
		backend.setScript(BackendScript::readOnlyPrimary().withoutRoleParameters());
		CPPUNIT_ASSERT_EQUAL(std::string("primary-read-only"), toString(session->probeRole(true)));
	}

	void testThreeAddressesSkipEarlyClose()
	{
		RefusedPort refused("127.0.0.2");
		FakeBackend closing(BackendScript::closeAfterStartup(), "127.0.0.3");
		FakeBackend primary(BackendScript::primary(), "127.0.0.4");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db.fault.test", std::vector<std::string>{refused.hostAndPort(), closing.hostAndPort(), primary.hostAndPort()});
		ProtocolSessionFactory factory(resolver);
		auto session = factory.openSession(BlueTuskHostEndpoint("db.fault.test", 5432), fastSettings(1000));
		CPPUNIT_ASSERT_EQUAL(primary.hostAndPort(), session->connectedAddress());
		CPPUNIT_ASSERT_EQUAL(std::string("db.fault.test"), session->endpoint().host());
		const AddressAttemptList& attempts = session->addressAttempts();
		CPPUNIT_ASSERT_EQUAL(std::string("refused,closed,connected"), outcomes(attempts));
		CPPUNIT_ASSERT_EQUAL(refused.hostAndPort(), attempts[0].address);
		CPPUNIT_ASSERT_EQUAL(closing.hostAndPort(), attempts[1].address);
		CPPUNIT_ASSERT_EQUAL(1, closing.startupMessages());
		CPPUNIT_ASSERT_EQUAL(1, primary.sessionsReady());
	}

	void testClosedBeforeAuthentication()
	{
		ProtocolSessionFactory factory;
		for (auto script: {BackendScript::closeAfterStartup(), BackendScript::closeOnAccept()})
		{
			FakeBackend backend(script);
			Millis clock;
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000));
				CPPUNIT_FAIL("open succeeded");
			}
			catch (BlueTuskTransportException& exc)
			{
				CPPUNIT_ASSERT(clock.elapsed() < 500);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(exc.displayText(), std::string("closed"), outcomes(exc.attempts()));
				CPPUNIT_ASSERT_EQUAL(backend.hostAndPort(), exc.attempts()[0].address);
				CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find(backend.hostAndPort()) != std::string::npos);
			}
			CPPUNIT_ASSERT_EQUAL(1, backend.connectionsAccepted());
		}
	}

	void testResetBeforeAuthentication()
	{
		ProtocolSessionFactory factory;
		FakeBackend backend(BackendScript::resetAfterStartup());
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(1000));
			CPPUNIT_FAIL("open succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_EQUAL_MESSAGE(exc.displayText(), std::string("reset"), outcomes(exc.attempts()));
		}
	}

	void testGarbageIsAProtocolError()
	{
		ProtocolSessionFactory factory;
		for (std::string garbage: {std::string("HTTP/1.1 400 Bad Request\r\n\r\n"), std::string("Z\xff\xff\xff\xff", 5), std::string("q\0\0\0\x04", 5)})
		{
			FakeBackend backend(BackendScript::garbage(garbage));
			Millis clock;
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000));
				CPPUNIT_FAIL("open succeeded against garbage");
			}
			catch (BlueTuskTransportException& exc)
			{
				CPPUNIT_ASSERT(clock.elapsed() < 500);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(exc.displayText(), std::string("protocol error"), outcomes(exc.attempts()));
			}
			catch (BlueTuskProtocolException& exc)
			{
				CPPUNIT_ASSERT(clock.elapsed() < 500);
			}
		}
	}

	void testAvailabilityErrors()
	{
		struct Case { BackendScript script; std::string sqlState, message; };
		std::vector<Case> cases = {
			{BackendScript::startingUp(), "57P03", "the database system is starting up"},
			{BackendScript::tooManyClients(), "53300", "sorry, too many clients already"},
			{BackendScript::adminShutdown(), "57P01", "terminating connection due to administrator command"},
			{BackendScript::startupError("08006", "connection failure"), "08006", "connection failure"}
		};
		ProtocolSessionFactory factory;
		for (const auto& c: cases)
		{
			FakeBackend backend(c.script);
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000));
				CPPUNIT_FAIL("open succeeded: expected " + c.sqlState);
			}
			catch (BlueTuskServerException& exc)
			{
				CPPUNIT_ASSERT_EQUAL(c.sqlState, exc.sqlState());
				CPPUNIT_ASSERT_EQUAL(std::string("FATAL"), exc.severity());
				CPPUNIT_ASSERT_EQUAL(c.message, exc.fields().message);
				CPPUNIT_ASSERT(exc.isAvailabilityError());
				CPPUNIT_ASSERT(!exc.isAuthenticationError());
				CPPUNIT_ASSERT(!exc.sessionUsable());
				CPPUNIT_ASSERT(!isSessionUsable(exc));
				CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find(c.message) != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find(c.sqlState) != std::string::npos);
			}
		}
	}

	void testServerErrorStopsAtOnce()
		/// An ErrorResponse is not a network failure: the next address of the same host is not tried.
	{
		FakeBackend starting(BackendScript::startingUp(), "127.0.0.2");
		FakeBackend primary(BackendScript::primary(), "127.0.0.3");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db.fault.test", std::vector<std::string>{starting.hostAndPort(), primary.hostAndPort()});
		ProtocolSessionFactory factory(resolver);
		CPPUNIT_ASSERT_THROW(factory.openSession(BlueTuskHostEndpoint("db.fault.test", 5432), fastSettings(1000)), BlueTuskServerException);
		CPPUNIT_ASSERT_EQUAL(1, starting.startupMessages());
		CPPUNIT_ASSERT_EQUAL(0, primary.connectionsAccepted());
	}

	void testRejectionBeforeAuthenticationNamesUser()
	{
		// an ErrorResponse sent before any authentication request said user "".
		FakeBackend backend(BackendScript::startupError("28000", "no pg_hba.conf entry for host \"127.0.0.1\", user \"alice\""));
		ProtocolSessionFactory factory;
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(1000));
			CPPUNIT_FAIL("open succeeded");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("the server rejected the session for user \"alice\" at " +
				backend.hostAndPort()) != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("(SQLSTATE 28000)") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(0, backend.passwordsReceived());
	}

	void testPasswordRejected()
	{
		FakeBackend backend(BackendScript::passwordFailure());
		ProtocolSessionFactory factory;
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(1000, "wrong-password"));
			CPPUNIT_FAIL("open succeeded");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("password authentication failed for user \"alice\"") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("28P01") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(1, backend.passwordsReceived());
	}

	void testPasswordMethods()
	{
		using Auth = BackendScript::Authentication;
		struct Case { Auth method; std::string name; };
		std::vector<Case> cases = {{Auth::Cleartext, "cleartext"}, {Auth::Md5, "MD5"}, {Auth::ScramSha256, "SCRAM-SHA-256"}};
		ProtocolSessionFactory factory;
		for (const auto& c: cases)
		{
			FakeBackend backend(BackendScript::primary().requirePassword(c.method, "pw-" + c.name));
			auto session = factory.openSession(backend.endpoint(), fastSettings(1000, "pw-" + c.name));
			CPPUNIT_ASSERT_EQUAL(c.name, session->authenticationMethod());
			CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000, "not-pw-" + c.name));
				CPPUNIT_FAIL("wrong password accepted for " + c.name);
			}
			catch (BlueTuskAuthenticationException& exc)
			{
				CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("28P01") != std::string::npos);
			}
			// no password at all: a clear authentication error, the server is asked nothing more
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000, ""));
				CPPUNIT_FAIL("empty password accepted for " + c.name);
			}
			catch (BlueTuskAuthenticationException&)
			{
			}
			CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
		}
	}

	void testScramServerSignatureMismatch()
	{
		BackendScript script = BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "scram-secret");
		script.corruptServerSignature = true;
		FakeBackend backend(script);
		ProtocolSessionFactory factory;
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(1000, "scram-secret"));
			CPPUNIT_FAIL("a wrong SCRAM server signature was accepted");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("signature") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(0, backend.queryCount());
	}

	void testUnsupportedAuthenticationMethod()
		/// AuthenticationGSS (7) and AuthenticationSSPI (9): a clear authentication error naming the method.
	{
		ProtocolSessionFactory factory;
		for (char code: {'\x07', '\x09'})
		{
			FakeBackend backend(BackendScript::garbage(std::string("R\0\0\0\x08\0\0\0", 8) + code));
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000, "pw"));
				CPPUNIT_FAIL("open succeeded");
			}
			catch (BlueTuskAuthenticationException& exc)
			{
				std::string text = exc.displayText();
				CPPUNIT_ASSERT_MESSAGE(text, text.find(code == '\x07' ? "GSS" : "SSPI") != std::string::npos);
			}
		}
	}

	void testDelayLongerThanDeadline()
	{
		FakeBackend backend(BackendScript::primary().delayStartup(3000));
		ProtocolSessionFactory factory;
		Millis clock;
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(500));
			CPPUNIT_FAIL("open succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			double total = clock.elapsed();
			CPPUNIT_ASSERT_MESSAGE(std::to_string(total), total >= 450 && total <= 1000);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(exc.displayText(), std::string("timed out"), outcomes(exc.attempts()));
		}
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0))); // the client closed its socket

		// a delay shorter than the deadline is fine
		backend.setScript(BackendScript::primary().delayStartup(200));
		Millis second;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		CPPUNIT_ASSERT(second.elapsed() >= 190);
		CPPUNIT_ASSERT(!session->isBroken());
	}

	void testHangTimesOut()
	{
		FakeBackend backend(BackendScript::hang());
		ProtocolSessionFactory factory;
		Millis clock;
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(300));
			CPPUNIT_FAIL("open succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			double total = clock.elapsed();
			CPPUNIT_ASSERT_MESSAGE(std::to_string(total), total >= 270 && total <= 800);
			CPPUNIT_ASSERT_EQUAL(std::string("timed out"), outcomes(exc.attempts()));
		}
	}

	void testPreferFallsBackToPlain()
	{
		FakeBackend backend;
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000, "", SslMode::Prefer));
		CPPUNIT_ASSERT(!session->isTls());
		CPPUNIT_ASSERT_EQUAL(1, backend.sslRequests());
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
	}

	void testRequireRefusedNeverSendsStartup()
	{
		FakeBackend backend;
		ProtocolSessionFactory factory;
		for (SslMode mode: {SslMode::Require, SslMode::VerifyCa, SslMode::VerifyFull})
		{
			backend.resetCounters();
			try
			{
				factory.openSession(backend.endpoint(), fastSettings(1000, "tls-only-secret", mode));
				CPPUNIT_FAIL("open succeeded without TLS under sslmode " + toString(mode));
			}
			catch (BlueTuskException& exc)
			{
				CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("TLS") != std::string::npos ||
					exc.displayText().find("SSL") != std::string::npos);
			}
			CPPUNIT_ASSERT_EQUAL(1, backend.sslRequests());
			CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages()); // nothing sent in the clear
		}
	}

	void testQueryErrorAndBrokenSession()
	{
		FakeBackend backend(BackendScript::primary()
			.answer("SELECT broken", QueryAnswer::error("42703", "column \"broken\" does not exist"))
			.answer("SELECT crash", QueryAnswer::dropConnection()));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		std::vector<QueryResult> results = session->executeSimple("SELECT 1");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), results.size());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *results[0].rows.at(0).at(0));
		try
		{
			session->executeSimple("SELECT broken");
			CPPUNIT_FAIL("no error");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("42703"), exc.sqlState());
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->execute("SELECT $1", {std::string("x")}).rows.at(0).at(0));

		CPPUNIT_ASSERT_THROW(session->executeSimple("SELECT crash"), BlueTuskSessionBrokenException);
		CPPUNIT_ASSERT(session->isBroken());

		// a server that drops an idle session: the next query reports the broken session
		auto second = factory.openSession(backend.endpoint(), fastSettings(1000));
		backend.closeAllConnections(true);
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT_THROW(second->executeSimple("SELECT 1"), BlueTuskSessionBrokenException);
		CPPUNIT_ASSERT(second->isBroken());
	}

	void testWritesToAClosedPeerNeverRaiseSigpipe()
		/// The server closes (FIN) idle sessions; the client then writes several times. Without
		/// MSG_NOSIGNAL / SIGPIPE ignored, the second write would kill the process.
	{
		FakeBackend backend;
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		auto other = factory.openSession(backend.endpoint(), fastSettings(1000));
		backend.closeAllConnections(false);
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		for (int i = 0; i < 3; ++i)
			CPPUNIT_ASSERT_THROW(session->executeSimple("SELECT 1"), BlueTuskException);
		CPPUNIT_ASSERT(session->isBroken());
		CPPUNIT_ASSERT_THROW(other->execute("SELECT $1", {std::string("x")}), BlueTuskException);
		CPPUNIT_ASSERT_THROW(other->execute("SELECT $1", {std::string("x")}), BlueTuskException);
		session->close();
		other->close();
		other->cancel(); // a cancel for a dead session must not fail either
	}

	void testCommandTimeoutCancels()
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT pg_sleep(5)", QueryAnswer::value("").delay(5000)));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		session->setCommandTimeout(Poco::Timespan(0, 300000));
		Millis clock;
		try
		{
			session->executeSimple("SELECT pg_sleep(5)");
			CPPUNIT_FAIL("no timeout");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("57014"), exc.sqlState());
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT_MESSAGE(std::to_string(clock.elapsed()), clock.elapsed() >= 280 && clock.elapsed() < 2000);
		CPPUNIT_ASSERT_EQUAL(1, backend.cancelRequests());
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1").at(0).rows.at(0).at(0));

		// cancel() from another thread
		session->setCommandTimeout(0);
		std::thread canceller([&] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); session->cancel(); });
		CPPUNIT_ASSERT_THROW(session->executeSimple("SELECT pg_sleep(5)"), BlueTuskServerException);
		canceller.join();
		CPPUNIT_ASSERT(waitUntil([&] { return backend.cancelRequests() == 2; }, Poco::Timespan(1, 0)));
	}

	void testCloseSendsTerminate()
	{
		FakeBackend backend;
		ProtocolSessionFactory factory;
		{
			auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
			session->close();
			CPPUNIT_ASSERT(session->isBroken());
			session->close(); // twice is fine
		}
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT_EQUAL(1, backend.terminates());
		{
			auto session = factory.openSession(backend.endpoint(), fastSettings(1000));
		} // the destructor closes too
		CPPUNIT_ASSERT(waitUntil([&] { return backend.terminates() == 2; }, Poco::Timespan(1, 0)));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SessionStartupFaultTest);
