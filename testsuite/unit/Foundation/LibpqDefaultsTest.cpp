//
// LibpqDefaultsTest.cpp
//
// libpq's URI and default rules: no host means the default Unix-socket directory, no user the
// operating-system user, an empty host before ":port" and an empty port mean the defaults; unknown URL
// query keywords stay errors that name libpq's spelling of the nearest keyword.
//

#include "ConnectionStringTestHelpers.h"
#include "BlueTusk/LocalUser.h"
#include "Poco/File.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class LibpqDefaultsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqDefaultsTest);
	CPPUNIT_TEST(testDefaultSocketDirectoryChoice);
	CPPUNIT_TEST(testNoHostMeansTheLocalSocket);
	CPPUNIT_TEST(testNoUserMeansTheOperatingSystemUser);
	CPPUNIT_TEST(testUrlForms);
	CPPUNIT_TEST(testEmptyPortMeansTheDefault);
	CPPUNIT_TEST(testUnknownUrlKeywordNamesLibpqSpelling);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaultSocketDirectoryChoice()
	{
		Poco::TemporaryFile first;
		Poco::TemporaryFile second;
		second.createDirectories();
		// the first candidate that exists as a directory; a missing first one falls through to the next
		CPPUNIT_ASSERT_EQUAL(second.path(), ConnectionSettings::defaultSocketDirectory({first.path(), second.path()}));
		first.createDirectories();
		CPPUNIT_ASSERT_EQUAL(first.path(), ConnectionSettings::defaultSocketDirectory({first.path(), second.path()}));
		// none exists: the first (Debian's), so that the message names the directory libpq would use
		CPPUNIT_ASSERT_EQUAL(std::string("/nonexistent/a"), ConnectionSettings::defaultSocketDirectory({"/nonexistent/a", "/nonexistent/b"}));
		// a regular file is not a socket directory
		Poco::TemporaryFile plain;
		plain.createFile();
		CPPUNIT_ASSERT_EQUAL(second.path(), ConnectionSettings::defaultSocketDirectory({plain.path(), second.path()}));
		// the rule used by parse(): Debian's /var/run/postgresql, then /tmp
		const std::string expected = Poco::File("/var/run/postgresql").exists() && Poco::File("/var/run/postgresql").isDirectory()
			? "/var/run/postgresql" : "/tmp";
		CPPUNIT_ASSERT_EQUAL(expected, ConnectionSettings::defaultSocketDirectory());
	}

	void testNoHostMeansTheLocalSocket()
	{
		const std::string directory = ConnectionSettings::defaultSocketDirectory();
		const auto s = parse("user=u port=5433");
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":5433", s);
		CPPUNIT_ASSERT(s.endpoints[0].isUnixSocket());
		CPPUNIT_ASSERT_EQUAL(directory + "/.s.PGSQL.5433", s.endpoints[0].unixSocketPath());
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":5432", parse("Username=u"));
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":5432", parse(""));
		// PGHOST still comes first
		BLUETUSK_ASSERT_ENDPOINTS("envhost:5432", parse("user=u", {{"PGHOST", "envhost"}}));
		// an explicitly empty Host stays an error (BlueTusk's documented choice)
		CPPUNIT_ASSERT_EQUAL(std::string("Host: the host list is empty; expected one or more hosts separated by ','"), parseError("Host=;Username=u"));
		// the printed form names the directory and parses back to it
		CPPUNIT_ASSERT(parse(s.toString()) == s);
	}

	void testNoUserMeansTheOperatingSystemUser()
	{
		const std::string user = LocalUser::name();
		CPPUNIT_ASSERT(!user.empty());
		CPPUNIT_ASSERT_EQUAL(user, parse("host=db-a").username);
		CPPUNIT_ASSERT_EQUAL(user, parse("host=db-a").database);
		CPPUNIT_ASSERT_EQUAL(user, parse("Host=db-a;Username=").username);
		CPPUNIT_ASSERT_EQUAL(std::string("envuser"), parse("host=db-a", {{"PGUSER", "envuser"}}).username);
	}

	void testUrlForms()
	{
		const std::string directory = ConnectionSettings::defaultSocketDirectory();
		const std::string user = LocalUser::name();
		const auto bare = parse("postgresql://");
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":5432", bare);
		CPPUNIT_ASSERT_EQUAL(user, bare.username);
		CPPUNIT_ASSERT_EQUAL(user, bare.database);
		const auto db = parse("postgres:///db");
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":5432", db);
		CPPUNIT_ASSERT_EQUAL(std::string("db"), db.database);
		const auto userOnly = parse("postgresql://app@");
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":5432", userOnly);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), userOnly.username);
		// an empty host before :port is the default host with that port; ?host= replaces the host, keeps the port
		const auto socketPath = parse("postgres://:12345/db?host=/path");
		BLUETUSK_ASSERT_ENDPOINTS("/path:12345", socketPath);
		CPPUNIT_ASSERT_EQUAL(std::string("/path/.s.PGSQL.12345"), socketPath.endpoints[0].unixSocketPath());
		CPPUNIT_ASSERT_EQUAL(std::string("db"), socketPath.database);
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":12345", parse("postgres://:12345/db"));
		BLUETUSK_ASSERT_ENDPOINTS(directory + ":12345", parse("postgres://u@:12345"));
		// ... and in a longer list, the default directory at that place
		BLUETUSK_ASSERT_ENDPOINTS("db-a:1 " + directory + ":2 db-b:5432", parse("postgresql://u@db-a:1,:2,db-b/x"));
		BLUETUSK_ASSERT_ENDPOINTS("db-a:5432 " + directory + ":5432 db-b:5432", parse("postgresql://u@db-a,,db-b/x"));
		// the same strings in the other forms
		BLUETUSK_ASSERT_ENDPOINTS("/path:12345", parse("port=12345 dbname=db host=/path"));
	}

	void testEmptyPortMeansTheDefault()
	{
		BLUETUSK_ASSERT_ENDPOINTS("host:5432", parse("postgres://u@host:/"));
		BLUETUSK_ASSERT_ENDPOINTS("host:6000", parse("postgres://u@host:/?port=6000"));
		BLUETUSK_ASSERT_ENDPOINTS("[::1]:5432 db-b:7000", parse("postgres://u@[::1]:,db-b:7000/db"));
		BLUETUSK_ASSERT_ENDPOINTS(ConnectionSettings::defaultSocketDirectory() + ":5432", parse("postgres://u@:/db"));
	}

	void testUnknownUrlKeywordNamesLibpqSpelling()
	{
		const std::string tail = " in libpq (doc/connection-strings.md lists the accepted keywords)";
		CPPUNIT_ASSERT_EQUAL("unknown keyword \"ssl_mode\" in the URL query at position 22; the nearest known keyword is spelled \"sslmode\"" + tail,
			parseError("postgresql://u@db-a/?ssl_mode=require"));
		CPPUNIT_ASSERT_EQUAL("unknown keyword \"target_session_attributes\" in the URL query at position 22; the nearest known keyword is"
			" spelled \"target_session_attrs\"" + tail, parseError("postgresql://u@db-a/?target_session_attributes=any"));
		CPPUNIT_ASSERT_EQUAL("unknown keyword \"connecttimeout\" in the URL query at position 22; the nearest known keyword is"
			" spelled \"connect_timeout\"" + tail, parseError("postgresql://u@db-a/?connecttimeout=3"));
		// keywords without a libpq name are named as BlueTusk spells them
		BLUETUSK_ASSERT_CONTAINS(parseError("postgresql://u@db-a/?MaximumPoolSise=3"),
			"the nearest known keyword is \"Maximum Pool Size\" (BlueTusk's own; libpq has no such keyword)");
		// the other forms keep their message
		CPPUNIT_ASSERT_EQUAL(std::string("unknown keyword \"ssl_mode\" at position 18 (doc/connection-strings.md lists the accepted keywords)"),
			parseError("host=db-a user=u ssl_mode=require"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LibpqDefaultsTest);
