//
// ConnectionEnvironmentTest.cpp
//
// The libpq environment fallbacks (PGHOST, PGPORT, ...): used only for keywords not given, before defaults.
//

#include "ConnectionStringTestHelpers.h"
#include "BlueTusk/LocalUser.h"
#include "Poco/Environment.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class ConnectionEnvironmentTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionEnvironmentTest);
	CPPUNIT_TEST(testEveryVariable);
	CPPUNIT_TEST(testGivenKeywordsWin);
	CPPUNIT_TEST(testGivenEmptyValueBlocksFallback);
	CPPUNIT_TEST(testSharedSettings);
	CPPUNIT_TEST(testEmptyVariablesIgnored);
	CPPUNIT_TEST(testHostAndPortFromEnvironment);
	CPPUNIT_TEST(testDatabaseFromEnvironmentUser);
	CPPUNIT_TEST(testInvalidVariableNamed);
	CPPUNIT_TEST(testRequiredAfterFallback);
	CPPUNIT_TEST(testProcessEnvironment);
	CPPUNIT_TEST_SUITE_END();

public:
	static Environment everything()
	{
		return {
			{"PGHOST", "env-a,env-b"}, {"PGPORT", "7001,7002"}, {"PGDATABASE", "envdb"}, {"PGUSER", "envuser"},
			{"PGPASSWORD", "env-secret-4711"}, {"PGPASSFILE", "/env/pgpass"}, {"PGAPPNAME", "envapp"},
			{"PGCONNECT_TIMEOUT", "4.5"}, {"PGSSLMODE", "verify-ca"}, {"PGSSLROOTCERT", "/env/root.crt"},
			{"PGTARGETSESSIONATTRS", "prefer-standby"}, {"PGLOADBALANCEHOSTS", "random"}};
	}

	void testEveryVariable()
	{
		const auto s = parse("", everything());
		BLUETUSK_ASSERT_ENDPOINTS("env-a:7001 env-b:7002", s);
		CPPUNIT_ASSERT_EQUAL(std::string("envdb"), s.database);
		CPPUNIT_ASSERT_EQUAL(std::string("envuser"), s.username);
		CPPUNIT_ASSERT_EQUAL(std::string("env-secret-4711"), s.password);
		CPPUNIT_ASSERT_EQUAL(std::string("/env/pgpass"), s.passfile);
		CPPUNIT_ASSERT_EQUAL(std::string("envapp"), s.applicationName);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(4500000), s.connectTimeout.totalMicroseconds());
		CPPUNIT_ASSERT(s.sslMode == SslMode::VerifyCa);
		CPPUNIT_ASSERT_EQUAL(std::string("/env/root.crt"), s.rootCertificate);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(std::string("random"), s.hostOrder);
	}

	void testGivenKeywordsWin()
	{
		const auto s = parse("Host=db-a;Port=5432;Database=d;Username=u;Password=p;Passfile=/f;Application Name=a;Timeout=1;"
			"SSL Mode=disable;Root Certificate=/c;Target Session Attributes=primary;Host Order=parallel", everything());
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", s);
		CPPUNIT_ASSERT_EQUAL(std::string("d"), s.database);
		CPPUNIT_ASSERT_EQUAL(std::string("u"), s.username);
		CPPUNIT_ASSERT_EQUAL(std::string("p"), s.password);
		CPPUNIT_ASSERT_EQUAL(std::string("/f"), s.passfile);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), s.applicationName);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000000), s.connectTimeout.totalMicroseconds());
		CPPUNIT_ASSERT(s.sslMode == SslMode::Disable);
		CPPUNIT_ASSERT_EQUAL(std::string("/c"), s.rootCertificate);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::Primary);
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), s.hostOrder);
	}

	void testGivenEmptyValueBlocksFallback()
	{
		const auto s = parse("Host=db-a;Port=5432;Username=u;Application Name=;Password=;Passfile=", everything());
		CPPUNIT_ASSERT_EQUAL(std::string(), s.applicationName);
		CPPUNIT_ASSERT_EQUAL(std::string(), s.password);
		CPPUNIT_ASSERT_EQUAL(std::string(), s.passfile);
	}

	void testSharedSettings()
	{
		// Host Order given: PGLOADBALANCEHOSTS is not consulted; readonly given: PGTARGETSESSIONATTRS is not
		const auto s = parse("Host=db-a;Port=5432;Username=u;Host Order=sequential;readonly=false", everything());
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), s.hostOrder);
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		const auto lbh = parse("Host=db-a;Username=u", {{"PGLOADBALANCEHOSTS", "disable"}});
		CPPUNIT_ASSERT_EQUAL(std::string("sequential"), lbh.hostOrder);
	}

	void testEmptyVariablesIgnored()
	{
		const auto s = parse("Host=db-a;Username=u", {{"PGPORT", ""}, {"PGSSLMODE", ""}, {"PGUSER", ""}});
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432", s);
		CPPUNIT_ASSERT(s.sslMode == SslMode::Prefer);
	}

	void testHostAndPortFromEnvironment()
	{
		// Port given, Host from the environment: the rules apply to the combination
		BLUETUSK_ASSERT_ENDPOINTS("env-a:6000 env-b:6000", parse("Port=6000;Username=u", {{"PGHOST", "env-a,env-b"}}));
		BLUETUSK_ASSERT_ENDPOINTS("db-a:7001 db-b:7002", parse("Host=db-a,db-b;Username=u", {{"PGPORT", "7001,7002"}}));
		BLUETUSK_ASSERT_ENDPOINTS("/run/pg:7001", parse("Username=u", {{"PGHOST", "/run/pg"}, {"PGPORT", "7001"}}));
		const std::string message = parseError("Host=a,b,c;Username=u", {{"PGPORT", "1,2"}});
		CPPUNIT_ASSERT_EQUAL(std::string("Port: 3 hosts but 2 ports; a Port list of more than one port needs one port per host (or give a single shared Port)"), message);
	}

	void testDatabaseFromEnvironmentUser()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("envuser"), parse("Host=db-a", {{"PGUSER", "envuser"}}).database);
		CPPUNIT_ASSERT_EQUAL(std::string("given"), parse("Host=db-a;Username=given", {{"PGUSER", "envuser"}}).database);
	}

	void testInvalidVariableNamed()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("PGPORT (environment): \"x\" is not a port number; expected 1..65535"),
			parseError("Host=db-a;Username=u", {{"PGPORT", "x"}}));
		CPPUNIT_ASSERT_EQUAL(std::string("PGCONNECT_TIMEOUT (environment): \"-3\" is negative; a number of seconds must be 0 or more"),
			parseError("Host=db-a;Username=u", {{"PGCONNECT_TIMEOUT", "-3"}}));
		const std::string message = parseError("Host=db-a;Username=u", {{"PGSSLMODE", "sometimes"}, {"PGPASSWORD", "env-secret-4711"}});
		CPPUNIT_ASSERT_EQUAL(std::string("PGSSLMODE (environment): \"sometimes\" is not a valid value; accepted values: disable, allow, prefer, require, verify-ca, verify-full"), message);
	}

	void testRequiredAfterFallback()
	{
		// libpq's defaults when neither the string nor the environment gives them: the local
		// socket directory and the operating-system user (see LibpqDefaultsTest)
		BLUETUSK_ASSERT_ENDPOINTS(ConnectionSettings::defaultSocketDirectory() + ":5432", parse("Username=u"));
		CPPUNIT_ASSERT_EQUAL(LocalUser::name(), parse("Host=db-a").username);
		CPPUNIT_ASSERT(!LocalUser::name().empty());
		BLUETUSK_ASSERT_ENDPOINTS("h:5432", parse("", {{"PGHOST", "h"}, {"PGUSER", "u"}}));
	}

	void testProcessEnvironment()
	{
		// parse() without an environment reads the process environment (an empty variable counts as unset)
		const std::string before = Poco::Environment::get("PGAPPNAME", "");
		Poco::Environment::set("PGAPPNAME", "from-process");
		const auto s = ConnectionSettings::parse("Host=db-a;Username=u");
		Poco::Environment::set("PGAPPNAME", before);
		CPPUNIT_ASSERT_EQUAL(std::string("from-process"), s.applicationName);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionEnvironmentTest);
