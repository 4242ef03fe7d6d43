//
// ConnectionStringErrorTest.cpp
//
// Bad input: every malformed connection string gets a BlueTuskConnectionStringException whose message
// names the keyword or the position and what is wrong, and never the password. Each case carries its own
// unique password ({PW} below) and the test checks it is absent from the message.
//

#include "ConnectionStringTestHelpers.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Case
{
	std::string input;    /// {PW} is replaced by a password unique to the case (11 characters)
	std::string expected; /// the exact message
};


std::string replaceAll(std::string text, const std::string& from, const std::string& to)
{
	for (std::size_t found = text.find(from); found != std::string::npos; found = text.find(from, found + to.size()))
		text.replace(found, from.size(), to);
	return text;
}


void checkCases(const std::vector<Case>& cases)
{
	static int counter = 1000;
	for (const Case& c: cases)
	{
		// 11 characters for every case, so the positions in the expected messages do not depend on it
		const std::string password = "PwQ" + std::to_string(++counter) + "zK9m";
		const std::string input = replaceAll(c.input, "{PW}", password);
		const std::string message = parseError(input);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(input, c.expected, message);
		CPPUNIT_ASSERT_MESSAGE("password in message for " + input + ": " + message, !contains(message, password));
	}
}

} // namespace


class ConnectionStringErrorTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionStringErrorTest);
	CPPUNIT_TEST(testUnknownKeyword);
	CPPUNIT_TEST(testHostList);
	CPPUNIT_TEST(testPorts);
	CPPUNIT_TEST(testPortCountMismatch);
	CPPUNIT_TEST(testQuotes);
	CPPUNIT_TEST(testMissingEquals);
	CPPUNIT_TEST(testPercentEscapes);
	CPPUNIT_TEST(testUrlStructure);
	CPPUNIT_TEST(testEnumerations);
	CPPUNIT_TEST(testNumbers);
	CPPUNIT_TEST(testPoolSizes);
	CPPUNIT_TEST(testRequired);
	CPPUNIT_TEST(testPasswordMovedIntoAnotherValue);
	CPPUNIT_TEST(testMangledUrlScheme);
	CPPUNIT_TEST(testSetErrors);
	CPPUNIT_TEST(testExceptionType);
	CPPUNIT_TEST_SUITE_END();

public:
	void testUnknownKeyword()
	{
		const std::string tail = " (doc/connection-strings.md lists the accepted keywords)";
		checkCases({
			{"Host=a;Username=u;Password={PW};Hots=b", "unknown keyword \"Hots\" at position 40" + tail},
			{"host=a user=u password={PW} hots=b", "unknown keyword \"hots\" at position 36" + tail},
			{"postgresql://u:{PW}@a/db?hots=b", "unknown keyword \"hots\" in the URL query at position 33; the nearest known keyword is spelled \"host\" in libpq" + tail},
			{"Host=a;Username=u;Password={PW};Target  Session Attributes=any", "unknown keyword \"Target  Session Attributes\" at position 40" + tail},
			{"Host=a;Username=u;Password={PW};Target_Session_Attributes=any", "unknown keyword \"Target_Session_Attributes\" at position 40" + tail},
		});
	}

	void testHostList()
	{
		checkCases({
			{"Host=a,,b;Username=u;Password={PW}", "Host: element 2 of 3 is empty in the host list \"a,,b\""},
			{"Host=a, ;Username=u;Password={PW}", "Host: element 2 of 2 is empty in the host list \"a,\""},
			{"Host=;Username=u;Password={PW}", "Host: the host list is empty; expected one or more hosts separated by ','"},
			{"host='' user=u password={PW}", "host: the host list is empty; expected one or more hosts separated by ','"},
			{"Host=:5432;Username=u;Password={PW}", "Host: the host \":5432\" has an empty host name before ':'"},
			{"Host=[::1;Username=u;Password={PW}", "Host: the host \"[::1\" has a '[' without ']'"},
			{"Host=a,[::1]x;Username=u;Password={PW}", "Host: element 2 of 2 \"[::1]x\" has unexpected text after ']'; expected ':' and a port"},
			{"Host=[]:5432;Username=u;Password={PW}", "Host: the host \"[]:5432\" has an empty host inside '[]'"},
			{"Host=a]b;Username=u;Password={PW}", "Host: the host \"a]b\" has '[' or ']' outside brackets around the host; write [host] or [host]:port"},
			{"Host=[a[b]];Username=u;Password={PW}", "Host: the host \"[a[b]]\" has '[' inside brackets"},
			{"host=a,,b user=u password={PW}", "host: element 2 of 3 is empty in the host list \"a,,b\""},
		});
	}

	void testPorts()
	{
		checkCases({
			{"Host=a;Port=abc;Username=u;Password={PW}", "Port: \"abc\" is not a port number; expected 1..65535"},
			{"Host=a;Port=-5;Username=u;Password={PW}", "Port: \"-5\" is not a port number; expected 1..65535"},
			{"Host=a;Port=0;Username=u;Password={PW}", "Port: \"0\" is out of range for a port; expected 1..65535"},
			{"Host=a;Port=65536;Username=u;Password={PW}", "Port: \"65536\" is out of range for a port; expected 1..65535"},
			{"Host=a;Port=99999999999999999999;Username=u;Password={PW}", "Port: \"99999999999999999999\" is out of range for a port; expected 1..65535"},
			{"Host=a;Port=;Username=u;Password={PW}", "Port: empty port; expected a number 1..65535"},
			{"Host=a,b;Port=1,;Username=u;Password={PW}", "Port: element 2 of 2: empty port; expected a number 1..65535"},
			{"Host=a:abc;Username=u;Password={PW}", "Host: the host \"a:abc\": \"abc\" is not a port number; expected 1..65535"},
			{"Host=a,b:0;Username=u;Password={PW}", "Host: element 2 of 2 \"b:0\": \"0\" is out of range for a port; expected 1..65535"},
			{"Host=a:;Username=u;Password={PW}", "Host: the host \"a:\": empty port; expected a number 1..65535"},
			{"Host=[::1]:99999;Username=u;Password={PW}", "Host: the host \"[::1]:99999\": \"99999\" is out of range for a port; expected 1..65535"},
			{"postgresql://u:{PW}@a:abc/db", "host: the host \"a:abc\": \"abc\" is not a port number; expected 1..65535"},
			{"host=a port=7x user=u password={PW}", "port: \"7x\" is not a port number; expected 1..65535"},
		});
	}

	void testPortCountMismatch()
	{
		const std::string tail = "; a Port list of more than one port needs one port per host (or give a single shared Port)";
		checkCases({
			{"Host=a,b,c;Port=1,2;Username=u;Password={PW}", "Port: 3 hosts but 2 ports" + tail},
			{"Host=a;Port=1,2;Username=u;Password={PW}", "Port: 1 host but 2 ports" + tail},
			{"Host=a:1,b:2;Port=1,2,3;Username=u;Password={PW}", "Port: 2 hosts but 3 ports" + tail},
			{"postgresql://u:{PW}@a,b,c/db?port=1,2", "Port: 3 hosts but 2 ports" + tail},
		});
	}

	void testQuotes()
	{
		checkCases({
			{"Host=a;Username=u;Password={PW};Application Name=\"abc", "unterminated quote (\") starting at position 57"},
			{"Host=a;Username=u;Application Name='abc;Password={PW}", "unterminated quote (') starting at position 36"},
			{"Host=a;Username=u;Password=\"{PW}", "unterminated quote (\") starting at position 28"},
			{"host=a user=u password={PW} application_name='abc", "unterminated quote (') starting at position 53"},
			{"host=a user=u password='{PW}\\", "unterminated quote (') starting at position 24"},
			{"Host=a;Username=u;Application Name=\"a\"b;Password={PW}", "unexpected character after the closing quote at position 39; expected ';'"},
			{"host=a user=u application_name='a'b password={PW}", "unexpected character after the closing quote at position 35; expected white space"},
		});
	}

	void testMissingEquals()
	{
		checkCases({
			{"Host=a;Username;Password={PW}", "expected '=' after the keyword at position 8"},
			{"Host=a;Username=u;Password={PW};{PW}", "expected '=' after the keyword at position 40"},
			{"host=a user u password={PW}", "expected '=' after the keyword at position 8"},
			{"Host=a;=x;Username=u;Password={PW}", "missing keyword before '=' at position 8"},
			{"host=a =x user=u password={PW}", "missing keyword before '=' at position 8"},
			{"postgresql://u:{PW}@a/db?sslmode", "the URL query parameter at position 33 has no '='"},
			{"postgresql://u:{PW}@a/db?=x", "missing keyword before '=' at position 33"},
		});
	}

	void testPercentEscapes()
	{
		const std::string bad = "' must be followed by two hexadecimal digits";
		checkCases({
			{"postgresql://u:{PW}@a/d%G1", "bad percent escape at position 31: '%" + bad},
			{"postgresql://u:{PW}@a/d%4", "bad percent escape at position 31: '%" + bad},
			{"postgresql://u:{PW}@a/d%", "bad percent escape at position 31: '%" + bad},
			{"postgresql://u:{PW}%zz@a/d", "bad percent escape at position 27: '%" + bad},
			{"postgresql://u:{PW}@a/d?application_name=%%", "bad percent escape at position 49: '%" + bad},
			{"postgresql://u:{PW}@a/d%00", "percent escape %00 at position 31 is not allowed: a setting cannot contain a NUL byte"},
			{"postgresql://u:{PW}%00@a/d", "percent escape %00 at position 27 is not allowed: a setting cannot contain a NUL byte"},
			{"postgresql://u%00:{PW}@a/d", "percent escape %00 at position 15 is not allowed: a setting cannot contain a NUL byte"},
		});
	}

	void testUrlStructure()
	{
		checkCases({
			{"postgresql://u:{PW}@[::1/db", "the '[' at position 28 in the URL's host list is never closed by ']'"},
			{"postgresql://u:{PW}@[::1]x/db", "unexpected character after ']' at position 33; expected ':' and a port"},
			{"postgresql://u:{PW}@a%2Cb/db", "the host at position 28 in the URL decodes to text with ',', '[' or ']', which a host list cannot hold"},
		});
	}

	void testEnumerations()
	{
		checkCases({
			// Any other policy name ("master") is a site target-session policy's, resolved at creation (doc/plugins.md).
			{"Host=a;Username=u;Password={PW};Target Session Attributes=read/write",
				"Target Session Attributes: \"read/write\" is not a valid value; accepted values: any, primary, standby, prefer-primary, prefer-standby, read-write, read-only"
				"; or a site target session policy's name (doc/plugins.md)"},
			{"host=a user=u password={PW} target_session_attrs=",
				"target_session_attrs: \"\" is not a valid value; accepted values: any, primary, standby, prefer-primary, prefer-standby, read-write, read-only"
				"; or a site target session policy's name (doc/plugins.md)"},
			{"Host=a;Username=u;Password={PW};SSL Mode=maybe",
				"SSL Mode: \"maybe\" is not a valid value; accepted values: disable, allow, prefer, require, verify-ca, verify-full"},
			{"postgresql://u:{PW}@a/db?sslmode=on",
				"sslmode: \"on\" is not a valid value; accepted values: disable, allow, prefer, require, verify-ca, verify-full"},
			{"Host=a;Username=u;Password={PW};Load Balance Hosts=sometimes",
				"Load Balance Hosts: \"sometimes\" is not a valid value; accepted values: true, random (= Host Order random), false, disable (= sequential)"},
			{"Host=a;Username=u;Password={PW};Pooling=perhaps", "Pooling: \"perhaps\" is not a boolean; accepted values: true, false, yes, no, on, off, 1, 0"},
			{"Host=a;Username=u;Password={PW};readonly=maybe", "readonly: \"maybe\" is not a boolean; accepted values: true, false, yes, no, on, off, 1, 0"},
			{"Host=a;Username=u;Password={PW};No Reset On Close=2", "No Reset On Close: \"2\" is not a boolean; accepted values: true, false, yes, no, on, off, 1, 0"},
			{"Host=a;Username=u;Password={PW};Host Order= ", "Host Order: empty policy name; expected e.g. sequential, random, parallel"},
			{"Host=a;Username=u;Password={PW};Eviction Policy=", "Eviction Policy: empty policy name; expected e.g. standard"},
		});
	}

	void testNumbers()
	{
		const std::string negative = "\" is negative; a number of seconds must be 0 or more";
		checkCases({
			{"Host=a;Username=u;Password={PW};Timeout=-1", "Timeout: \"-1" + negative},
			{"host=a user=u password={PW} connect_timeout=-0.5", "connect_timeout: \"-0.5" + negative},
			{"Host=a;Username=u;Password={PW};Failover Timeout=-3", "Failover Timeout: \"-3" + negative},
			{"Host=a;Username=u;Password={PW};Host Recheck Seconds=-3", "Host Recheck Seconds: \"-3" + negative},
			{"Host=a;Username=u;Password={PW};Connection Idle Lifetime=-3", "Connection Idle Lifetime: \"-3" + negative},
			{"Host=a;Username=u;Password={PW};Connection Lifetime=-3", "Connection Lifetime: \"-3" + negative},
			{"Host=a;Username=u;Password={PW};Checkout Timeout=-3", "Checkout Timeout: \"-3" + negative},
			{"Host=a;Username=u;Password={PW};Command Timeout=-3", "Command Timeout: \"-3" + negative},
			{"Host=a;Username=u;Password={PW};Timeout=soon", "Timeout: \"soon\" is not a number of seconds; expected e.g. 15 or 2.5"},
			{"Host=a;Username=u;Password={PW};Timeout=1e3", "Timeout: \"1e3\" is not a number of seconds; expected e.g. 15 or 2.5"},
			{"Host=a;Username=u;Password={PW};Timeout=.", "Timeout: \".\" is not a number of seconds; expected e.g. 15 or 2.5"},
			{"Host=a;Username=u;Password={PW};Timeout=", "Timeout: \"\" is not a number of seconds; expected e.g. 15 or 2.5"},
			{"Host=a;Username=u;Password={PW};Timeout=2147483648", "Timeout: \"2147483648\" is too large; at most 2147483647 seconds"},
		});
	}

	void testPoolSizes()
	{
		checkCases({
			{"Host=a;Username=u;Password={PW};Minimum Pool Size=-1", "Minimum Pool Size: \"-1\" is negative; expected a whole number 0 or more"},
			{"Host=a;Username=u;Password={PW};Maximum Pool Size=0", "Maximum Pool Size: must be at least 1"},
			{"Host=a;Username=u;Password={PW};Maximum Pool Size=ten", "Maximum Pool Size: \"ten\" is not a whole number"},
			{"Host=a;Username=u;Password={PW};Maximum Pool Size=1.5", "Maximum Pool Size: \"1.5\" is not a whole number"},
			{"Host=a;Username=u;Password={PW};Maximum Pool Size=99999999999", "Maximum Pool Size: \"99999999999\" is too large; at most 2147483647"},
			{"Host=a;Username=u;Password={PW};Minimum Pool Size=20;Maximum Pool Size=10", "Minimum Pool Size (20) is greater than Maximum Pool Size (10)"},
			{"Host=a;Username=u;Password={PW};Minimum Pool Size=101", "Minimum Pool Size (101) is greater than Maximum Pool Size (100)"},
		});
	}

	void testRequired()
	{
		// parse() fills in libpq's defaults (LibpqDefaultsTest); validate() still refuses settings a program
		// built without a host or a user
		ConnectionSettings settings;
		try
		{
			settings.validate();
			CPPUNIT_FAIL("validate() accepted settings without a host");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("Host is required: give the Host (host) keyword or set PGHOST"), exc.message());
		}
		settings.endpoints.emplace_back("db-a", 5432);
		try
		{
			settings.validate();
			CPPUNIT_FAIL("validate() accepted settings without a user");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("Username is required: give the Username (user) keyword or set PGUSER"), exc.message());
		}
	}

	void testPasswordMovedIntoAnotherValue()
	{
		// Malformed input can put the password's text into a value that is echoed; it is redacted.
		checkCases({
			{"Host='a:x;Password={PW}';Username=u", "Host: the host \"a:x;Password=***\": \"x;Password=***\" is not a port number; expected 1..65535"},
			{"host=a:{PW} password={PW} user=u", "host: the host \"a:***\": \"***\" is not a port number; expected 1..65535"},
			{"Host=a;Username=u;Password={PW};Port={PW}", "Port: \"***\" is not a port number; expected 1..65535"},
			{"postgresql://u:{PW}@a/db?port={PW}", "port: \"***\" is not a port number; expected 1..65535"},
			{"postgresql://u:{PW}@a/db?sslmode={PW}", "sslmode: \"***\" is not a valid value; accepted values: disable, allow, prefer, require, verify-ca, verify-full"},
			{"Host=a;Username=u;Password=\"{PW}\";Timeout={PW}", "Timeout: \"***\" is not a number of seconds; expected e.g. 15 or 2.5"},
			{"host=a user=u password='{PW}' sslmode='{PW}'", "sslmode: \"***\" is not a valid value; accepted values: disable, allow, prefer, require, verify-ca, verify-full"},
		});
		// the environment's password too
		const std::string message = parseError("Host=a;Username=u;Port=env-pass-991", {{"PGPASSWORD", "env-pass-991"}});
		CPPUNIT_ASSERT_EQUAL(std::string("Port: \"***\" is not a port number; expected 1..65535"), message);
	}

	void testMangledUrlScheme()
	{
		// two fuzzed strings of 1,500 printed the password. A URL whose scheme is mangled (a control
		// character in it, one slash) was read as keyword/value, and "unknown keyword" echoed the user info.
		// Before: 'unknown keyword "postgre\x01sql:/user:PwQ...@host/db?sslmode" at position 1 (...)'.
		const std::string notUrl = "\", and a URL begins with \"postgresql://\" or \"postgres://\" (a keyword/value string begins with a keyword and '=')";
		checkCases({
			{"postgre\x01sql:/user:{PW}@host/db", "the connection string is not a valid URL: it begins with \"postgre\\x01sql:/" + notUrl},
			{"postgre\x01sql:/user:{PW}@host/db?sslmode=require", "the connection string is not a valid URL: it begins with \"postgre\\x01sql:/" + notUrl},
			{"postgre\x01sql://user:{PW}@host/db?sslmode=require", "the connection string is not a valid URL: it begins with \"postgre\\x01sql:/" + notUrl},
			{"xpostgresql:/user:{PW}@host/db?a=b", "the connection string is not a valid URL: it begins with \"xpostgresql:/" + notUrl},
			{" postgres\x7f:/u:{PW}@h?x=1", "the connection string is not a valid URL: it begins with \"postgres\\x7F:/" + notUrl},
			{"pg:/user:{PW}@host/db?sslmode=require", "the connection string is not a valid URL: it begins with \"pg:/" + notUrl},
			{"postgresql:/user:{PW}@host", "the connection string begins like a URL, but a URL begins with \"postgresql://\" or \"postgres://\" (two slashes)"},
			{"postgresql:/user:{PW}@host/db?sslmode=require", "the connection string begins like a URL, but a URL begins with \"postgresql://\" or \"postgres://\" (two slashes)"},
			// not near a URL (the first keyword is followed by '='), but holding user info: its password is masked
			{"postgre\x01sql=/user:{PW}@host/db", "unknown keyword \"postgre\\x01sql\" at position 1 (doc/connection-strings.md lists the accepted keywords)"},
			{"bad_kw:/x=1 user:{PW}@host=2", "the connection string is not a valid URL: it begins with \"bad_kw:/" + notUrl},
			{"Host=a;Application Name=x;user:{PW}@host=2", "unknown keyword \"user:***@host\" at position 27 (doc/connection-strings.md lists the accepted keywords)"},
		});
	}

	void testSetErrors()
	{
		auto settings = parse("Host=db-a,db-b;Port=5432,6432;Username=u;Password=set-secret-55");
		const ConnectionSettings before = settings;
		const auto setError = [&settings](const std::string& keyword, const std::string& value)
		{
			try
			{
				settings.set(keyword, value);
			}
			catch (BlueTuskConnectionStringException& exc)
			{
				return exc.message();
			}
			return std::string("(no exception)");
		};
		CPPUNIT_ASSERT_EQUAL(std::string("unknown keyword \"Hots\" (doc/connection-strings.md lists the accepted keywords)"), setError("Hots", "x"));
		CPPUNIT_ASSERT_EQUAL(std::string("Port: 2 hosts but 3 ports; a Port list of more than one port needs one port per host (or give a single shared Port)"),
			setError("Port", "1,2,3"));
		CPPUNIT_ASSERT_EQUAL(std::string("Port: 3 hosts but 2 ports; a Port list of more than one port needs one port per host (or give a single shared Port)"),
			setError("host", "a,b,c"));
		CPPUNIT_ASSERT_EQUAL(std::string("targetSessionAttributes: \"x!\" is not a valid value; accepted values: any, primary, standby, prefer-primary, prefer-standby, read-write, read-only"
			"; or a site target session policy's name (doc/plugins.md)"), setError("targetSessionAttributes", "x!"));
		CPPUNIT_ASSERT(settings == before);
		CPPUNIT_ASSERT_EQUAL(std::string("db-a:5432,db-b:6432"), settings.hostList());
	}

	void testExceptionType()
	{
		try
		{
			ConnectionSettings::parse("Host=a;Port=x;Username=u", {});
			CPPUNIT_FAIL("no exception");
		}
		catch (BlueTuskException& exc)
		{
			CPPUNIT_ASSERT(dynamic_cast<BlueTuskConnectionStringException*>(&exc) != nullptr);
			CPPUNIT_ASSERT_EQUAL(std::string("Invalid connection string: Port: \"x\" is not a port number; expected 1..65535"), exc.displayText());
			CPPUNIT_ASSERT(!isSessionUsable(exc));
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionStringErrorTest);
