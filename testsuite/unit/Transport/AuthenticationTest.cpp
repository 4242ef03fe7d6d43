//
// AuthenticationTest.cpp
//
// SCRAM-SHA-256 against the RFC 7677 test vector, SCRAM failure handling and channel binding headers, the
// salted-password cache, and the MD5 password response against a known hash.
//

#include "BlueTusk/BlueTuskException.h"
#include "connect/Md5Password.h"
#include "connect/ScramClient.h"
#include "Poco/Base64Decoder.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sstream>

using namespace BlueTusk;

namespace {

const std::string CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
const std::string SERVER_FIRST = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
const std::string CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
const std::string SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";


std::string base64Decode(const std::string& text)
{
	std::istringstream in(text);
	Poco::Base64Decoder decoder(in);
	return std::string(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
}


void expectAuthenticationFailure(const std::function<void()>& action, const std::string& expectedText, const std::vector<std::string>& secrets)
{
	try
	{
		action();
		CPPUNIT_FAIL("expected BlueTuskAuthenticationException: " + expectedText);
	}
	catch (BlueTuskAuthenticationException& exc)
	{
		CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find(expectedText) != std::string::npos);
		for (const auto& secret: secrets)
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find(secret) == std::string::npos);
	}
}

} // namespace


class AuthenticationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(AuthenticationTest);
	CPPUNIT_TEST(testRfc7677Vector);
	CPPUNIT_TEST(testServerSignatureMismatch);
	CPPUNIT_TEST(testServerError);
	CPPUNIT_TEST(testMalformedServerFirst);
	CPPUNIT_TEST(testChannelBindingHeaders);
	CPPUNIT_TEST(testRandomNonce);
	CPPUNIT_TEST(testSaltedPasswordCache);
	CPPUNIT_TEST(testMd5KnownHash);
	CPPUNIT_TEST_SUITE_END();

public:
	void testRfc7677Vector()
	{
		ScramClient client("pencil", ScramClient::NONE, "", "user", CLIENT_NONCE);
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), client.mechanism());
		CPPUNIT_ASSERT_EQUAL(std::string("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"), client.clientFirstMessage());
		CPPUNIT_ASSERT_EQUAL(CLIENT_FINAL, client.clientFinalMessage(SERVER_FIRST));
		client.verifyServerFinal(SERVER_FINAL);
	}

	void testServerSignatureMismatch()
	{
		ScramClient client("pencil", ScramClient::NONE, "", "user", CLIENT_NONCE);
		client.clientFinalMessage(SERVER_FIRST);
		const std::vector<std::string> secrets = {CLIENT_NONCE, "pencil", "dHzbZapWIk4jUhN", "6rriTRBi23WpRR", "W22ZaJ0SNY7soEsUEjb6gQ"};
		expectAuthenticationFailure([&] { client.verifyServerFinal("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="); },
			"server signature does not verify", secrets);
		expectAuthenticationFailure([&] { client.verifyServerFinal("v=short"); }, "server signature does not verify", secrets);
		expectAuthenticationFailure([&] { client.verifyServerFinal("x=1"); }, "malformed server-final-message", secrets);
		// the right signature for another password does not verify either
		ScramClient other("pencil2", ScramClient::NONE, "", "user", CLIENT_NONCE);
		other.clientFinalMessage(SERVER_FIRST);
		expectAuthenticationFailure([&] { other.verifyServerFinal(SERVER_FINAL); }, "server signature does not verify", secrets);
		// a final message before the exchange
		ScramClient early("pencil", ScramClient::NONE, "", "user", CLIENT_NONCE);
		expectAuthenticationFailure([&] { early.verifyServerFinal(SERVER_FINAL); }, "before the client-final-message", secrets);
	}

	void testServerError()
	{
		ScramClient client("pencil", ScramClient::NONE, "", "user", CLIENT_NONCE);
		client.clientFinalMessage(SERVER_FIRST);
		expectAuthenticationFailure([&] { client.verifyServerFinal("e=invalid-proof"); }, "failed on the server: invalid-proof", {"pencil"});
	}

	void testMalformedServerFirst()
	{
		const std::vector<std::string> secrets = {"pencil", CLIENT_NONCE};
		auto attempt = [](const std::string& serverFirst)
		{
			return [serverFirst]
			{
				ScramClient client("pencil", ScramClient::NONE, "", "user", CLIENT_NONCE);
				client.clientFinalMessage(serverFirst);
			};
		};
		expectAuthenticationFailure(attempt("r=someoneElsesNonce123,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"), "does not extend the client nonce", secrets);
		expectAuthenticationFailure(attempt("r=" + CLIENT_NONCE + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"), "does not extend the client nonce", secrets);
		expectAuthenticationFailure(attempt("r=" + CLIENT_NONCE + "xyz,s=!!!!,i=4096"), "salt is not valid base64", secrets);
		expectAuthenticationFailure(attempt("r=" + CLIENT_NONCE + "xyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0"), "invalid iteration count", secrets);
		expectAuthenticationFailure(attempt("r=" + CLIENT_NONCE + "xyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999"), "invalid iteration count", secrets);
		expectAuthenticationFailure(attempt("r=" + CLIENT_NONCE + "xyz,s=W22ZaJ0SNY7soEsUEjb6gQ=="), "incomplete", secrets);
		expectAuthenticationFailure(attempt("m=ext,r=" + CLIENT_NONCE + "xyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"), "extension", secrets);
		expectAuthenticationFailure(attempt("garbage"), "malformed server-first-message", secrets);
	}

	void testChannelBindingHeaders()
	{
		ScramClient supported("pencil", ScramClient::SUPPORTED, "", "", CLIENT_NONCE);
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), supported.mechanism());
		CPPUNIT_ASSERT_EQUAL(std::string("y,,n=,r=rOprNGfwEbeRWgbNEkqO"), supported.clientFirstMessage());
		std::string final = supported.clientFinalMessage(SERVER_FIRST);
		CPPUNIT_ASSERT_EQUAL(std::string("c=eSws,r="), final.substr(0, 9)); // base64("y,,")

		const std::string certificateHash(32, '\x5A');
		ScramClient plus("pencil", ScramClient::TLS_SERVER_END_POINT, certificateHash, "", CLIENT_NONCE);
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256-PLUS"), plus.mechanism());
		CPPUNIT_ASSERT_EQUAL(std::string("p=tls-server-end-point,,n=,r=rOprNGfwEbeRWgbNEkqO"), plus.clientFirstMessage());
		final = plus.clientFinalMessage(SERVER_FIRST);
		const std::string binding = final.substr(2, final.find(",r=") - 2);
		CPPUNIT_ASSERT_EQUAL(std::string("p=tls-server-end-point,,") + certificateHash, base64Decode(binding));
		CPPUNIT_ASSERT_THROW(ScramClient("pencil", ScramClient::TLS_SERVER_END_POINT, ""), BlueTuskAuthenticationException);

		// RFC 5802 user name escaping
		ScramClient escaped("pencil", ScramClient::NONE, "", "a,b=c", CLIENT_NONCE);
		CPPUNIT_ASSERT_EQUAL(std::string("n,,n=a=2Cb=3Dc,r=rOprNGfwEbeRWgbNEkqO"), escaped.clientFirstMessage());
	}

	void testRandomNonce()
	{
		ScramClient a("pencil");
		ScramClient b("pencil");
		const std::string first = a.clientFirstMessage();
		CPPUNIT_ASSERT_EQUAL(std::string("n,,n=,r="), first.substr(0, 8));
		CPPUNIT_ASSERT_EQUAL(std::size_t(8 + 24), first.size()); // 18 random bytes in base64
		CPPUNIT_ASSERT(first != b.clientFirstMessage());
		CPPUNIT_ASSERT(first.find(',', 8) == std::string::npos);
	}

	void testSaltedPasswordCache()
	{
		ScramClient::clearCache();
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), ScramClient::cacheSize());
		const std::string salt = base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
		Poco::Clock cold;
		const std::string first = ScramClient::saltedPassword("pencil", salt, 100000);
		const Poco::Clock::ClockDiff coldUs = cold.elapsed();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), ScramClient::cacheSize());
		Poco::Clock warm;
		const std::string second = ScramClient::saltedPassword("pencil", salt, 100000);
		const Poco::Clock::ClockDiff warmUs = warm.elapsed();
		CPPUNIT_ASSERT(first == second);
		CPPUNIT_ASSERT_EQUAL(std::size_t(32), first.size());
		CPPUNIT_ASSERT_MESSAGE(std::to_string(coldUs) + " vs " + std::to_string(warmUs), warmUs * 10 < coldUs);
		// different password, salt or iterations: different entries
		CPPUNIT_ASSERT(ScramClient::saltedPassword("pencil", salt, 4096) != first);
		CPPUNIT_ASSERT(ScramClient::saltedPassword("pencil2", salt, 100000) != first);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), ScramClient::cacheSize());
		// bounded
		for (int i = 0; i < 100; ++i) ScramClient::saltedPassword("p" + std::to_string(i), salt, 1);
		CPPUNIT_ASSERT_EQUAL(std::size_t(64), ScramClient::cacheSize());
		ScramClient::clearCache();
	}

	void testMd5KnownHash()
	{
		// "md5" + md5(md5(password + user) as hex + salt) as hex; computed independently (Python hashlib).
		CPPUNIT_ASSERT_EQUAL(std::string("md54376eb6913b38f9aaff38dc7cf19ca76"), Md5Password::response("user", "pencil", std::string("\x01\x02\x03\x04", 4)));
		CPPUNIT_ASSERT_EQUAL(std::string("md5535b759ab9993fb7f8c2786fcc523ea2"), Md5Password::response("bluetusk", "tusk-test-secret", "abcd"));
		CPPUNIT_ASSERT_THROW(Md5Password::response("user", "pencil", "abc"), Poco::InvalidArgumentException);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(AuthenticationTest);
