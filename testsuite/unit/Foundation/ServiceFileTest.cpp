//
// ServiceFileTest.cpp
//
// libpq's connection service file (PostgreSQL docs 34.17): service / PGSERVICE, servicefile /
// PGSERVICEFILE, PGSYSCONFDIR and ~/.pg_service.conf, the format, the precedence (the connection string
// over the service over the environment), multi-host services and the errors.
//

#include "ConnectionStringTestHelpers.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/TemporaryFile.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

class Directory
	/// A temporary directory, removed with its files at the end of the test.
{
public:
	Directory()
	{
		_directory.createDirectories();
	}

	std::string write(const std::string& name, const std::string& text) const
	{
		const std::string path = _directory.path() + "/" + name;
		Poco::FileOutputStream out(path);
		out << text;
		out.close();
		return path;
	}

	std::string path() const
	{
		return _directory.path();
	}

private:
	Poco::TemporaryFile _directory;
};

const char* const userFile =
	"# BlueTusk test services\n"
	"[app]\n"
	"  host=db-a,db-b\n"
	"port = 6000\n"
	"dbname=sales\n"
	"target_session_attrs=read-write\n"
	"options=-c search_path=app\n"
	"password=svc-secret-77\n"
	"dbname=ignored-second-line\n"
	"\n"
	"[other]\n"
	"host=other-host\n"
	"bogus line without equals\n";

const char* const systemFile =
	"[system-only]\n"
	"host=sys-host\n"
	"user=sys-user\n"
	"[app]\n"
	"host=never-read\n";

} // namespace


class ServiceFileTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ServiceFileTest);
	CPPUNIT_TEST(testServiceInThreeForms);
	CPPUNIT_TEST(testPrecedence);
	CPPUNIT_TEST(testWhereTheFilesAre);
	CPPUNIT_TEST(testErrors);
	CPPUNIT_TEST(testSecretsOfTheServiceAreRedacted);
	CPPUNIT_TEST(testRoundTrip);
	CPPUNIT_TEST_SUITE_END();

public:
	void testServiceInThreeForms()
	{
		Directory directory;
		const Environment environment = {{"PGSERVICEFILE", directory.write("services.conf", userFile)}, {"PGSYSCONFDIR", directory.path()}};
		const auto s = parse("service=app user=u", environment);
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000", s); // a multi-host service
		CPPUNIT_ASSERT_EQUAL(std::string("sales"), s.database); // the first line of a keyword counts, as in libpq
		CPPUNIT_ASSERT(s.targetSessionAttributes == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("-c search_path=app"), s.options);
		CPPUNIT_ASSERT_EQUAL(std::string("svc-secret-77"), s.password);
		CPPUNIT_ASSERT(parse("Service=app;Username=u", environment) == s);
		CPPUNIT_ASSERT(parse("postgresql://u@?service=app", environment) == s);
		// PGSERVICE names the service when the string does not
		Environment withVariable = environment;
		withVariable["PGSERVICE"] = "app";
		CPPUNIT_ASSERT(parse("user=u", withVariable) == s);
		// servicefile (PostgreSQL 18's keyword) instead of PGSERVICEFILE
		const std::string other = directory.write("other.conf", "[other]\nhost=other-host\n");
		const auto file = parse("service=other servicefile=" + other + " user=u", {{"PGSYSCONFDIR", directory.path()}});
		BLUETUSK_ASSERT_ENDPOINTS("other-host:5432", file);
		// an empty service is no service, and keeps PGSERVICE out
		CPPUNIT_ASSERT(parse("host=h user=u service=", withVariable) == parse("host=h user=u"));
	}

	void testPrecedence()
	{
		Directory directory;
		const Environment environment = {{"PGSERVICEFILE", directory.write("services.conf", userFile)}, {"PGSYSCONFDIR", directory.path()},
			{"PGHOST", "env-host"}, {"PGDATABASE", "envdb"}, {"PGAPPNAME", "env-app"}};
		// a keyword written in the string wins over the service, the service over the environment
		const auto s = parse("service=app user=u dbname=mine", environment);
		CPPUNIT_ASSERT_EQUAL(std::string("mine"), s.database);
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000", s);
		CPPUNIT_ASSERT_EQUAL(std::string("env-app"), s.applicationName); // not in the service: the environment
		BLUETUSK_ASSERT_ENDPOINTS("mine:7000", parse("host=mine port=7000 service=app user=u", environment));
		// also when the string names the service last
		BLUETUSK_ASSERT_ENDPOINTS("mine:7000", parse("Username=u;Host=mine;Port=7000;Service=app", environment));
		// names of one keyword are one keyword: Target Session Attributes given, the service's is not used
		CPPUNIT_ASSERT(parse("service=app user=u readonly=true", environment).targetSessionAttributes == TargetSessionAttributes::Any);
	}

	void testWhereTheFilesAre()
	{
		Directory home;
		Directory system;
		home.write(".pg_service.conf", userFile);
		system.write("pg_service.conf", systemFile);
		const Environment environment = {{"HOME", home.path()}, {"PGSYSCONFDIR", system.path()}};
		// ~/.pg_service.conf first; the system file only for a service the user's file lacks
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000", parse("service=app user=u", environment));
		const auto fromSystem = parse("service=system-only", environment);
		BLUETUSK_ASSERT_ENDPOINTS("sys-host:5432", fromSystem);
		CPPUNIT_ASSERT_EQUAL(std::string("sys-user"), fromSystem.username);
		// PGSERVICEFILE replaces ~/.pg_service.conf, and must exist (libpq: "service file ... not found")
		CPPUNIT_ASSERT_EQUAL("Service: service file \"" + home.path() + "/none.conf\" not found (named by servicefile or PGSERVICEFILE)",
			parseError("service=app user=u", {{"PGSERVICEFILE", home.path() + "/none.conf"}, {"PGSYSCONFDIR", system.path()}}));
		// a PGSERVICEFILE that lacks the service: the system file is read next
		const std::string otherOnly = home.write("other-only.conf", "[other]\nhost=other-host\n");
		BLUETUSK_ASSERT_ENDPOINTS("never-read:5432", parse("service=app user=u", {{"PGSERVICEFILE", otherOnly}, {"PGSYSCONFDIR", system.path()}}));
	}

	void testErrors()
	{
		Directory directory;
		const std::string file = directory.write("services.conf", userFile);
		const Environment environment = {{"PGSERVICEFILE", file}, {"PGSYSCONFDIR", directory.path() + "/etc"}};
		CPPUNIT_ASSERT_EQUAL("Service: definition of service \"missing\" not found (looked in " + file + ", " + directory.path() +
			"/etc/pg_service.conf (does not exist))", parseError("service=missing user=u", environment));
		CPPUNIT_ASSERT_EQUAL(std::string("service file \"" + file + "\", line 13: syntax error: expected keyword=value"),
			parseError("service=other user=u", environment));
		const std::string nested = directory.write("nested.conf", "[a]\nhost=x\nservice=b\n");
		CPPUNIT_ASSERT_EQUAL(std::string("service file \"" + nested + "\", line 3: nested service specifications are not supported"),
			parseError("service=a user=u", {{"PGSERVICEFILE", nested}, {"PGSYSCONFDIR", directory.path()}}));
		const std::string unknown = directory.write("unknown.conf", "[a]\nhots=x\n");
		CPPUNIT_ASSERT_EQUAL("unknown keyword \"hots\" in service file \"" + unknown + "\", line 2 (doc/connection-strings.md lists the accepted keywords)",
			parseError("service=a user=u", {{"PGSERVICEFILE", unknown}, {"PGSYSCONFDIR", directory.path()}}));
		const std::string badValue = directory.write("bad.conf", "[a]\nport=x\n");
		CPPUNIT_ASSERT_EQUAL("port (service file \"" + badValue + "\", line 2): \"x\" is not a port number; expected 1..65535",
			parseError("service=a user=u", {{"PGSERVICEFILE", badValue}, {"PGSYSCONFDIR", directory.path()}}));
		BLUETUSK_ASSERT_CONTAINS(parseError("user=u", {{"PGSERVICE", "missing"}, {"PGSERVICEFILE", file}, {"PGSYSCONFDIR", directory.path()}}),
			"definition of service \"missing\" not found");
	}

	void testSecretsOfTheServiceAreRedacted()
	{
		Directory directory;
		const std::string file = directory.write("s.conf", "[a]\npassword=svc-pass-4242\nhost=a:svc-pass-4242\n");
		const std::string message = parseError("service=a user=u", {{"PGSERVICEFILE", file}, {"PGSYSCONFDIR", directory.path()}});
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, "svc-pass-4242"));
		BLUETUSK_ASSERT_CONTAINS(message, "is not a port number");
		const auto s = parse("service=a user=u host=db", {{"PGSERVICEFILE", file}, {"PGSYSCONFDIR", directory.path()}});
		CPPUNIT_ASSERT(!contains(s.toString(), "svc-pass-4242"));
		CPPUNIT_ASSERT_EQUAL(std::string("a *** b"), s.redactor().redact("a svc-pass-4242 b"));
	}

	void testRoundTrip()
	{
		Directory directory;
		const Environment environment = {{"PGSERVICEFILE", directory.write("services.conf", userFile)}, {"PGSYSCONFDIR", directory.path()}};
		const auto s = parse("service=app user=u", environment);
		const std::string printed = s.toString();
		BLUETUSK_ASSERT_CONTAINS(printed, "Service=;");
		BLUETUSK_ASSERT_CONTAINS(printed, "Password=***;");
		Environment withVariable = environment;
		withVariable["PGSERVICE"] = "other";
		for (const Environment& reparse: {Environment(), withVariable})
		{
			ConnectionSettings again = parse(printed, reparse);
			again.password = s.password;
			CPPUNIT_ASSERT_MESSAGE(printed, again == s);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ServiceFileTest);
