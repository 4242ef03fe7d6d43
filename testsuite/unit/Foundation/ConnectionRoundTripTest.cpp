//
// ConnectionRoundTripTest.cpp
//
// ConnectionSettings::toString() (parses back to equal settings, shows Password=***), set() overrides,
// validate() and hostList().
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

void checkRoundTrip(const std::string& text, const Environment& environment = Environment())
	/// parse(toString()) equals the original, the password aside (it reads back as "***"), under the given
	/// environment and under an environment that sets every variable.
{
	const ConnectionSettings original = parse(text, environment);
	const std::string printed = original.toString();
	if (!original.password.empty())
	{
		BLUETUSK_ASSERT_CONTAINS(printed, "Password=***");
		CPPUNIT_ASSERT_MESSAGE(printed, !contains(printed, original.password) || original.password == "***");
	}
	const Environment hostile = {
		{"PGHOST", "env-a,env-b"}, {"PGPORT", "7001,7002"}, {"PGDATABASE", "envdb"}, {"PGUSER", "envuser"},
		{"PGPASSFILE", "/env/pgpass"}, {"PGAPPNAME", "envapp"}, {"PGCONNECT_TIMEOUT", "4.5"}, {"PGSSLMODE", "verify-ca"},
		{"PGSSLROOTCERT", "/env/root.crt"}, {"PGTARGETSESSIONATTRS", "prefer-standby"}, {"PGLOADBALANCEHOSTS", "random"},
		{"PGHOSTADDR", "10.9.9.9,10.9.9.8"}, {"PGOPTIONS", "-c work_mem=1MB"}, {"PGCLIENTENCODING", "LATIN1"},
		{"PGREQUIREPEER", "envpeer"}, {"PGSERVICE", "no-such-service"}};
	for (const Environment& reparseEnvironment: {Environment(), hostile})
	{
		ConnectionSettings reparsed = parse(printed, reparseEnvironment);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(printed, original.password.empty() ? std::string() : std::string("***"), reparsed.password);
		reparsed.password = original.password;
		CPPUNIT_ASSERT_MESSAGE(text + " -> " + printed, reparsed == original);
		CPPUNIT_ASSERT_EQUAL(printed, reparsed.toString());
	}
}

} // namespace


class ConnectionRoundTripTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionRoundTripTest);
	CPPUNIT_TEST(testCanonicalText);
	CPPUNIT_TEST(testRoundTrips);
	CPPUNIT_TEST(testSiteTargetSessionPolicy);
	CPPUNIT_TEST(testEveryKeywordRoundTrips);
	CPPUNIT_TEST(testQuotedValuesRoundTrip);
	CPPUNIT_TEST(testPasswordMaskedInOtherValues);
	CPPUNIT_TEST(testEquality);
	CPPUNIT_TEST(testSetOverrides);
	CPPUNIT_TEST(testSetHostAndPort);
	CPPUNIT_TEST(testSetUserMovesDefaultedDatabase);
	CPPUNIT_TEST(testValidate);
	CPPUNIT_TEST(testHostList);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCanonicalText()
	{
		const auto settings = parse("postgresql://bob:s3cr3t-value@db-a:5432,db-b:6432/app?target_session_attrs=standby&Maximum%20Pool%20Size=20");
		CPPUNIT_ASSERT_EQUAL(std::string("Host=db-a,db-b;Port=5432,6432;Database=app;Username=bob;Password=***;Application Name=;"
			"Target Session Attributes=standby;Host Order=sequential;Timeout=15;SSL Mode=prefer;Root Certificate=;Passfile=;Require Auth=;Channel Binding=prefer;"
			"Host Address=;Options=;Client Encoding=UTF8;Require Peer=;Service=;Maximum Pool Size=20;"
			"SSL Certificate=;SSL Key=;SSL Certificate Mode=allow;"
			"SSL CRL=;SSL CRL Directory=;SSL SNI=true;SSL Min Protocol Version=TLSv1.2;SSL Max Protocol Version=;"
			"Min Protocol Version=3.0;Max Protocol Version=;SSL Negotiation=postgres;"
			"Kerberos Service Name=postgres;GSS Encryption Mode=prefer;GSS Delegation=false;"), settings.toString());
		CPPUNIT_ASSERT_EQUAL(std::string("Host=db-a;Port=5432;Database=u;Username=u;Application Name=;Target Session Attributes=any;"
			"Host Order=sequential;Timeout=15;SSL Mode=prefer;Root Certificate=;Passfile=;Require Auth=;Channel Binding=prefer;"
			"Host Address=;Options=;Client Encoding=UTF8;Require Peer=;Service=;"
			"SSL Certificate=;SSL Key=;SSL Certificate Mode=allow;"
			"SSL CRL=;SSL CRL Directory=;SSL SNI=true;SSL Min Protocol Version=TLSv1.2;SSL Max Protocol Version=;"
			"Min Protocol Version=3.0;Max Protocol Version=;SSL Negotiation=postgres;"
			"Kerberos Service Name=postgres;GSS Encryption Mode=prefer;GSS Delegation=false;"), parse("Host=db-a;Username=u").toString());
	}

	void testRoundTrips()
	{
		checkRoundTrip("Host=db-a,db-b,db-c;Port=5432;Target Session Attributes=read-write;Username=u");
		checkRoundTrip("Host=db-a,db-b;Port=5432,6432;Target Session Attributes=prefer-standby;Username=u;Password=pw-123");
		checkRoundTrip("postgresql://user:secret@db-a:5432,db-b:6432/app?target_session_attrs=standby");
		checkRoundTrip("host=db-a,db-b port=5432 target_session_attrs=read-write user=u");
		checkRoundTrip("Host=[::1]:5433,::2,/var/run/postgresql,/tmp/odd:dir,[/tmp/x:y]:7000,127.0.0.1;Port=6000;Username=u");
		checkRoundTrip("Host=db-a,db-a,db-b:7000;Username=u");
		checkRoundTrip("Host=db-a,db-b;Target Session Attributes=zone-standby;Username=u");
		checkRoundTrip("host=db-a target_session_attrs=Site.Zone_2 user=u");
	}

	void testSiteTargetSessionPolicy()
	{
		// A name that is not one of the seven standard targets names a site policy (resolved at creation).
		ConnectionSettings settings = parse("Host=db-a;Username=u;Target Session Attributes= zone-standby ");
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::Any);
		CPPUNIT_ASSERT_EQUAL(std::string("zone-standby"), settings.targetSessionPolicy);
		CPPUNIT_ASSERT(settings.toString().find(";Target Session Attributes=zone-standby;") != std::string::npos);
		CPPUNIT_ASSERT(!(settings == parse("Host=db-a;Username=u")));
		CPPUNIT_ASSERT(settings == parse("host=db-a user=u target_session_attrs=zone-standby"));
		// The last one wins: a standard name (or readonly) clears the site name.
		settings = parse("Host=db-a;Username=u;Target Session Attributes=zone-standby;target_session_attrs=PreferStandby");
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT(settings.targetSessionPolicy.empty());
		settings = parse("Host=db-a;Username=u;Target Session Attributes=zone-standby;readonly=false");
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT(settings.targetSessionPolicy.empty());
		settings.set("Target Session Attributes", "lease-zone");
		CPPUNIT_ASSERT_EQUAL(std::string("lease-zone"), settings.targetSessionPolicy);
		checkRoundTrip("", {{"PGHOST", "h1,h2"}, {"PGPORT", "1,2"}, {"PGUSER", "envuser"}, {"PGPASSWORD", "envpw"}, {"PGSSLMODE", "require"}});
	}

	void testEveryKeywordRoundTrips()
	{
		checkRoundTrip("Host=db-a,db-b;Port=6000;Database=app;Username=bob;Password=pw;Application Name=report;"
			"Target Session Attributes=read-only;Host Order=parallel;Timeout=3.25;Failover Timeout=30;Host Recheck Seconds=4;"
			"SSL Mode=verify-full;Pooling=false;Minimum Pool Size=2;Maximum Pool Size=20;Connection Idle Lifetime=60;"
			"Connection Lifetime=600.000001;Checkout Timeout=0;No Reset On Close=true;Eviction Policy=lru;Plugin Path=/opt/p,/opt/libQ.so;"
			"Passfile=/etc/pgpass;Root Certificate=/etc/root.crt;Command Timeout=9");
	}

	void testQuotedValuesRoundTrip()
	{
		const auto settings = parse("Host=db-a;Username=\"semi;colon\";Application Name=' padded ''quote'' \"double\" ';Database=x=y");
		CPPUNIT_ASSERT_EQUAL(std::string("semi;colon"), settings.username);
		CPPUNIT_ASSERT_EQUAL(std::string(" padded 'quote' \"double\" "), settings.applicationName);
		BLUETUSK_ASSERT_CONTAINS(settings.toString(), "Username=\"semi;colon\"");
		BLUETUSK_ASSERT_CONTAINS(settings.toString(), "Application Name=\" padded 'quote' \"\"double\"\" \"");
		checkRoundTrip("Host=db-a;Username=\"semi;colon\";Application Name=' padded ''quote'' \"double\" ';Database=x=y;Host Order=\"a;b\"");
	}

	void testPasswordMaskedInOtherValues()
	{
		// a malformed string left the password's text in the application name: printed masked there too
		const auto settings = parse("Host=db-a;Username=u;Password=hunter22;Application Name=x password=hunter22");
		CPPUNIT_ASSERT_EQUAL(std::string("x password=hunter22"), settings.applicationName);
		const std::string printed = settings.toString();
		BLUETUSK_ASSERT_CONTAINS(printed, "Application Name=x password=***;");
		CPPUNIT_ASSERT(!contains(printed, "hunter22"));
	}

	void testEquality()
	{
		const auto a = parse("Host=db-a:6432;Username=u");
		const auto b = parse("host=db-a port=6432 user=u");
		CPPUNIT_ASSERT(a == b);
		CPPUNIT_ASSERT(!(a != b));
		CPPUNIT_ASSERT(a != parse("Host=db-a:6432;Username=u;Password=x"));
		CPPUNIT_ASSERT(a != parse("Host=db-a:6432;Username=u;Command Timeout=1"));
		CPPUNIT_ASSERT(a != parse("Host=db-a:6433;Username=u"));
	}

	void testSetOverrides()
	{
		auto settings = parse("Host=db-a;Username=u;Target Session Attributes=primary");
		settings.set("target_session_attrs", "standby");
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::Standby);
		settings.set("readonly", "false");
		CPPUNIT_ASSERT(settings.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		settings.set("hostOrder", "parallel");
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), settings.hostOrder);
		settings.set("Load Balance Hosts", "true");
		CPPUNIT_ASSERT_EQUAL(std::string("random"), settings.hostOrder);
		settings.set("MaximumPoolSize", "7");
		CPPUNIT_ASSERT_EQUAL(7, settings.maxPoolSize);
		settings.set("Password", "new-secret");
		CPPUNIT_ASSERT_EQUAL(std::string("new-secret"), settings.password);
		CPPUNIT_ASSERT(!contains(settings.toString(), "new-secret"));
		settings.set(" Command Timeout ", "2.5");
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2500000), settings.commandTimeout.totalMicroseconds());
	}

	void testSetHostAndPort()
	{
		auto settings = parse("Host=db-a,db-b:7000;Port=5432;Username=u");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 db-b:7000", settings);
		settings.set("Port", "6000");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:7000", settings);
		settings.set("Port", "6001,6002");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6001 db-b:7000", settings);
		settings.set("host", "x,y");
		BLUETUSK_ASSERT_ENDPOINTS("x:6001 y:6002", settings);

		// endpoints filled in by a program survive other overrides; a new Port applies to their hosts
		ConnectionSettings direct;
		direct.username = "u";
		direct.endpoints = {BlueTuskHostEndpoint("h1", 7000), BlueTuskHostEndpoint("h2", 7001)};
		direct.set("Target Session Attributes", "primary");
		BLUETUSK_ASSERT_ENDPOINTS("h1:7000 h2:7001", direct);
		direct.set("Port", "6000");
		BLUETUSK_ASSERT_ENDPOINTS("h1:6000 h2:6000", direct);

		ConnectionSettings empty;
		empty.set("Port", "6000");
		CPPUNIT_ASSERT(empty.endpoints.empty());
		empty.set("Host", "db-z");
		BLUETUSK_ASSERT_ENDPOINTS("db-z:6000", empty);
	}

	void testSetUserMovesDefaultedDatabase()
	{
		auto settings = parse("Host=db-a;Username=alice");
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), settings.database);
		settings.set("Username", "bob");
		CPPUNIT_ASSERT_EQUAL(std::string("bob"), settings.database);
		settings.set("Database", "sales");
		settings.set("Username", "carol");
		CPPUNIT_ASSERT_EQUAL(std::string("sales"), settings.database);
		settings.set("Database", "");
		CPPUNIT_ASSERT_EQUAL(std::string("carol"), settings.database);

		auto explicitDatabase = parse("Host=db-a;Username=alice;Database=alice");
		explicitDatabase.set("Username", "bob");
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), explicitDatabase.database);

		auto assigned = parse("Host=db-a;Username=alice");
		assigned.database = "direct";
		assigned.set("Username", "bob");
		CPPUNIT_ASSERT_EQUAL(std::string("direct"), assigned.database);
	}

	void testValidate()
	{
		auto settings = parse("Host=db-a;Username=u;Minimum Pool Size=5;Maximum Pool Size=10");
		settings.set("Minimum Pool Size", "50"); // set() checks the value only
		CPPUNIT_ASSERT_EQUAL(50, settings.minPoolSize);
		try
		{
			settings.validate();
			CPPUNIT_FAIL("validate() accepted Minimum Pool Size 50 > Maximum Pool Size 10");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("Minimum Pool Size (50) is greater than Maximum Pool Size (10)"), exc.message());
		}
		settings.set("Maximum Pool Size", "60");
		settings.validate();
		CPPUNIT_ASSERT_THROW(ConnectionSettings().validate(), BlueTuskConnectionStringException);
	}

	void testHostList()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("db-a:5432,[::1]:6000,/tmp:5432"), parse("Host=db-a,[::1]:6000,/tmp;Username=u").hostList());
		CPPUNIT_ASSERT_EQUAL(std::string(), ConnectionSettings().hostList());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionRoundTripTest);
