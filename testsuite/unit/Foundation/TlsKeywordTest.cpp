//
// TlsKeywordTest.cpp
//
// Issue 29 (part B): the TLS, protocol version and Kerberos keywords in every form (Npgsql names, libpq
// names, URL query), from their environment variables, their errors, the masking of SSL Password, and the
// print/parse round trip.
//

#include "ConnectionStringTestHelpers.h"
#include "BlueTusk/TargetSessionAttributes.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class TlsKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TlsKeywordTest);
	CPPUNIT_TEST(testDefaults);
	CPPUNIT_TEST(testClientCertificateForms);
	CPPUNIT_TEST(testClientCertificateEnvironment);
	CPPUNIT_TEST(testCertificateModeErrors);
	CPPUNIT_TEST(testSslPasswordIsASecret);
	CPPUNIT_TEST(testRoundTrip);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaults()
	{
		const ConnectionSettings settings = parse("Host=db;Username=u");
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslCertificate);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslKey);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslPassword);
		CPPUNIT_ASSERT(settings.sslCertMode == SslCertMode::Allow);
	}

	void testClientCertificateForms()
	{
		const ConnectionSettings npgsql = parse("Host=db;Username=u;SSL Certificate=/c/client.crt;SSL Key=/c/client.key;SSL Password=pass-1;SSL Certificate Mode=require");
		const ConnectionSettings libpq = parse("host=db user=u sslcert=/c/client.crt sslkey=/c/client.key sslpassword=pass-1 sslcertmode=require");
		const ConnectionSettings url = parse("postgresql://u@db/?sslcert=%2Fc%2Fclient.crt&sslkey=/c/client.key&sslpassword=pass-1&sslcertmode=require");
		const ConnectionSettings compact = parse("Host=db;Username=u;SslCertificate=/c/client.crt;sslKey=/c/client.key;SSLPassword=pass-1;SslCertificateMode=Require");
		for (const ConnectionSettings* settings: {&npgsql, &libpq, &url, &compact})
		{
			CPPUNIT_ASSERT_EQUAL(std::string("/c/client.crt"), settings->sslCertificate);
			CPPUNIT_ASSERT_EQUAL(std::string("/c/client.key"), settings->sslKey);
			CPPUNIT_ASSERT_EQUAL(std::string("pass-1"), settings->sslPassword);
			CPPUNIT_ASSERT(settings->sslCertMode == SslCertMode::Require);
			CPPUNIT_ASSERT(*settings == npgsql);
		}
		CPPUNIT_ASSERT(parse("host=db user=u sslcertmode=disable").sslCertMode == SslCertMode::Disable);
		CPPUNIT_ASSERT(parse("host=db user=u sslcertmode=ALLOW").sslCertMode == SslCertMode::Allow);
	}

	void testClientCertificateEnvironment()
	{
		const Environment environment = {{"PGSSLCERT", "/env/c.crt"}, {"PGSSLKEY", "/env/c.key"}, {"PGSSLCERTMODE", "disable"},
			{"PGSSLPASSWORD", "not-a-libpq-variable"}};
		const ConnectionSettings fromEnvironment = parse("Host=db;Username=u", environment);
		CPPUNIT_ASSERT_EQUAL(std::string("/env/c.crt"), fromEnvironment.sslCertificate);
		CPPUNIT_ASSERT_EQUAL(std::string("/env/c.key"), fromEnvironment.sslKey);
		CPPUNIT_ASSERT(fromEnvironment.sslCertMode == SslCertMode::Disable);
		CPPUNIT_ASSERT_EQUAL(std::string(), fromEnvironment.sslPassword); // libpq has no environment variable for sslpassword
		const ConnectionSettings given = parse("host=db user=u sslcert=/c.crt sslkey=/c.key sslcertmode=require", environment);
		CPPUNIT_ASSERT_EQUAL(std::string("/c.crt"), given.sslCertificate);
		CPPUNIT_ASSERT_EQUAL(std::string("/c.key"), given.sslKey);
		CPPUNIT_ASSERT(given.sslCertMode == SslCertMode::Require);
		std::string text = parseError("Host=db;Username=u", {{"PGSSLCERTMODE", "sometimes"}});
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "PGSSLCERTMODE (environment): \"sometimes\" is not a valid value; accepted values: disable, allow, require"));
	}

	void testCertificateModeErrors()
	{
		std::string text = parseError("host=db user=u sslcertmode=verify");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "sslcertmode: \"verify\" is not a valid value; accepted values: disable, allow, require"));
		text = parseError("Host=db;Username=u;SSL Certificate Mode=");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "SSL Certificate Mode: \"\" is not a valid value"));
	}

	void testSslPasswordIsASecret()
	{
		const std::string secret = "key-passphrase-77";
		const ConnectionSettings settings = parse("Host=db;Username=u;SSL Key=/k;SSL Password=" + secret);
		const std::string printed = settings.toString();
		BLUETUSK_ASSERT_CONTAINS(printed, "SSL Password=***;");
		CPPUNIT_ASSERT_MESSAGE(printed, !contains(printed, secret));
		CPPUNIT_ASSERT(!contains(printed, "Password=***;Application")); // there is no Password
		CPPUNIT_ASSERT_EQUAL(std::string("x ***"), settings.redactor().redact("x " + secret));
		// an error elsewhere in the string never shows it, in any form
		std::string text = parseError("host=db user=u sslpassword=" + secret + " sslcertmode=" + secret);
		CPPUNIT_ASSERT_MESSAGE(text, !contains(text, secret));
		BLUETUSK_ASSERT_CONTAINS(text, "sslcertmode: \"***\" is not a valid value");
		text = parseError("postgresql://u@db/?sslpassword=" + secret + "&sslcertmode=" + secret);
		CPPUNIT_ASSERT_MESSAGE(text, !contains(text, secret));
		// set() too
		ConnectionSettings changed = parse("Host=db;Username=u");
		changed.set("sslpassword", "other-secret-9");
		CPPUNIT_ASSERT_EQUAL(std::string("other-secret-9"), changed.sslPassword);
		CPPUNIT_ASSERT(!contains(changed.toString(), "other-secret-9"));
		CPPUNIT_ASSERT_EQUAL(std::string("***"), changed.redactor().redact("other-secret-9"));
	}

	void testRoundTrip()
	{
		const Environment hostile = {{"PGSSLCERT", "/env/c.crt"}, {"PGSSLKEY", "/env/c.key"}, {"PGSSLCERTMODE", "disable"}};
		for (const std::string& text: {std::string("Host=db;Username=u"),
			std::string("host=db user=u sslcert='/c/my client.crt' sslkey='/c/k;1' sslpassword=pw-1 sslcertmode=require"),
			std::string("Host=db;Username=u;SSL Certificate Mode=disable;SSL Key=\"/k;x\"")})
		{
			const ConnectionSettings original = parse(text);
			const std::string printed = original.toString();
			for (const Environment& environment: {Environment(), hostile})
			{
				ConnectionSettings reparsed = parse(printed, environment);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(printed, original.sslPassword.empty() ? std::string() : std::string("***"), reparsed.sslPassword);
				reparsed.sslPassword = original.sslPassword;
				CPPUNIT_ASSERT_MESSAGE(text + " -> " + printed, reparsed == original);
				CPPUNIT_ASSERT_EQUAL(printed, reparsed.toString());
			}
		}
		CPPUNIT_ASSERT_EQUAL(std::string("Host=db;Port=5432;Database=u;Username=u;Application Name=;Target Session Attributes=any;"
			"Host Order=sequential;Timeout=15;SSL Mode=prefer;Root Certificate=;Passfile=;Require Auth=;Channel Binding=prefer;"
			"SSL Certificate=/c.crt;SSL Key=;SSL Password=***;SSL Certificate Mode=require;"),
			parse("host=db user=u sslcert=/c.crt sslpassword=secret-5 sslcertmode=require").toString());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TlsKeywordTest);
