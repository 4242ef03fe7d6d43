//
// TlsTest.cpp
//
// Every SSL Mode against the cluster's TLS servers (and peers that refuse TLS): disable, allow (incl. the
// TLS retry after a "no encryption" rejection), prefer, require, verify-ca with the root certificate,
// verify-full by IP and by name, a name the certificate does not cover, a wrong CA, and
// SCRAM-SHA-256-PLUS over TLS.
//

#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include "Peers.h"
#include "RejectPlainFront.h"
#include "TransportTestSupport.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

BlueTuskTransportException expectTransportFailure(ProtocolSessionFactory& factory, const ConnectionSettings& settings)
{
	try
	{
		factory.openSession(settings.endpoints.at(0), settings);
	}
	catch (BlueTuskTransportException& exc)
	{
		return exc;
	}
	CPPUNIT_FAIL("the open must fail with BlueTuskTransportException");
	return BlueTuskTransportException();
}

} // namespace


class TlsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TlsTest);
	CPPUNIT_TEST(testDisable);
	CPPUNIT_TEST(testAllowUsesPlainWhenAccepted);
	CPPUNIT_TEST(testAllowRetriesWithTls);
	CPPUNIT_TEST(testPreferUsesTls);
	CPPUNIT_TEST(testPreferFallsBackWhenRefused);
	CPPUNIT_TEST(testRequireOnEachNode);
	CPPUNIT_TEST(testRequireRefusedByServer);
	CPPUNIT_TEST(testVerifyCa);
	CPPUNIT_TEST(testVerifyCaWithoutRootCertificate);
	CPPUNIT_TEST(testVerifyCaWithWrongRootCertificate);
	CPPUNIT_TEST(testVerifyFullByAddressAndName);
	CPPUNIT_TEST(testVerifyFullWrongName);
	CPPUNIT_TEST(testScramPlusOverTls);
	CPPUNIT_TEST(testChannelBindingAndRequireAuth);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDisable()
	{
		ProtocolSession::Ptr session = openNode(1, "SSL Mode=disable");
		CPPUNIT_ASSERT(!session->isTls());
		CPPUNIT_ASSERT_EQUAL(std::string("false"), sslInUse(*session));
	}

	void testAllowUsesPlainWhenAccepted()
	{
		ProtocolSession::Ptr session = openNode(1, "SSL Mode=allow");
		CPPUNIT_ASSERT(!session->isTls());
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
		CPPUNIT_ASSERT_EQUAL(std::string("false"), sslInUse(*session));
	}

	void testAllowRetriesWithTls()
	{
		RejectPlainFront front(Poco::Net::SocketAddress(cluster().hosts[0], static_cast<Poco::UInt16>(cluster().port)));
		ConnectionSettings settings = nodeSettings(1, "SSL Mode=allow;Port=" + std::to_string(front.port()));
		ProtocolSessionFactory factory;
		ProtocolSession::Ptr session;
		try
		{
			session = factory.openSession(settings.endpoints.at(0), settings);
		}
		catch (Poco::Exception& exc)
		{
			CPPUNIT_FAIL(exc.displayText());
		}
		CPPUNIT_ASSERT_EQUAL(2, front.connections());
		CPPUNIT_ASSERT(!front.firstSawSslRequest());
		CPPUNIT_ASSERT(session->isTls());
		CPPUNIT_ASSERT_EQUAL(std::string("true"), sslInUse(*session));
	}

	void testPreferUsesTls()
	{
		ProtocolSession::Ptr session = openNode(1, "SSL Mode=prefer");
		CPPUNIT_ASSERT(session->isTls());
		CPPUNIT_ASSERT_EQUAL(std::string("true"), sslInUse(*session));
	}

	void testPreferFallsBackWhenRefused()
	{
		FakeBackend backend(BackendScript::primary());
		ConnectionSettings settings = ConnectionSettings::parse("Host=" + backend.hostAndPort() + ";Username=u;SSL Mode=prefer;Timeout=5", {});
		ProtocolSessionFactory factory;
		ProtocolSession::Ptr session = factory.openSession(settings.endpoints.at(0), settings);
		CPPUNIT_ASSERT(!session->isTls());
		CPPUNIT_ASSERT_EQUAL(1, backend.sslRequests());
		CPPUNIT_ASSERT_EQUAL(1, backend.startupMessages());
	}

	void testRequireOnEachNode()
	{
		for (int node = 1; node <= 3; ++node)
		{
			ProtocolSession::Ptr session = openNode(node, "SSL Mode=require");
			CPPUNIT_ASSERT(session->isTls());
			CPPUNIT_ASSERT_EQUAL(std::string("true"), sslInUse(*session));
		}
	}

	void testRequireRefusedByServer()
	{
		FakeBackend backend(BackendScript::primary());
		ConnectionSettings settings = ConnectionSettings::parse("Host=" + backend.hostAndPort() + ";Username=u;SSL Mode=require;Timeout=5", {});
		ProtocolSessionFactory factory;
		BlueTuskTransportException exc = expectTransportFailure(factory, settings);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts()[0].outcome);
		CPPUNIT_ASSERT(exc.message().find("refused TLS") != std::string::npos);
		CPPUNIT_ASSERT(exc.message().find("SSL Mode=require") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages());
	}

	void testVerifyCa()
	{
		for (int node = 1; node <= 3; ++node)
		{
			ProtocolSession::Ptr session = openNode(node, "SSL Mode=verify-ca;Root Certificate=" + cluster().rootCertificate());
			CPPUNIT_ASSERT(session->isTls());
		}
	}

	void testVerifyCaWithoutRootCertificate()
	{
		const std::string home = Poco::Environment::get("HOME", "");
		Poco::TemporaryFile emptyHome;
		emptyHome.createDirectories();
		Poco::Environment::set("HOME", emptyHome.path());
		ConnectionSettings settings = nodeSettings(1, "SSL Mode=verify-ca");
		ProtocolSessionFactory factory;
		BlueTuskTransportException exc = expectTransportFailure(factory, settings);
		Poco::Environment::set("HOME", home);
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT(exc.message().find("root certificate file") != std::string::npos);
		CPPUNIT_ASSERT(exc.message().find(".postgresql/root.crt") != std::string::npos);
	}

	void testVerifyCaWithWrongRootCertificate()
	{
		Poco::TemporaryFile dir;
		dir.createDirectories();
		const std::string cert = dir.path() + "/other.crt";
		const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=other-ca -days 1 -keyout '" + dir.path() +
			"/other.key' -out '" + cert + "' >/dev/null 2>&1";
		if (std::system(command.c_str()) != 0)
			return; // no openssl command line tool: nothing to check against
		ConnectionSettings settings = nodeSettings(1, "SSL Mode=verify-ca;Root Certificate=" + cert);
		ProtocolSessionFactory factory;
		BlueTuskTransportException exc = expectTransportFailure(factory, settings);
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT(exc.message().find("server certificate verification failed: ") != std::string::npos);
	}

	void testVerifyFullByAddressAndName()
	{
		const std::string root = ";Root Certificate=" + cluster().rootCertificate();
		for (int node = 1; node <= 3; ++node)
		{
			ProtocolSession::Ptr session = openNode(node, "SSL Mode=verify-full" + root);
			CPPUNIT_ASSERT(session->isTls());
		}
		// "localhost" is in the certificate; it resolves to ::1 and/or 127.0.0.1 (node 1 listens on 127.0.0.1).
		ProtocolSession::Ptr byName = openNode(1, "Host=localhost;SSL Mode=verify-full" + root);
		CPPUNIT_ASSERT(byName->isTls());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CONNECTED, byName->addressAttempts().back().outcome);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:") + std::to_string(cluster().port), byName->connectedAddress());
	}

	void testVerifyFullWrongName()
	{
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("wrong-name.test", std::vector<std::string>{"127.0.0.1"});
		ProtocolSessionFactory factory(resolver);
		ConnectionSettings settings = nodeSettings(1, "Host=wrong-name.test;SSL Mode=verify-full;Root Certificate=" + cluster().rootCertificate());
		BlueTuskTransportException exc = expectTransportFailure(factory, settings);
		CPPUNIT_ASSERT_EQUAL(std::string("wrong-name.test:" + std::to_string(cluster().port)), exc.endpoint());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts()[0].outcome);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:" + std::to_string(cluster().port)), exc.attempts()[0].address);
		CPPUNIT_ASSERT(exc.message().find("does not match host name \"wrong-name.test\"") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(1, resolver->resolveCount("wrong-name.test"));

		// verify-ca does not check the name: the same address is accepted
		ConnectionSettings caOnly = nodeSettings(1, "Host=wrong-name.test;SSL Mode=verify-ca;Root Certificate=" + cluster().rootCertificate());
		ProtocolSession::Ptr session = factory.openSession(caOnly.endpoints.at(0), caOnly);
		CPPUNIT_ASSERT(session->isTls());
	}

	void testScramPlusOverTls()
	{
		ProtocolSession::Ptr session = openNode(2, "SSL Mode=require");
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256-PLUS"), session->authenticationMethod());
		ProtocolSession::Ptr plain = openNode(2, "SSL Mode=disable");
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), plain->authenticationMethod());
	}

	void testChannelBindingAndRequireAuth()
	{
		// Require Auth and Channel Binding against PostgreSQL itself: require binds, disable does not (even over TLS),
		// require without TLS and a require_auth that excludes SCRAM are refused before any proof is sent.
		ProtocolSession::Ptr bound = openNode(1, "SSL Mode=require;Channel Binding=require;Require Auth=scram-sha-256");
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256-PLUS"), bound->authenticationMethod());
		ProtocolSession::Ptr unbound = openNode(1, "SSL Mode=require;Channel Binding=disable");
		CPPUNIT_ASSERT(unbound->isTls());
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), unbound->authenticationMethod());
		ProtocolSessionFactory factory;
		const ConnectionSettings plain = nodeSettings(1, "SSL Mode=disable;channel_binding=require");
		CPPUNIT_ASSERT_THROW(factory.openSession(plain.endpoints.at(0), plain), BlueTuskAuthenticationException);
		const ConnectionSettings md5Only = nodeSettings(1, "SSL Mode=require;require_auth=md5,password");
		try
		{
			factory.openSession(md5Only.endpoints.at(0), md5Only);
			CPPUNIT_FAIL("a SCRAM server was accepted with require_auth=md5,password");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("requirement \"password,md5\" (Require Auth) failed") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("asked for SASL (SCRAM-SHA-256) authentication") != std::string::npos);
		}
	}

private:
	static std::string sslInUse(ProtocolSession& session)
	{
		return *session.executeSimple("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()").at(0).rows.at(0).at(0);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TlsTest);
