//
// ConnectionStringTest.cpp
//
// The three connection string forms, the examples of doc/connection-strings.md and the host/port rules.
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class ConnectionStringTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionStringTest);
	CPPUNIT_TEST(testDesignNpgsqlExample);
	CPPUNIT_TEST(testDesignLibpqExample);
	CPPUNIT_TEST(testDesignUrlExample);
	CPPUNIT_TEST(testSeedSharedPort);
	CPPUNIT_TEST(testSeedPositionalPorts);
	CPPUNIT_TEST(testOwnPortWins);
	CPPUNIT_TEST(testDefaultPort);
	CPPUNIT_TEST(testIpv6);
	CPPUNIT_TEST(testSocketDirectories);
	CPPUNIT_TEST(testDuplicateEndpointsKept);
	CPPUNIT_TEST(testHostElementWhiteSpace);
	CPPUNIT_TEST(testNpgsqlQuoting);
	CPPUNIT_TEST(testLibpqQuoting);
	CPPUNIT_TEST(testFormDetection);
	CPPUNIT_TEST(testUrlForms);
	CPPUNIT_TEST(testUrlPercentDecoding);
	CPPUNIT_TEST(testUrlSocketDirectory);
	CPPUNIT_TEST(testUrlQueryOverridesAuthority);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDesignNpgsqlExample()
	{
		const Environment environment = {{"PGUSER", "tester"}};
		const auto settings = parse("Host=db-a,db-b;Port=5432,6432;Target Session Attributes=prefer-standby", environment);
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:6432", settings);
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("tester"), settings.username);
	}

	void testDesignLibpqExample()
	{
		const Environment environment = {{"PGUSER", "tester"}};
		const auto settings = parse("host=db-a,db-b port=5432 target_session_attrs=read-write", environment);
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:5432", settings);
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
	}

	void testDesignUrlExample()
	{
		for (const std::string scheme: {"postgresql", "postgres", "PostgreSQL"})
		{
			const auto settings = parse(scheme + "://user:secret@db-a:5432,db-b:6432/app?target_session_attrs=standby");
			BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:6432", settings);
			CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::Standby);
			CPPUNIT_ASSERT_EQUAL(std::string("user"), settings.username);
			CPPUNIT_ASSERT_EQUAL(std::string("secret"), settings.password);
			CPPUNIT_ASSERT_EQUAL(std::string("app"), settings.database);
		}
	}

	void testSeedSharedPort()
	{
		const auto settings = parse("Host=db-a,db-b,db-c;Port=5432;Target Session Attributes=read-write", {{"PGUSER", "u"}});
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:5432 db-c:5432", settings);
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("db-a"), settings.endpoints[0].host());
		CPPUNIT_ASSERT_EQUAL(std::string("db-a:5432,db-b:5432,db-c:5432"), settings.hostList());

		const auto shared = parse("Host=db-a,db-b,db-c;Port=6000;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000 db-c:6000", shared);
	}

	void testSeedPositionalPorts()
	{
		const auto settings = parse("Host=db-a,db-b;Port=5432,6432;Target Session Attributes=prefer-standby", {{"PGUSER", "u"}});
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:6432", settings);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt16(6432), settings.endpoints[1].port());
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::PreferStandby);
	}

	void testOwnPortWins()
	{
		BLUETUSK_ASSERT_ENDPOINTS("db-a:7000 db-b:6432", parse("Host=db-a:7000,db-b;Port=5432,6432;Username=u"));
		BLUETUSK_ASSERT_ENDPOINTS("db-a:7000 db-b:6000", parse("Host=db-a:7000,db-b;Port=6000;Username=u"));
		BLUETUSK_ASSERT_ENDPOINTS("db-a:7000 db-b:5432", parse("Host=db-a:7000,db-b;Username=u"));
		BLUETUSK_ASSERT_ENDPOINTS("[::1]:7000 db-b:6432", parse("Host=[::1]:7000,db-b;Port=5432,6432;Username=u"));
	}

	void testDefaultPort()
	{
		const auto settings = parse("Host=db-a;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", settings);
		CPPUNIT_ASSERT(settings.endpoints[0].kind() == BlueTuskHostEndpoint::HOST_NAME);
	}

	void testIpv6()
	{
		const auto settings = parse("Host=[::1]:5433,[fe80::1],::2,2001:db8::7,127.0.0.1:6000;Port=7000;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("[::1]:5433 [fe80::1]:7000 [::2]:7000 [2001:db8::7]:7000 127.0.0.1:6000", settings);
		CPPUNIT_ASSERT_EQUAL(std::string("::1"), settings.endpoints[0].host());
		CPPUNIT_ASSERT(settings.endpoints[0].kind() == BlueTuskHostEndpoint::IPV6_LITERAL);
		CPPUNIT_ASSERT(settings.endpoints[2].kind() == BlueTuskHostEndpoint::IPV6_LITERAL);
		CPPUNIT_ASSERT(settings.endpoints[4].kind() == BlueTuskHostEndpoint::IPV4_LITERAL);

		BLUETUSK_ASSERT_ENDPOINTS("[::1]:5432", parse("postgresql://u@[::1]:5432"));
		BLUETUSK_ASSERT_ENDPOINTS("[::1]:5432", parse("postgresql://u@[::1]"));
		BLUETUSK_ASSERT_ENDPOINTS("[::1]:5432 [::2]:6543", parse("postgresql://u@[::1]:5432,[::2]:6543/db"));
	}

	void testSocketDirectories()
	{
		const auto settings = parse("Host=/var/run/postgresql,/tmp/odd:dir,db-a;Port=5433;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("/var/run/postgresql:5433 /tmp/odd:dir:5433 db-a:5433", settings);
		CPPUNIT_ASSERT(settings.endpoints[0].isUnixSocket());
		CPPUNIT_ASSERT_EQUAL(std::string("/var/run/postgresql/.s.PGSQL.5433"), settings.endpoints[0].unixSocketPath());
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/odd:dir"), settings.endpoints[1].host());
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/odd:dir/.s.PGSQL.5433"), settings.endpoints[1].unixSocketPath());

		const auto positional = parse("Host=/tmp/a,/tmp/b;Port=5432,5433;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("/tmp/a:5432 /tmp/b:5433", positional);

		// brackets give a socket directory its own port
		const auto bracketed = parse("Host=[/tmp/a:b]:6000;Username=u");
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/a:b"), bracketed.endpoints[0].host());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt16(6000), bracketed.endpoints[0].port());
		CPPUNIT_ASSERT(bracketed.endpoints[0].isUnixSocket());
	}

	void testDuplicateEndpointsKept()
	{
		const auto settings = parse("Host=db-a,db-b,db-a;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:5432 db-a:5432", settings);
		CPPUNIT_ASSERT(settings.endpoints[0] == settings.endpoints[2]);
	}

	void testHostElementWhiteSpace()
	{
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:6432", parse("Host = db-a , db-b ;Port= 5432 , 6432 ; Username = u "));
	}

	void testNpgsqlQuoting()
	{
		const auto settings = parse("Host=db-a;Username=\"u;1\";Password='it''s;\"x\"';Application Name=\"say \"\"hi\"\"\" ;Database=  spaced value  ");
		CPPUNIT_ASSERT_EQUAL(std::string("u;1"), settings.username);
		CPPUNIT_ASSERT_EQUAL(std::string("it's;\"x\""), settings.password);
		CPPUNIT_ASSERT_EQUAL(std::string("say \"hi\""), settings.applicationName);
		CPPUNIT_ASSERT_EQUAL(std::string("spaced value"), settings.database);

		const auto padded = parse("Host=db-a;Username=u;Application Name=\"  padded  \";;");
		CPPUNIT_ASSERT_EQUAL(std::string("  padded  "), padded.applicationName);
		const auto empty = parse("Host=db-a;Username=u;Application Name=\"\"");
		CPPUNIT_ASSERT_EQUAL(std::string(), empty.applicationName);
	}

	void testLibpqQuoting()
	{
		const auto settings = parse("host=db-a user=u password='a b\\'c\\\\d' application_name=x\\ y dbname = 'my db'");
		CPPUNIT_ASSERT_EQUAL(std::string("a b'c\\d"), settings.password);
		CPPUNIT_ASSERT_EQUAL(std::string("x y"), settings.applicationName);
		CPPUNIT_ASSERT_EQUAL(std::string("my db"), settings.database);
		const auto empty = parse("host=db-a user=u application_name=''");
		CPPUNIT_ASSERT_EQUAL(std::string(), empty.applicationName);
		const auto semicolon = parse("host=db-a user=u password='x;y'");
		CPPUNIT_ASSERT_EQUAL(std::string("x;y"), semicolon.password);
	}

	void testFormDetection()
	{
		// a single pair without ';' is read in the libpq form; only quoting differs
		CPPUNIT_ASSERT_EQUAL(std::string("a b"), parse("Application Name=a b", {{"PGHOST", "h"}, {"PGUSER", "u"}}).applicationName);
		CPPUNIT_ASSERT_EQUAL(std::string("x y"), parse("password='x y'", {{"PGHOST", "h"}, {"PGUSER", "u"}}).password);
		CPPUNIT_ASSERT_EQUAL(std::string("x y"), parse("password=\"x y\";", {{"PGHOST", "h"}, {"PGUSER", "u"}}).password);
		// spaces around '=' in the libpq form
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", parse("  host = db-a   user =u  "));
	}

	void testUrlForms()
	{
		const auto minimal = parse("postgresql://db-a", {{"PGUSER", "u"}});
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", minimal);
		CPPUNIT_ASSERT_EQUAL(std::string("u"), minimal.database);

		const auto full = parse("postgres://alice@db-a:6000/sales?application_name=report&sslmode=require&connect_timeout=2.5&Host%20Order=parallel");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000", full);
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), full.username);
		CPPUNIT_ASSERT_EQUAL(std::string(), full.password);
		CPPUNIT_ASSERT_EQUAL(std::string("sales"), full.database);
		CPPUNIT_ASSERT_EQUAL(std::string("report"), full.applicationName);
		CPPUNIT_ASSERT(full.sslMode == SslMode::Require);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2500000), full.connectTimeout.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), full.hostOrder);

		const auto queryOnly = parse("postgresql:///app?host=db-a,db-b&port=5432,6432&user=bob&&");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:6432", queryOnly);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), queryOnly.database);

		const auto trailing = parse("  postgresql://u@db-a/  ");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", trailing);
		CPPUNIT_ASSERT_EQUAL(std::string("u"), trailing.database);

		const auto emptyPassword = parse("postgresql://u:@db-a", {{"PGPASSWORD", "from-env"}});
		CPPUNIT_ASSERT_EQUAL(std::string(), emptyPassword.password);
	}

	void testUrlPercentDecoding()
	{
		const auto settings = parse("postgresql://us%40er:p%3Ass%2Fw%25rd%20x@db%2Da:5432/my%20db?application_name=a%26b%3Dc");
		CPPUNIT_ASSERT_EQUAL(std::string("us@er"), settings.username);
		CPPUNIT_ASSERT_EQUAL(std::string("p:ss/w%rd x"), settings.password);
		CPPUNIT_ASSERT_EQUAL(std::string("db-a"), settings.endpoints[0].host());
		CPPUNIT_ASSERT_EQUAL(std::string("my db"), settings.database);
		CPPUNIT_ASSERT_EQUAL(std::string("a&b=c"), settings.applicationName);
		const auto plus = parse("postgresql://u@h?application_name=a+b");
		CPPUNIT_ASSERT_EQUAL(std::string("a+b"), plus.applicationName);
	}

	void testUrlSocketDirectory()
	{
		const auto encoded = parse("postgresql://u@%2Fvar%2Frun%2Fpostgresql/db");
		BLUETUSK_ASSERT_ENDPOINTS("/var/run/postgresql:5432", encoded);
		CPPUNIT_ASSERT(encoded.endpoints[0].isUnixSocket());
		const auto withPort = parse("postgresql://u@%2Ftmp:5433/db");
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/.s.PGSQL.5433"), withPort.endpoints[0].unixSocketPath());
		const auto query = parse("postgresql:///db?host=/tmp/sock&port=6000&user=u");
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/sock/.s.PGSQL.6000"), query.endpoints[0].unixSocketPath());
	}

	void testUrlQueryOverridesAuthority()
	{
		// a later keyword wins, as in libpq: the query comes after the authority
		const auto settings = parse("postgresql://u@db-a:5000/one?host=db-b&dbname=two&user=v");
		BLUETUSK_ASSERT_ENDPOINTS("db-b:5432", settings);
		CPPUNIT_ASSERT_EQUAL(std::string("two"), settings.database);
		CPPUNIT_ASSERT_EQUAL(std::string("v"), settings.username);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionStringTest);
