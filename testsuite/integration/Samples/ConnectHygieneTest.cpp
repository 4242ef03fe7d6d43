//
// ConnectHygieneTest.cpp
//
// No secret and no unsafe byte (doc/reliability.md) in bluetusk-connect's output against the local cluster: a marker password placed
// where malformed input puts it never shows in the JSON or the text output (PostgreSQL echoes the role
// name in its error), the messages still name the endpoint; the server's control characters reach the
// terminal escaped, and JSON lines stay valid UTF-8 whatever bytes the input holds.
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/JSON/Array.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk::Test;

namespace {

const std::string MARKER = "Qm4x-Hy7k";


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


std::string plainCluster(const std::string& tail)
	/// Node 1 without TLS, and tail (which sets the user and password in its own way).
{
	return "Host=127.0.0.1;Port=" + std::to_string(cluster().port) + ";Database=bluetusk;SSL Mode=disable;Timeout=5;" + tail;
}

} // namespace


class ConnectHygieneTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectHygieneTest);
	CPPUNIT_TEST(testLibpqTailPasswordHidden);
	CPPUNIT_TEST(testUrlWithUnencodedAt);
	CPPUNIT_TEST(testControlCharactersEscapedInText);
	CPPUNIT_TEST(testJsonValidUtf8);
	CPPUNIT_TEST_SUITE_END();

public:
	void testLibpqTailPasswordHidden()
	{
		// The user name becomes "bluetusk password=<marker> dbname=x"; the server refuses that role and
		// echoes its name.
		const std::string cs = plainCluster("Password=not-it-9;user=bluetusk password=" + MARKER + " dbname=x");
		for (bool json: {true, false})
		{
			std::vector<std::string> args = {cs};
			if (json) args.insert(args.begin(), "--json");
			ProgramResult r = runProgram(connectProgram(), args);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 2, r.status);
			const std::string all = r.out + r.err;
			CPPUNIT_ASSERT_MESSAGE(all, !contains(all, MARKER));
			CPPUNIT_ASSERT_MESSAGE(all, contains(all, "127.0.0.1:" + std::to_string(cluster().port)));
			CPPUNIT_ASSERT_MESSAGE(all, contains(all, "bluetusk password=***"));
			CPPUNIT_ASSERT_MESSAGE(all, contains(all, "28P01") || contains(all, "28000"));
			if (json) CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskAuthenticationException"), r.json(0)->getValue<std::string>("type"));
		}
	}

	void testUrlWithUnencodedAt()
	{
		const std::string url = "postgresql://bluetusk@corp.example:" + MARKER + "@127.0.0.1:" + std::to_string(cluster().port) +
			"/bluetusk?sslmode=disable&connect_timeout=5";
		ProgramResult r = runProgram(connectProgram(), {"--json", url});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 2, r.status);
		CPPUNIT_ASSERT_MESSAGE(r.describe(), !contains(r.out + r.err, MARKER));
		const std::string message = r.json(0)->getValue<std::string>("message");
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "user \"bluetusk@corp.example\" at 127.0.0.1:" + std::to_string(cluster().port)));
	}

	void testControlCharactersEscapedInText()
	{
		ProgramResult r = runProgram(connectProgram(), {"--query", "SELECT E'\\x1b[31mred\\x07\\r' AS \"c\x1b\"", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		CPPUNIT_ASSERT_MESSAGE(r.out, !contains(r.out, "\x1b") && !contains(r.out, "\x07") && !contains(r.out, "\r"));
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(r.out, "\\x1B[31mred\\x07\\x0D"));
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(r.out, "c\\x1B"));

		// a server error with control characters in its text (RAISE), shown on stderr
		ProgramResult e = runProgram(connectProgram(), {"--query", "DO $$BEGIN RAISE EXCEPTION E'bell\\x07here'; END$$", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT(e.status != 0);
		CPPUNIT_ASSERT_MESSAGE(e.err, !contains(e.err, "\x07") && contains(e.err, "bell\\x07here"));
		CPPUNIT_ASSERT_MESSAGE(e.err, contains(e.err, "server 127.0.0.1:" + std::to_string(cluster().port)));
	}

	void testJsonValidUtf8()
	{
		// Invalid bytes in the input (an option, a connection string) come back as U+FFFD, never raw.
		ProgramResult option = runProgram(connectProgram(), {"--json", "--bogus\xff\xfe", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(option.describe(), 1, option.status);
		CPPUNIT_ASSERT_MESSAGE(option.out, !contains(option.out, "\xff") && contains(option.out, "\xEF\xBF\xBD"));
		CPPUNIT_ASSERT_MESSAGE(option.out, contains(option.json(0)->getValue<std::string>("message"), "Unknown option specified: bogus"));

		// The server's control characters are escaped by the JSON writer and the line parses.
		ProgramResult r = runProgram(connectProgram(), {"--json", "--query", "SELECT E'\\x1b[31m\\x07' AS c", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		CPPUNIT_ASSERT_MESSAGE(r.out, !contains(r.out, "\x1b") && contains(r.out, "\\u001B[31m\\u0007"));
		CPPUNIT_ASSERT_EQUAL(std::string("connected"), r.json(0)->getValue<std::string>("event"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectHygieneTest);
