//
// TlsKeywordTest.cpp
//
// The TLS, protocol version and Kerberos keywords in every form (Npgsql names, libpq
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
	CPPUNIT_TEST(testSessionKeywordForms);
	CPPUNIT_TEST(testSessionKeywordEnvironment);
	CPPUNIT_TEST(testProtocolVersionErrors);
	CPPUNIT_TEST(testSessionKeywordsRoundTrip);
	CPPUNIT_TEST(testProtocolVersionKeywords);
	CPPUNIT_TEST(testKerberosKeywords);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaults()
	{
		const ConnectionSettings settings = parse("Host=db;Username=u");
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslCertificate);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslKey);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslPassword);
		CPPUNIT_ASSERT(settings.sslCertMode == SslCertMode::Allow);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslCrl);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslCrlDirectory);
		CPPUNIT_ASSERT(settings.sslSni);
		CPPUNIT_ASSERT(settings.sslMinProtocolVersion == TlsProtocolVersion::TLSv1_2); // libpq's default
		CPPUNIT_ASSERT(settings.sslMaxProtocolVersion == TlsProtocolVersion::None);
		CPPUNIT_ASSERT_EQUAL(std::string(), settings.sslKeyLogFile);
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
			"Host Address=;Options=;Client Encoding=UTF8;Require Peer=;Service=;"
			"SSL Certificate=/c.crt;SSL Key=;SSL Password=***;SSL Certificate Mode=require;"
			"SSL CRL=;SSL CRL Directory=;SSL SNI=true;SSL Min Protocol Version=TLSv1.2;SSL Max Protocol Version=;"
			"Min Protocol Version=3.0;Max Protocol Version=;SSL Negotiation=postgres;"
			"Kerberos Service Name=postgres;GSS Encryption Mode=prefer;GSS Delegation=false;"),
			parse("host=db user=u sslcert=/c.crt sslpassword=secret-5 sslcertmode=require").toString());
	}

	void testSessionKeywordForms()
	{
		const ConnectionSettings npgsql = parse("Host=db;Username=u;SSL CRL=/c/root.crl;SSL CRL Directory=/c/crls;SSL SNI=0;"
			"SSL Min Protocol Version=TLSv1.1;SSL Max Protocol Version=TLSv1.3;SSL Key Log File=/tmp/keys");
		const ConnectionSettings libpq = parse("host=db user=u sslcrl=/c/root.crl sslcrldir=/c/crls sslsni=0 ssl_min_protocol_version=tlsv1.1 "
			"ssl_max_protocol_version=TLSV1.3 sslkeylogfile=/tmp/keys");
		const ConnectionSettings url = parse("postgres://u@db?sslcrl=/c/root.crl&sslcrldir=/c/crls&sslsni=off&ssl_min_protocol_version=TLSv1.1"
			"&ssl_max_protocol_version=TLSv1.3&sslkeylogfile=%2Ftmp%2Fkeys");
		for (const ConnectionSettings* settings: {&npgsql, &libpq, &url})
		{
			CPPUNIT_ASSERT_EQUAL(std::string("/c/root.crl"), settings->sslCrl);
			CPPUNIT_ASSERT_EQUAL(std::string("/c/crls"), settings->sslCrlDirectory);
			CPPUNIT_ASSERT(!settings->sslSni);
			CPPUNIT_ASSERT(settings->sslMinProtocolVersion == TlsProtocolVersion::TLSv1_1);
			CPPUNIT_ASSERT(settings->sslMaxProtocolVersion == TlsProtocolVersion::TLSv1_3);
			CPPUNIT_ASSERT_EQUAL(std::string("/tmp/keys"), settings->sslKeyLogFile);
			CPPUNIT_ASSERT(*settings == npgsql);
		}
		CPPUNIT_ASSERT(parse("host=db user=u sslsni=1").sslSni);
		CPPUNIT_ASSERT(parse("host=db user=u ssl_min_protocol_version=TLSv1").sslMinProtocolVersion == TlsProtocolVersion::TLSv1);
		// libpq: an empty minimum means no minimum
		CPPUNIT_ASSERT(parse("host=db user=u ssl_min_protocol_version=''").sslMinProtocolVersion == TlsProtocolVersion::None);
	}

	void testSessionKeywordEnvironment()
	{
		const Environment environment = {{"PGSSLCRL", "/env/root.crl"}, {"PGSSLCRLDIR", "/env/crls"}, {"PGSSLSNI", "0"},
			{"PGSSLMINPROTOCOLVERSION", "TLSv1.3"}, {"PGSSLMAXPROTOCOLVERSION", "TLSv1.3"}};
		const ConnectionSettings settings = parse("Host=db;Username=u", environment);
		CPPUNIT_ASSERT_EQUAL(std::string("/env/root.crl"), settings.sslCrl);
		CPPUNIT_ASSERT_EQUAL(std::string("/env/crls"), settings.sslCrlDirectory);
		CPPUNIT_ASSERT(!settings.sslSni);
		CPPUNIT_ASSERT(settings.sslMinProtocolVersion == TlsProtocolVersion::TLSv1_3);
		CPPUNIT_ASSERT(settings.sslMaxProtocolVersion == TlsProtocolVersion::TLSv1_3);
		const ConnectionSettings given = parse("host=db user=u sslsni=1 ssl_min_protocol_version=TLSv1.2 ssl_max_protocol_version=''", environment);
		CPPUNIT_ASSERT(given.sslSni);
		CPPUNIT_ASSERT(given.sslMinProtocolVersion == TlsProtocolVersion::TLSv1_2);
		CPPUNIT_ASSERT(given.sslMaxProtocolVersion == TlsProtocolVersion::None);
		const std::string text = parseError("Host=db;Username=u", {{"PGSSLMAXPROTOCOLVERSION", "TLSv2"}});
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "PGSSLMAXPROTOCOLVERSION (environment): \"TLSv2\" is not a valid value"));
	}

	void testProtocolVersionErrors()
	{
		std::string text = parseError("host=db user=u ssl_min_protocol_version=SSLv3");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "ssl_min_protocol_version: \"SSLv3\" is not a valid value; accepted values: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3, or empty for no bound"));
		text = parseError("host=db user=u ssl_min_protocol_version=TLSv1.3 ssl_max_protocol_version=TLSv1.2");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "invalid SSL protocol version range: SSL Min Protocol Version (ssl_min_protocol_version) TLSv1.3 is above "
			"SSL Max Protocol Version (ssl_max_protocol_version) TLSv1.2"));
		text = parseError("Host=db;Username=u;SSL Max Protocol Version=TLSv1.1"); // the default minimum is TLSv1.2
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "invalid SSL protocol version range"));
		CPPUNIT_ASSERT(parse("Host=db;Username=u;SSL Min Protocol Version=;SSL Max Protocol Version=TLSv1.1").sslMaxProtocolVersion == TlsProtocolVersion::TLSv1_1);
		text = parseError("host=db user=u sslsni=maybe");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "sslsni"));
	}

	void testSessionKeywordsRoundTrip()
	{
		const Environment hostile = {{"PGSSLCRL", "/env/root.crl"}, {"PGSSLCRLDIR", "/env/crls"}, {"PGSSLSNI", "0"},
			{"PGSSLMINPROTOCOLVERSION", "TLSv1.3"}, {"PGSSLMAXPROTOCOLVERSION", "TLSv1.3"}};
		for (const std::string& text: {std::string("Host=db;Username=u"),
			std::string("host=db user=u sslcrl='/c/a b.crl' sslcrldir=/d sslsni=0 ssl_min_protocol_version='' ssl_max_protocol_version=TLSv1.1 sslkeylogfile='/k;x'")})
		{
			const ConnectionSettings original = parse(text);
			const std::string printed = original.toString();
			for (const Environment& environment: {Environment(), hostile})
			{
				const ConnectionSettings reparsed = parse(printed, environment);
				CPPUNIT_ASSERT_MESSAGE(text + " -> " + printed, reparsed == original);
				CPPUNIT_ASSERT_EQUAL(printed, reparsed.toString());
			}
		}
		BLUETUSK_ASSERT_CONTAINS(parse("Host=db;Username=u").toString(), "SSL CRL=;SSL CRL Directory=;SSL SNI=true;SSL Min Protocol Version=TLSv1.2;"
			"SSL Max Protocol Version=;");
	}

	void testProtocolVersionKeywords()
	{
		const ConnectionSettings defaults = parse("Host=db;Username=u");
		CPPUNIT_ASSERT_EQUAL(0, defaults.minProtocolVersion);
		CPPUNIT_ASSERT_EQUAL(-1, defaults.maxProtocolVersion);
		CPPUNIT_ASSERT_EQUAL(0, defaults.requestedProtocolVersion()); // libpq 18 asks for 3.0 by default
		const ConnectionSettings npgsql = parse("Host=db;Username=u;Min Protocol Version=3.0;Max Protocol Version=3.2");
		const ConnectionSettings libpq = parse("host=db user=u min_protocol_version=3.0 max_protocol_version=latest");
		const ConnectionSettings url = parse("postgresql://u@db?min_protocol_version=3.0&max_protocol_version=LATEST");
		for (const ConnectionSettings* settings: {&npgsql, &libpq, &url})
		{
			CPPUNIT_ASSERT_EQUAL(0, settings->minProtocolVersion);
			CPPUNIT_ASSERT_EQUAL(2, settings->maxProtocolVersion);
			CPPUNIT_ASSERT_EQUAL(2, settings->requestedProtocolVersion());
		}
		// a minimum above 3.0 without a maximum asks for the minimum
		CPPUNIT_ASSERT_EQUAL(2, parse("host=db user=u min_protocol_version=3.2").requestedProtocolVersion());
		const ConnectionSettings environment = parse("Host=db;Username=u", {{"PGMINPROTOCOLVERSION", "3.2"}, {"PGMAXPROTOCOLVERSION", "3.2"}});
		CPPUNIT_ASSERT_EQUAL(2, environment.minProtocolVersion);
		CPPUNIT_ASSERT_EQUAL(2, environment.maxProtocolVersion);
		// SSL Negotiation (libpq 17): forms, environment, error
		CPPUNIT_ASSERT(parse("Host=db;Username=u;SSL Mode=require;SSL Negotiation=direct").sslNegotiation == SslNegotiation::Direct);
		CPPUNIT_ASSERT(parse("postgresql://u@db?sslmode=verify-ca&sslnegotiation=direct").sslNegotiation == SslNegotiation::Direct);
		CPPUNIT_ASSERT(parse("host=db user=u sslmode=require", {{"PGSSLNEGOTIATION", "direct"}}).sslNegotiation == SslNegotiation::Direct);
		CPPUNIT_ASSERT(parse("host=db user=u").sslNegotiation == SslNegotiation::Postgres);
		std::string negotiation = parseError("host=db user=u sslmode=require sslnegotiation=tls");
		CPPUNIT_ASSERT_MESSAGE(negotiation, contains(negotiation, "sslnegotiation: \"tls\" is not a valid value; accepted values: postgres, direct"));
		const ConnectionSettings direct = parse("host=db user=u sslmode=require sslnegotiation=direct");
		CPPUNIT_ASSERT(parse(direct.toString(), {{"PGSSLNEGOTIATION", "postgres"}}) == direct);
		std::string text = parseError("host=db user=u max_protocol_version=3.1");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "max_protocol_version: \"3.1\" is not a valid value; accepted values: 3.0, 3.2, latest"));
		text = parseError("host=db user=u min_protocol_version=");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "min_protocol_version: \"\" is not a valid value"));
		text = parseError("host=db user=u min_protocol_version=latest max_protocol_version=3.0");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "Min Protocol Version (min_protocol_version) 3.2 is greater than Max Protocol Version (max_protocol_version) 3.0"));
		for (const std::string& written: {std::string("host=db user=u"), std::string("host=db user=u min_protocol_version=3.2"),
			std::string("host=db user=u max_protocol_version=latest")})
		{
			const ConnectionSettings original = parse(written);
			for (const Environment& hostile: {Environment(), Environment{{"PGMINPROTOCOLVERSION", "3.2"}, {"PGMAXPROTOCOLVERSION", "3.2"}}})
			{
				const ConnectionSettings reparsed = parse(original.toString(), hostile);
				CPPUNIT_ASSERT_MESSAGE(original.toString(), reparsed == original);
			}
		}
	}

	void testKerberosKeywords()
	{
		const ConnectionSettings defaults = parse("Host=db;Username=u");
		CPPUNIT_ASSERT_EQUAL(std::string("postgres"), defaults.kerberosServiceName);
		CPPUNIT_ASSERT(defaults.gssEncMode == GssEncMode::Prefer);
		CPPUNIT_ASSERT(!defaults.gssDelegation);
		const ConnectionSettings npgsql = parse("Host=db;Username=u;Kerberos Service Name=pgsvc;GSS Encryption Mode=disable;GSS Delegation=true");
		const ConnectionSettings libpq = parse("host=db user=u krbsrvname=pgsvc gssencmode=disable gssdelegation=1");
		const ConnectionSettings environment = parse("Host=db;Username=u", {{"PGKRBSRVNAME", "pgsvc"}, {"PGGSSENCMODE", "disable"}, {"PGGSSDELEGATION", "1"}});
		for (const ConnectionSettings* settings: {&npgsql, &libpq, &environment})
		{
			CPPUNIT_ASSERT_EQUAL(std::string("pgsvc"), settings->kerberosServiceName);
			CPPUNIT_ASSERT(settings->gssEncMode == GssEncMode::Disable);
			CPPUNIT_ASSERT(settings->gssDelegation);
			CPPUNIT_ASSERT(parse(settings->toString(), {{"PGKRBSRVNAME", "other"}, {"PGGSSDELEGATION", "0"}}) == *settings);
		}
		std::string text = parseError("host=db user=u gssencmode=require");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "GSS Encryption Mode (gssencmode)=require cannot be honoured: BlueTusk does not implement GSSAPI transport encryption"));
		text = parseError("host=db user=u gssencmode=always");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "gssencmode: \"always\" is not a valid value; accepted values: disable, prefer, require"));
		text = parseError("host=db user=u krbsrvname=''");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "krbsrvname: empty"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TlsKeywordTest);
