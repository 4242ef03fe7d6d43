//
// DeadlineFaultTest.cpp
//
// the host deadline (Timeout) bounds what a hostile or stuck server can make
// the client spend: SCRAM key derivation with a huge iteration count, and a TLS handshake that the server
// accepted ('S') and then never answered, with SSL Mode=prefer's plain retry and the close included.
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/ScramClient.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

using Auth = BackendScript::Authentication;

const std::string PASSWORD = "deadline-secret";


BackendScript stalledTls()
{
	BackendScript script = BackendScript::primary();
	script.stallTls = true;
	return script;
}


std::string expectTransportFailure(FakeBackend& backend, const ConnectionSettings& settings, double& ms)
	/// The BlueTuskTransportException's message of an open that must fail; ms gets its duration.
{
	ProtocolSessionFactory factory;
	Millis clock;
	try
	{
		factory.openSession(backend.endpoint(), settings);
	}
	catch (BlueTuskTransportException& exc)
	{
		ms = clock.elapsed();
		return exc.message();
	}
	CPPUNIT_FAIL("the open did not fail with BlueTuskTransportException");
	return std::string();
}

} // namespace


class DeadlineFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DeadlineFaultTest);
	CPPUNIT_TEST(testScramIterationsBoundedByTimeout);
	CPPUNIT_TEST(testScramManyIterationsWithinTimeout);
	CPPUNIT_TEST(testSaltedPasswordStopsAtDeadline);
	CPPUNIT_TEST(testStalledTlsHandshakePrefer);
	CPPUNIT_TEST(testStalledTlsHandshakeRequire);
	CPPUNIT_TEST(testStalledTlsHandshakeThroughRouting);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		ScramClient::clearCache();
	}

	void testScramIterationsBoundedByTimeout()
	{
		// 10,000,000 iterations cost 1.5-2 s of CPU here; Timeout=1 must end the open at about 1 s.
		BackendScript script = BackendScript::primary().requirePassword(Auth::ScramSha256, PASSWORD);
		script.scramIterations = 10000000;
		FakeBackend backend(script);
		double ms = 0;
		const std::string text = expectTransportFailure(backend, fastSettings(1000, PASSWORD), ms);
		CPPUNIT_ASSERT_MESSAGE(text, text.find(backend.hostAndPort() + " timed out") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(text, text.find("SCRAM key derivation: the server asked for 10000000 PBKDF2 iterations") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(text, text.find("when the connect timeout of 1000 ms ran out") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms", ms >= 950 && ms < 1300);
		CPPUNIT_ASSERT_EQUAL(0, backend.passwordsReceived());
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), ScramClient::cacheSize());
	}

	void testScramManyIterationsWithinTimeout()
	{
		// A high but affordable count still authenticates (the server verifies the proof).
		BackendScript script = BackendScript::primary().requirePassword(Auth::ScramSha256, PASSWORD);
		script.scramIterations = 200000;
		FakeBackend backend(script);
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(5000, PASSWORD));
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
		CPPUNIT_ASSERT_EQUAL(1, backend.passwordsReceived());
		session->close();
	}

	void testSaltedPasswordStopsAtDeadline()
	{
		// The chunked derivation gives the same key with a deadline as without (AuthenticationTest checks
		// RFC 7677's vector through the same function).
		const std::string salt = "\x41\x25\xc2\x47\xe4\x3a\xb1\xe9\x3c\x6d\xff\x76";
		const std::string unbounded = ScramClient::saltedPassword("pencil", salt, 4096);
		ScramClient::clearCache();
		Deadline generous(Poco::Timespan(10, 0));
		CPPUNIT_ASSERT(unbounded == ScramClient::saltedPassword("pencil", salt, 4096, &generous));
		CPPUNIT_ASSERT_EQUAL(std::size_t(32), unbounded.size());
		Deadline shortly(Poco::Timespan(0, 50000));
		Millis clock;
		try
		{
			ScramClient::saltedPassword("pencil", salt, 10000000, &shortly);
			CPPUNIT_FAIL("10,000,000 iterations finished within 50 ms");
		}
		catch (Poco::TimeoutException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("when the connect timeout of 50 ms ran out") != std::string::npos);
		}
		CPPUNIT_ASSERT_MESSAGE(std::to_string(clock.elapsed()) + " ms", clock.elapsed() >= 45 && clock.elapsed() < 150);
	}

	void testStalledTlsHandshakePrefer()
	{
		// SSL Mode=prefer: the handshake stalls; no plain retry may add a second Timeout.
		FakeBackend backend(stalledTls());
		double ms = 0;
		const std::string text = expectTransportFailure(backend, fastSettings(1500, PASSWORD, SslMode::Prefer), ms);
		CPPUNIT_ASSERT_MESSAGE(text, text.find(backend.hostAndPort() + " timed out") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(text, text.find("TLS handshake") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms", ms >= 1400 && ms < 1800);
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(2, 0)));
	}

	void testStalledTlsHandshakeRequire()
	{
		FakeBackend backend(stalledTls());
		double ms = 0;
		const std::string text = expectTransportFailure(backend, fastSettings(1000, PASSWORD, SslMode::Require), ms);
		CPPUNIT_ASSERT_MESSAGE(text, text.find(backend.hostAndPort() + " timed out") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms", ms >= 950 && ms < 1300);
		CPPUNIT_ASSERT_EQUAL(1, backend.connectionsAccepted());
	}

	void testStalledTlsHandshakeThroughRouting()
	{
		// The whole open (routing, pool, close of the stalled socket) costs one Timeout, not three.
		FakeBackend backend(stalledTls());
		Millis clock;
		try
		{
			BlueTuskConnection::open("Host=" + backend.hostAndPort() + ";Username=alice;Password=" + PASSWORD + ";Timeout=2");
			CPPUNIT_FAIL("the open succeeded");
		}
		catch (HostAttemptsException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find(backend.hostAndPort() + ": timed out") != std::string::npos);
		}
		CPPUNIT_ASSERT_MESSAGE(std::to_string(clock.elapsed()) + " ms", clock.elapsed() >= 1900 && clock.elapsed() < 2400);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DeadlineFaultTest);
