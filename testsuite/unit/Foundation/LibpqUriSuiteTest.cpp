//
// LibpqUriSuiteTest.cpp
//
// libpq's own URI test suite, run against BlueTusk's parser: every case of PostgreSQL's
// src/interfaces/libpq/t/001_uri.pl (PostgreSQL 18; the older test/regress.in has the same cases), with
// libpq's expected result. libpq's test program prints only the values a URI sets, and "(local)" or
// "(inet)" for how the first host is reached; here a value the URI does not set must be BlueTusk's
// default for it (libpq's rules: the OS user, a database named like the user, the local socket
// directory, port 5432). A case libpq refuses must be refused with a BlueTuskConnectionStringException.
// Where BlueTusk deliberately differs from libpq, the case says so (doc/connection-strings.md, "URL form").
//

#include "ConnectionStringTestHelpers.h"
#include "BlueTusk/LocalUser.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


namespace {

struct UriCase
{
	const char* uri;
	const char* user;      // nullptr: not set by the URI (the OS user)
	const char* password;  // nullptr: none
	const char* dbname;    // nullptr: not set (the user name)
	const char* host;      // nullptr: not set (the default socket directory)
	int port;              // 0: not set (5432)
	const char* hostaddr;  // nullptr: none
	bool local;            // libpq's "(local)": the first host is a Unix-socket directory
	const char* error;     // not nullptr: libpq refuses the URI; a part BlueTusk's message must contain
};

// The cases of 001_uri.pl in its order. error "" means: refused, no particular wording asserted.
const UriCase CASES[] = {
	{"postgresql://uri-user:secret@host:12345/db", "uri-user", "secret", "db", "host", 12345, nullptr, false, nullptr},
	{"postgresql://uri-user@host:12345/db", "uri-user", nullptr, "db", "host", 12345, nullptr, false, nullptr},
	{"postgresql://uri-user@host/db", "uri-user", nullptr, "db", "host", 0, nullptr, false, nullptr},
	{"postgresql://host:12345/db", nullptr, nullptr, "db", "host", 12345, nullptr, false, nullptr},
	{"postgresql://host/db", nullptr, nullptr, "db", "host", 0, nullptr, false, nullptr},
	{"postgresql://uri-user@host:12345/", "uri-user", nullptr, nullptr, "host", 12345, nullptr, false, nullptr},
	{"postgresql://uri-user@host/", "uri-user", nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://uri-user@", "uri-user", nullptr, nullptr, nullptr, 0, nullptr, true, nullptr},
	{"postgresql://host:12345/", nullptr, nullptr, nullptr, "host", 12345, nullptr, false, nullptr},
	{"postgresql://host:12345", nullptr, nullptr, nullptr, "host", 12345, nullptr, false, nullptr},
	{"postgresql://host/", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://host", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://", nullptr, nullptr, nullptr, nullptr, 0, nullptr, true, nullptr},
	{"postgresql://?hostaddr=127.0.0.1", nullptr, nullptr, nullptr, "", 0, "127.0.0.1", false, nullptr},
	{"postgresql://example.com?hostaddr=63.1.2.4", nullptr, nullptr, nullptr, "example.com", 0, "63.1.2.4", false, nullptr},
	{"postgresql://%68ost/", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://host/db?user=uri-user", "uri-user", nullptr, "db", "host", 0, nullptr, false, nullptr},
	{"postgresql://host/db?user=uri-user&port=12345", "uri-user", nullptr, "db", "host", 12345, nullptr, false, nullptr},
	{"postgresql://host/db?u%73er=someotheruser&port=12345", "someotheruser", nullptr, "db", "host", 12345, nullptr, false, nullptr},
	{"postgresql://host/db?u%7aer=someotheruser&port=12345", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "uzer"},
	{"postgresql://host:12345?user=uri-user", "uri-user", nullptr, nullptr, "host", 12345, nullptr, false, nullptr},
	{"postgresql://host?user=uri-user", "uri-user", nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://host?  user = uri-user & port  = 12345 ", "uri-user", nullptr, nullptr, "host", 12345, nullptr, false, nullptr},
	{"postgresql://host?  user user  =  uri  & port = 12345 12 ", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgresql://host?  user  =  uri-user  & port = 12345 12 ", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgresql://host?", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://[::1]:12345/db", nullptr, nullptr, "db", "::1", 12345, nullptr, false, nullptr},
	{"postgresql://[::1]/db", nullptr, nullptr, "db", "::1", 0, nullptr, false, nullptr},
	{"postgresql://[2001:db8::1234]/", nullptr, nullptr, nullptr, "2001:db8::1234", 0, nullptr, false, nullptr},
	{"postgresql://[200z:db8::1234]/", nullptr, nullptr, nullptr, "200z:db8::1234", 0, nullptr, false, nullptr},
	{"postgresql://[::1]", nullptr, nullptr, nullptr, "::1", 0, nullptr, false, nullptr},
	{"postgres://", nullptr, nullptr, nullptr, nullptr, 0, nullptr, true, nullptr},
	{"postgres:///", nullptr, nullptr, nullptr, nullptr, 0, nullptr, true, nullptr},
	{"postgres:///db", nullptr, nullptr, "db", nullptr, 0, nullptr, true, nullptr},
	{"postgres://uri-user@/db", "uri-user", nullptr, "db", nullptr, 0, nullptr, true, nullptr},
	{"postgres://?host=/path/to/socket/dir", nullptr, nullptr, nullptr, "/path/to/socket/dir", 0, nullptr, true, nullptr},
	{"postgresql://host?uzer=", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "uzer"},
	{"postgre://", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgres://[::1", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgres://[]", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgres://[::1]z", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgresql://host?zzz", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "position"},
	{"postgresql://host?value1&value2", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "position"},
	{"postgresql://host?key=key=value", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, ""},
	{"postgres://host?dbname=%XXfoo", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "position"},
	{"postgresql://a%00b", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "%00"},
	{"postgresql://%zz", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "position"},
	{"postgresql://%1", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "position"},
	{"postgresql://%", nullptr, nullptr, nullptr, nullptr, 0, nullptr, false, "%"},
	{"postgres://@host", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgres://host:/", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgres://:12345/", nullptr, nullptr, nullptr, nullptr, 12345, nullptr, true, nullptr},
	{"postgres://otheruser@?host=/no/such/directory", "otheruser", nullptr, nullptr, "/no/such/directory", 0, nullptr, true, nullptr},
	{"postgres://otheruser@/?host=/no/such/directory", "otheruser", nullptr, nullptr, "/no/such/directory", 0, nullptr, true, nullptr},
	{"postgres://otheruser@:12345?host=/no/such/socket/path", "otheruser", nullptr, nullptr, "/no/such/socket/path", 12345, nullptr, true, nullptr},
	{"postgres://otheruser@:12345/db?host=/path/to/socket", "otheruser", nullptr, "db", "/path/to/socket", 12345, nullptr, true, nullptr},
	{"postgres://:12345/db?host=/path/to/socket", nullptr, nullptr, "db", "/path/to/socket", 12345, nullptr, true, nullptr},
	{"postgres://:12345?host=/path/to/socket", nullptr, nullptr, nullptr, "/path/to/socket", 12345, nullptr, true, nullptr},
	{"postgres://%2Fvar%2Flib%2Fpostgresql/dbname", nullptr, nullptr, "dbname", "/var/lib/postgresql", 0, nullptr, true, nullptr},
	{"postgresql://host?sslmode=disable", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://host?sslmode=prefer", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
	{"postgresql://host?sslmode=verify-full", nullptr, nullptr, nullptr, "host", 0, nullptr, false, nullptr},
};


std::string describe(const UriCase& c)
{
	return std::string("libpq 001_uri.pl case ") + c.uri;
}

} // namespace


class LibpqUriSuiteTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqUriSuiteTest);
	CPPUNIT_TEST(testAcceptedCases);
	CPPUNIT_TEST(testRefusedCases);
	CPPUNIT_TEST_SUITE_END();

public:
	void testAcceptedCases()
	{
		const std::string osUser = LocalUser::name();
		const std::string socketDirectory = ConnectionSettings::defaultSocketDirectory();
		int checked = 0;
		std::string failures;
		for (const UriCase& c: CASES)
		{
			if (c.error) continue;
			const std::string what = describe(c);
			try
			{
			ConnectionSettings s;
			try
			{
				s = parse(c.uri);
			}
			catch (Poco::Exception& exc)
			{
				CPPUNIT_FAIL(what + ": refused: " + exc.displayText());
			}
			const std::string user = c.user ? c.user : osUser;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": user", user, s.username);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": password", std::string(c.password ? c.password : ""), s.password);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": dbname", std::string(c.dbname ? c.dbname : user), s.database);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": one endpoint", std::size_t(1), s.endpoints.size());
			const BlueTuskHostEndpoint& endpoint = s.endpoints.front();
			const std::string host = c.host ? c.host : socketDirectory;
			if (c.hostaddr && *host.c_str() == '\0')
			{
				// libpq: hostaddr alone; BlueTusk's endpoint shows the address as its host
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": hostaddr", std::string(c.hostaddr), endpoint.address().empty() ? endpoint.host() : endpoint.address());
			}
			else
			{
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": host", host, endpoint.host());
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": hostaddr", std::string(c.hostaddr ? c.hostaddr : ""), endpoint.address());
			}
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": port", static_cast<int>(c.port ? c.port : 5432), static_cast<int>(endpoint.port()));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": (local) or (inet)", c.local, endpoint.isUnixSocket());
			++checked;
			}
			catch (CppUnit::Exception& exc)
			{
				failures += std::string("\n") + exc.what();
			}
		}
		CPPUNIT_ASSERT_MESSAGE(failures, failures.empty());
		CPPUNIT_ASSERT_EQUAL(46, checked);
	}

	void testRefusedCases()
	{
		int checked = 0;
		std::string failures;
		for (const UriCase& c: CASES)
		{
			if (!c.error) continue;
			try
			{
				const std::string message = parseError(c.uri);
				CPPUNIT_ASSERT_MESSAGE(describe(c) + ": \"" + message + "\" does not name \"" + c.error + "\"", contains(message, c.error));
				++checked;
			}
			catch (CppUnit::Exception& exc)
			{
				failures += std::string("\n") + exc.what();
			}
		}
		CPPUNIT_ASSERT_MESSAGE(failures, failures.empty());
		CPPUNIT_ASSERT_EQUAL(16, checked);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(LibpqUriSuiteTest);
