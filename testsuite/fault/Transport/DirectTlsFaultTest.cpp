//
// DirectTlsFaultTest.cpp
//
// SSL Negotiation=direct (PostgreSQL 17's direct TLS, ALPN "postgresql") against the fake backend speaking
// TLS at once: a session starts and queries with no SSLRequest; a server that does not select ALPN
// "postgresql" is refused; a server that expects an SSLRequest (postgres negotiation) fails clearly; a
// weak SSL Mode is refused while parsing.
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

BackendScript directScript(const std::string& alpn = "postgresql")
{
	BackendScript script = BackendScript::primary();
	script.directTls = true;
	script.directTlsAlpn = alpn;
	return script;
}


ConnectionSettings directSettings(const FakeBackend& backend, SslMode mode = SslMode::Require)
{
	ConnectionSettings settings = fastSettings(2000, "", mode);
	settings.sslNegotiation = SslNegotiation::Direct;
	settings.endpoints = {backend.endpoint()};
	return settings;
}


BlueTuskTransportException openFailure(FakeBackend& backend, const ConnectionSettings& settings)
{
	try
	{
		ProtocolSessionFactory factory;
		factory.openSession(backend.endpoint(), settings);
	}
	catch (BlueTuskTransportException& exc)
	{
		return exc;
	}
	CPPUNIT_FAIL("the open must fail with BlueTuskTransportException");
	return BlueTuskTransportException();
}

} // namespace


class DirectTlsFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DirectTlsFaultTest);
	CPPUNIT_TEST(testDirectSession);
	CPPUNIT_TEST(testServerWithoutAlpn);
	CPPUNIT_TEST(testServerExpectingSslRequest);
	CPPUNIT_TEST(testPostgresNegotiationAgainstDirectServer);
	CPPUNIT_TEST(testWeakModesRefused);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDirectSession()
	{
		FakeBackend backend(directScript());
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), directSettings(backend));
		CPPUNIT_ASSERT(session->isTls());
		CPPUNIT_ASSERT_EQUAL(0, backend.sslRequests()); // no SSLRequest: TLS at once
		CPPUNIT_ASSERT_EQUAL(1, backend.directTlsSessions());
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), backend.lastStartupParameters()["user"]);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1").at(0).rows.at(0).at(0));
		// libpq's keyword spelling gives the same
		ConnectionSettings parsed = ConnectionSettings::parse("host=" + backend.host() + " port=" + std::to_string(backend.port()) +
			" user=alice sslmode=require sslnegotiation=direct connect_timeout=2", {});
		auto second = factory.openSession(parsed.endpoints.at(0), parsed);
		CPPUNIT_ASSERT(second->isTls());
		CPPUNIT_ASSERT_EQUAL(2, backend.directTlsSessions());
	}

	void testServerWithoutAlpn()
	{
		FakeBackend backend(directScript(""));
		BlueTuskTransportException exc = openFailure(backend, directSettings(backend));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("the direct TLS connection (SSL Negotiation=direct) was established without the ALPN "
			"protocol \"postgresql\" (the server selected none)") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages());
	}

	void testServerExpectingSslRequest()
	{
		// a server before PostgreSQL 17 reads the ClientHello as a startup packet and closes the connection
		FakeBackend backend(BackendScript::primary());
		BlueTuskTransportException exc = openFailure(backend, directSettings(backend));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("the direct TLS handshake (SSL Negotiation=direct) failed: ") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("needs PostgreSQL 17 or later (use sslnegotiation=postgres)") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages());
	}

	void testPostgresNegotiationAgainstDirectServer()
	{
		FakeBackend backend(directScript());
		ConnectionSettings settings = directSettings(backend);
		settings.sslNegotiation = SslNegotiation::Postgres;
		BlueTuskTransportException exc = openFailure(backend, settings);
		CPPUNIT_ASSERT_EQUAL(0, backend.directTlsSessions());
		CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages());
	}

	void testWeakModesRefused()
	{
		for (const std::string mode: {"disable", "allow", "prefer"})
		{
			try
			{
				ConnectionSettings::parse("host=db user=u sslnegotiation=direct sslmode=" + mode, {});
				CPPUNIT_FAIL("sslnegotiation=direct with sslmode=" + mode + " must be refused");
			}
			catch (BlueTuskConnectionStringException& exc)
			{
				CPPUNIT_ASSERT_EQUAL(std::string("weak SSL Mode (sslmode) \"" + mode + "\" may not be used with SSL Negotiation (sslnegotiation)=direct "
					"(use require, verify-ca or verify-full), as in libpq"), exc.message());
			}
		}
		CPPUNIT_ASSERT(ConnectionSettings::parse("host=db user=u sslnegotiation=DIRECT sslmode=verify-full", {}).sslNegotiation == SslNegotiation::Direct);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DirectTlsFaultTest);
