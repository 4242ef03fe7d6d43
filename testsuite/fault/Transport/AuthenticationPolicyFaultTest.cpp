//
// AuthenticationPolicyFaultTest.cpp
//
// a server may not change the authentication method in the middle of an exchange
// (SCRAM begun then cleartext or MD5 asked; MD5 or cleartext then another password), and the client
// honours libpq 16's require_auth and channel_binding. Each case runs against the fake backend and checks
// the refusal's text and what the server received (no password sent after a refused request).
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

using Auth = BackendScript::Authentication;

const std::string PASSWORD = "policy-secret";


BackendScript downgrade(Auth first, Auth then)
{
	BackendScript script = BackendScript::primary().requirePassword(first, PASSWORD);
	script.downgradeTo = then;
	return script;
}


ConnectionSettings withPolicy(const std::string& requireAuth, ChannelBinding binding = ChannelBinding::Prefer)
{
	ConnectionSettings settings = fastSettings(2000, PASSWORD);
	settings.requireAuth = RequireAuth::parse(requireAuth);
	settings.channelBinding = binding;
	return settings;
}


std::string refusal(FakeBackend& backend, const ConnectionSettings& settings)
	/// The message of the BlueTuskAuthenticationException the open must throw.
{
	ProtocolSessionFactory factory;
	try
	{
		factory.openSession(backend.endpoint(), settings);
	}
	catch (BlueTuskAuthenticationException& exc)
	{
		return exc.message();
	}
	CPPUNIT_FAIL("the open succeeded");
	return std::string();
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class AuthenticationPolicyFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(AuthenticationPolicyFaultTest);
	CPPUNIT_TEST(testScramThenCleartextRefused);
	CPPUNIT_TEST(testScramThenMd5Refused);
	CPPUNIT_TEST(testMd5ThenCleartextRefused);
	CPPUNIT_TEST(testCleartextThenMd5Refused);
	CPPUNIT_TEST(testDowngradeStopsAMultiHostOpen);
	CPPUNIT_TEST(testRequireAuthAllowList);
	CPPUNIT_TEST(testRequireAuthNegated);
	CPPUNIT_TEST(testRequireAuthNone);
	CPPUNIT_TEST(testChannelBindingRequire);
	CPPUNIT_TEST(testChannelBindingDisableAndPrefer);
	CPPUNIT_TEST_SUITE_END();

public:
	void testScramThenCleartextRefused()
	{
		FakeBackend backend(downgrade(Auth::ScramSha256, Auth::Cleartext));
		const std::string text = refusal(backend, fastSettings(2000, PASSWORD));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "the server at " + backend.hostAndPort()));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "asked for a cleartext password after SASL (SCRAM-SHA-256) authentication had begun"));
		CPPUNIT_ASSERT_EQUAL(0, backend.passwordsReceived()); // the cleartext password never left the client
	}

	void testScramThenMd5Refused()
	{
		FakeBackend backend(downgrade(Auth::ScramSha256, Auth::Md5));
		const std::string text = refusal(backend, fastSettings(2000, PASSWORD));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "asked for a hashed password (MD5) after SASL (SCRAM-SHA-256) authentication had begun"));
		CPPUNIT_ASSERT_EQUAL(0, backend.passwordsReceived());
	}

	void testMd5ThenCleartextRefused()
	{
		FakeBackend backend(downgrade(Auth::Md5, Auth::Cleartext));
		const std::string text = refusal(backend, fastSettings(2000, PASSWORD));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "asked for a cleartext password after a hashed password (MD5) had begun"));
		CPPUNIT_ASSERT_EQUAL(1, backend.passwordsReceived()); // the MD5 answer only
	}

	void testCleartextThenMd5Refused()
	{
		FakeBackend backend(downgrade(Auth::Cleartext, Auth::Md5));
		const std::string text = refusal(backend, fastSettings(2000, PASSWORD));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "asked for a hashed password (MD5) after a cleartext password had begun"));
		CPPUNIT_ASSERT_EQUAL(1, backend.passwordsReceived());
	}

	void testDowngradeStopsAMultiHostOpen()
	{
		// Like a rejected password: the next host is not tried (it might be the same attacker).
		FakeBackend attacker(downgrade(Auth::ScramSha256, Auth::Cleartext), "127.0.0.2");
		FakeBackend honest(BackendScript::primary().requirePassword(Auth::ScramSha256, PASSWORD), "127.0.0.3");
		try
		{
			BlueTuskConnection::open("Host=" + attacker.hostAndPort() + "," + honest.hostAndPort() +
				";Username=alice;Password=" + PASSWORD + ";SSL Mode=disable;Timeout=2");
			CPPUNIT_FAIL("the open succeeded");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "authentication failed at " + attacker.hostAndPort() + " (later hosts not tried)"));
		}
		CPPUNIT_ASSERT_EQUAL(0, attacker.passwordsReceived());
		CPPUNIT_ASSERT_EQUAL(0, honest.startupMessages());
	}

	void testRequireAuthAllowList()
	{
		FakeBackend cleartext(BackendScript::primary().requirePassword(Auth::Cleartext, PASSWORD));
		const std::string text = refusal(cleartext, withPolicy("scram-sha-256"));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "authentication method requirement \"scram-sha-256\" (Require Auth) failed: the server at " +
			cleartext.hostAndPort()));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "asked for a cleartext password"));
		CPPUNIT_ASSERT_EQUAL(0, cleartext.passwordsReceived());

		FakeBackend scram(BackendScript::primary().requirePassword(Auth::ScramSha256, PASSWORD));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(scram.endpoint(), withPolicy("md5, SCRAM-SHA-256"));
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
		session->close();
	}

	void testRequireAuthNegated()
	{
		FakeBackend cleartext(BackendScript::primary().requirePassword(Auth::Cleartext, PASSWORD));
		const std::string text = refusal(cleartext, withPolicy("!password,!md5"));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "requirement \"!password,!md5\" (Require Auth) failed"));
		CPPUNIT_ASSERT_EQUAL(0, cleartext.passwordsReceived());

		FakeBackend md5(BackendScript::primary().requirePassword(Auth::Md5, PASSWORD));
		CPPUNIT_ASSERT(contains(refusal(md5, withPolicy("!md5")), "asked for a hashed password (MD5)"));
		CPPUNIT_ASSERT_EQUAL(0, md5.passwordsReceived());

		ProtocolSessionFactory factory;
		auto session = factory.openSession(md5.endpoint(), withPolicy("!password"));
		CPPUNIT_ASSERT_EQUAL(std::string("MD5"), session->authenticationMethod());
		session->close();
	}

	void testRequireAuthNone()
	{
		FakeBackend trust(BackendScript::primary());
		CPPUNIT_ASSERT(contains(refusal(trust, withPolicy("scram-sha-256")), "did not ask the client to authenticate"));
		CPPUNIT_ASSERT(contains(refusal(trust, withPolicy("!none")), "requirement \"!none\" (Require Auth) failed"));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(trust.endpoint(), withPolicy("scram-sha-256,none"));
		CPPUNIT_ASSERT_EQUAL(std::string("trust"), session->authenticationMethod());
		session->close();
	}

	void testChannelBindingRequire()
	{
		FakeBackend scram(BackendScript::primary().requirePassword(Auth::ScramSha256, PASSWORD));
		const std::string noTls = refusal(scram, withPolicy("", ChannelBinding::Require));
		CPPUNIT_ASSERT_MESSAGE(noTls, contains(noTls, "Channel Binding=require, but the session to " + scram.hostAndPort() + " (" + scram.hostAndPort() + ") does not use TLS"));
		CPPUNIT_ASSERT_EQUAL(0, scram.passwordsReceived());

		FakeBackend cleartext(BackendScript::primary().requirePassword(Auth::Cleartext, PASSWORD));
		const std::string text = refusal(cleartext, withPolicy("", ChannelBinding::Require));
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "asked for a cleartext password, which has no channel binding"));
		CPPUNIT_ASSERT_EQUAL(0, cleartext.passwordsReceived());

		FakeBackend trust(BackendScript::primary());
		CPPUNIT_ASSERT(contains(refusal(trust, withPolicy("", ChannelBinding::Require)), "authenticated the client without channel binding"));
	}

	void testChannelBindingDisableAndPrefer()
	{
		FakeBackend scram(BackendScript::primary().requirePassword(Auth::ScramSha256, PASSWORD));
		ProtocolSessionFactory factory;
		for (ChannelBinding binding: {ChannelBinding::Disable, ChannelBinding::Prefer})
		{
			auto session = factory.openSession(scram.endpoint(), withPolicy("", binding));
			CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
			session->close();
		}
		CPPUNIT_ASSERT_EQUAL(2, scram.passwordsReceived());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(AuthenticationPolicyFaultTest);
