//
// ConnectionKeywordTest.cpp
//
// Every keyword of doc/connection-strings.md under every accepted spelling, the defaults, the 2016 proposal's
// names and the last-one-wins rule for duplicates.
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string base = "Host=db-a;Username=u;";


Poco::Timespan::TimeDiff micros(const Poco::Timespan& span)
{
	return span.totalMicroseconds();
}

} // namespace


class ConnectionKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionKeywordTest);
	CPPUNIT_TEST(testDefaults);
	CPPUNIT_TEST(testCanonicalNames);
	CPPUNIT_TEST(testLibpqNames);
	CPPUNIT_TEST(testNamesWithoutSpaces);
	CPPUNIT_TEST(testCaseInsensitive);
	CPPUNIT_TEST(testLoadBalanceHosts);
	CPPUNIT_TEST(testProposal2016Names);
	CPPUNIT_TEST(testTimeouts);
	CPPUNIT_TEST(testBooleans);
	CPPUNIT_TEST(testPluginPath);
	CPPUNIT_TEST(testDuplicateLastWins);
	CPPUNIT_TEST(testSynonymDuplicateLastWins);
	CPPUNIT_TEST(testDatabaseDefaultsToUser);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaults()
	{
		const auto s = parse("Host=db-a;Username=u");
		CPPUNIT_ASSERT_EQUAL(std::string("u"), s.database);
		CPPUNIT_ASSERT_EQUAL(std::string(), s.password);
		CPPUNIT_ASSERT_EQUAL(std::string(), s.applicationName);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::Any);
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), s.hostOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(15000000), micros(s.connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), micros(s.failoverTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(10000000), micros(s.hostRecheck));
		CPPUNIT_ASSERT(s.sslMode == SslMode::Prefer);
		CPPUNIT_ASSERT(s.pooling);
		CPPUNIT_ASSERT_EQUAL(0, s.minPoolSize);
		CPPUNIT_ASSERT_EQUAL(100, s.maxPoolSize);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(300000000), micros(s.connectionIdleLifetime));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), micros(s.connectionLifetime));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(15000000), micros(s.checkoutTimeout));
		CPPUNIT_ASSERT(!s.noResetOnClose);
		CPPUNIT_ASSERT_EQUAL(std::string("standard"), s.evictionPolicy);
		CPPUNIT_ASSERT(s.pluginPath.empty());
		CPPUNIT_ASSERT_EQUAL(std::string(), s.passfile);
		CPPUNIT_ASSERT_EQUAL(std::string(), s.rootCertificate);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), micros(s.commandTimeout));
	}

	void testCanonicalNames()
	{
		const auto s = parse("Host=db-a,db-b;Port=6000;Database=app;Username=bob;Password=pw;Application Name=report;"
			"Target Session Attributes=read-only;Host Order=parallel;Timeout=3;Failover Timeout=30;Host Recheck Seconds=4;"
			"SSL Mode=verify-full;Pooling=false;Minimum Pool Size=2;Maximum Pool Size=20;Connection Idle Lifetime=60;"
			"Connection Lifetime=600;Checkout Timeout=5;No Reset On Close=true;Eviction Policy=lru;Plugin Path=/opt/p;"
			"Passfile=/etc/pgpass;Root Certificate=/etc/root.crt;Command Timeout=9");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000", s);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), s.database);
		CPPUNIT_ASSERT_EQUAL(std::string("bob"), s.username);
		CPPUNIT_ASSERT_EQUAL(std::string("pw"), s.password);
		CPPUNIT_ASSERT_EQUAL(std::string("report"), s.applicationName);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::ReadOnly);
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), s.hostOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(3000000), micros(s.connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(30000000), micros(s.failoverTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(4000000), micros(s.hostRecheck));
		CPPUNIT_ASSERT(s.sslMode == SslMode::VerifyFull);
		CPPUNIT_ASSERT(!s.pooling);
		CPPUNIT_ASSERT_EQUAL(2, s.minPoolSize);
		CPPUNIT_ASSERT_EQUAL(20, s.maxPoolSize);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(60000000), micros(s.connectionIdleLifetime));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(600000000), micros(s.connectionLifetime));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(5000000), micros(s.checkoutTimeout));
		CPPUNIT_ASSERT(s.noResetOnClose);
		CPPUNIT_ASSERT_EQUAL(std::string("lru"), s.evictionPolicy);
		CPPUNIT_ASSERT(s.pluginPath == std::vector<std::string>{"/opt/p"});
		CPPUNIT_ASSERT_EQUAL(std::string("/etc/pgpass"), s.passfile);
		CPPUNIT_ASSERT_EQUAL(std::string("/etc/root.crt"), s.rootCertificate);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(9000000), micros(s.commandTimeout));
	}

	void testLibpqNames()
	{
		const auto s = parse("host=db-a port=6000 dbname=app user=bob password=pw application_name=report "
			"target_session_attrs=primary load_balance_hosts=random connect_timeout=3 failover_timeout=30 "
			"sslmode=disable passfile=/etc/pgpass sslrootcert=/etc/root.crt");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000", s);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), s.database);
		CPPUNIT_ASSERT_EQUAL(std::string("bob"), s.username);
		CPPUNIT_ASSERT_EQUAL(std::string("pw"), s.password);
		CPPUNIT_ASSERT_EQUAL(std::string("report"), s.applicationName);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::Primary);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), s.hostOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(3000000), micros(s.connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(30000000), micros(s.failoverTimeout));
		CPPUNIT_ASSERT(s.sslMode == SslMode::Disable);
		CPPUNIT_ASSERT_EQUAL(std::string("/etc/pgpass"), s.passfile);
		CPPUNIT_ASSERT_EQUAL(std::string("/etc/root.crt"), s.rootCertificate);
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), parse("host=a user=u hostorder=parallel").hostOrder);
	}

	void testNamesWithoutSpaces()
	{
		const auto s = parse("Host=db-a;Username=u;ApplicationName=x;TargetSessionAttributes=PreferStandby;HostOrder=random;"
			"FailoverTimeout=1;HostRecheckSeconds=2;SslMode=VerifyCA;MinimumPoolSize=1;MaximumPoolSize=3;"
			"ConnectionIdleLifetime=4;ConnectionLifetime=5;CheckoutTimeout=6;NoResetOnClose=yes;EvictionPolicy=e;"
			"PluginPath=/p;RootCertificate=/r;CommandTimeout=7;LoadBalanceHosts=false");
		CPPUNIT_ASSERT_EQUAL(std::string("x"), s.applicationName);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), s.hostOrder); // LoadBalanceHosts=false came last
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000000), micros(s.failoverTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2000000), micros(s.hostRecheck));
		CPPUNIT_ASSERT(s.sslMode == SslMode::VerifyCa);
		CPPUNIT_ASSERT_EQUAL(1, s.minPoolSize);
		CPPUNIT_ASSERT_EQUAL(3, s.maxPoolSize);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(4000000), micros(s.connectionIdleLifetime));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(5000000), micros(s.connectionLifetime));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(6000000), micros(s.checkoutTimeout));
		CPPUNIT_ASSERT(s.noResetOnClose);
		CPPUNIT_ASSERT_EQUAL(std::string("e"), s.evictionPolicy);
		CPPUNIT_ASSERT(s.pluginPath == std::vector<std::string>{"/p"});
		CPPUNIT_ASSERT_EQUAL(std::string("/r"), s.rootCertificate);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(7000000), micros(s.commandTimeout));
	}

	void testCaseInsensitive()
	{
		const auto s = parse("HOST=db-a;uSeRnAmE=u;target session attributes=STANDBY;ssl mode=REQUIRE;DBNAME=d");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", s);
		CPPUNIT_ASSERT_EQUAL(std::string("u"), s.username);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT(s.sslMode == SslMode::Require);
		CPPUNIT_ASSERT_EQUAL(std::string("d"), s.database);
	}

	void testLoadBalanceHosts()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("random"), parse(base + "Load Balance Hosts=true").hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), parse(base + "Load Balance Hosts=Random").hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), parse(base + "Load Balance Hosts=false").hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), parse(base + "load_balance_hosts=disable").hostOrder);
		// the same setting as Host Order: the later one wins
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), parse(base + "Load Balance Hosts=true;Host Order=parallel").hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), parse(base + "Host Order=parallel;Load Balance Hosts=true").hostOrder);
		CPPUNIT_ASSERT_EQUAL(std::string("my-site-order"), parse(base + "Host Order=my-site-order").hostOrder);
	}

	void testProposal2016Names()
	{
		CPPUNIT_ASSERT(parse(base + "readonly=true").targetSessionAttributes == TargetSessionAttributes::Any);
		CPPUNIT_ASSERT(parse(base + "readonly=false").targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT(parse(base + "ReadOnly=FALSE").targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT(parse(base + "readonly=false;Target Session Attributes=standby").targetSessionAttributes == TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT(parse(base + "Target Session Attributes=standby;readonly=false").targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), parse(base + "hostorder=random").hostOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(12500000), micros(parse(base + "failover_timeout=12.5").failoverTimeout));
		const auto url = parse("postgresql://u@a,b/db?readonly=false&hostorder=random&failover_timeout=60");
		CPPUNIT_ASSERT(url.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), url.hostOrder);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(60000000), micros(url.failoverTimeout));
	}

	void testTimeouts()
	{
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), micros(parse(base + "Timeout=0").connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1500000), micros(parse(base + "Timeout=1.5").connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(250000), micros(parse(base + "Timeout=.25").connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2000000), micros(parse(base + "Timeout=2.").connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1), micros(parse(base + "Timeout=0.0000019").connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2147483647) * 1000000, micros(parse(base + "Timeout=2147483647").connectTimeout));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(7000000), micros(parse(base + "Timeout= 7 ").connectTimeout));
	}

	void testBooleans()
	{
		for (const std::string yes: {"true", "TRUE", "yes", "on", "1", " True "})
			CPPUNIT_ASSERT(parse(base + "No Reset On Close=" + yes).noResetOnClose);
		for (const std::string no: {"false", "False", "no", "off", "0"})
			CPPUNIT_ASSERT(!parse(base + "Pooling=" + no).pooling);
	}

	void testPluginPath()
	{
		const auto s = parse(base + "Plugin Path=/opt/a, /opt/libB.so ,,/opt/c");
		const std::vector<std::string> expected = {"/opt/a", "/opt/libB.so", "/opt/c"};
		CPPUNIT_ASSERT(s.pluginPath == expected);
	}

	void testDuplicateLastWins()
	{
		const auto s = parse("Host=db-a;Username=u;Port=1;Port=2;Timeout=5;Timeout=6;Password=first;Password=second");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:2", s);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(6000000), micros(s.connectTimeout));
		CPPUNIT_ASSERT_EQUAL(std::string("second"), s.password);
		const auto libpq = parse("host=db-a host=db-b user=u");
		BLUETUSK_ASSERT_ENDPOINTS("db-b:5432", libpq);
	}

	void testSynonymDuplicateLastWins()
	{
		const auto s = parse("Host=db-a;host=db-b;Username=u;user=v;dbname=x;Database=y;sslmode=require;SSL Mode=disable");
		BLUETUSK_ASSERT_ENDPOINTS("db-b:5432", s);
		CPPUNIT_ASSERT_EQUAL(std::string("v"), s.username);
		CPPUNIT_ASSERT_EQUAL(std::string("y"), s.database);
		CPPUNIT_ASSERT(s.sslMode == SslMode::Disable);
	}

	void testDatabaseDefaultsToUser()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), parse("Host=db-a;Username=alice").database);
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), parse("Host=db-a;Username=alice;Database=").database);
		CPPUNIT_ASSERT_EQUAL(std::string("sales"), parse("Host=db-a;Username=alice;Database=sales").database);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionKeywordTest);
