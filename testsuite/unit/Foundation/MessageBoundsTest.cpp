//
// MessageBoundsTest.cpp
//
// every echo of the input in a connection string error is bounded, and a host with white
// space (a pasted libpq tail) is refused. Before: a 120 kB host name parsed, and the failed open echoed it
// five times (what() 120,092 characters, its nested exception 480,178); "Host=127.0.0.1 port=5432" was one
// host name, "127.0.0.1 port=5432".
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/SecretRedactor.h"
#include "ConnectionStringTestHelpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::size_t BOUND = 2048;   // no connection string error message is longer (doc/connection-strings.md, "Limits")


std::string boundedError(const std::string& input, const std::string& what)
{
	const std::string message = parseError(input);
	CPPUNIT_ASSERT_MESSAGE(what + ": parsed", message.find("no exception") == std::string::npos);
	CPPUNIT_ASSERT_MESSAGE(what + ": " + std::to_string(message.size()) + " characters: " + message.substr(0, 300), message.size() < BOUND);
	return message;
}

} // namespace


class MessageBoundsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MessageBoundsTest);
	CPPUNIT_TEST(testLongHostName);
	CPPUNIT_TEST(testFiveMegabyteStrings);
	CPPUNIT_TEST(testPastedLibpqTail);
	CPPUNIT_TEST(testQuotedShowsLength);
	CPPUNIT_TEST(testUserInfoMaskedInAnyText);
	CPPUNIT_TEST_SUITE_END();

public:
	void testLongHostName()
	{
		const std::string host(120000, 'a');
		const std::string message = boundedError("Host=" + host + ";Username=u", "120 kB host");
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "Host: the host \"" + std::string(64, 'a') + "...\" (120000 characters) is too long for a host name (at most 253 characters"));
		// 253 characters is a host name still; 254 is not
		CPPUNIT_ASSERT_NO_THROW(parse("Host=" + std::string(253, 'b') + ";Username=u"));
		CPPUNIT_ASSERT(contains(parseError("Host=db-a," + std::string(254, 'b') + ";Username=u"), "Host: element 2 of 2 \""));
		// socket directories are paths, not bounded by it
		CPPUNIT_ASSERT_NO_THROW(parse("Host=/" + std::string(300, 'd') + ";Username=u"));
	}

	void testFiveMegabyteStrings()
	{
		const std::size_t size = 5 * 1000 * 1000;
		const std::string big(size, 'x');
		boundedError("Host=" + big + ";Username=u", "5 MB host");
		boundedError("Host=a;" + big + "=1", "5 MB keyword");
		boundedError("Host=a;Timeout=" + std::string(size, '9'), "5 MB number");
		boundedError("Host=a;Username=u;SSL Mode=" + big, "5 MB enumeration value");
		boundedError("host=a user=u sslmode='" + big, "5 MB unterminated quote");
		boundedError("postgresql://u@" + big + "/db?port=" + big, "5 MB URL");
		std::string hosts = "Host=";
		while (hosts.size() < size) hosts += "db-x,";
		boundedError(hosts + "db-y;Port=1,2;Username=u", "5 MB host list with 2 ports");
		std::string spaced = "Host=a";
		while (spaced.size() < size) spaced += " port=5432";
		boundedError(spaced + ";Username=u", "5 MB pasted tails");
		std::string keywords;
		while (keywords.size() < size) keywords += "Foo=1;";
		boundedError(keywords, "5 MB of unknown keywords");
	}

	void testPastedLibpqTail()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("Host: the host \"127.0.0.1 port=5432\" is not a valid host name: it holds white space at position 10; "
			"in this form keywords are separated by ';', not spaces (Host=127.0.0.1;Port=5432, not Host=127.0.0.1 port=5432)"),
			parseError("Host=127.0.0.1 port=5432;Username=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("Host: element 2 of 2 \"db b\" is not a valid host name: it holds white space at position 3; a host "
			"name has letters, digits, '-', '.' and '_'"), parseError("Host=db-a,db b;Username=u"));
		CPPUNIT_ASSERT(contains(parseError("host='a\tb' user=u"), "host: the host \"a\\x09b\" is not a valid host name: it holds white space at position 2"));
		CPPUNIT_ASSERT(contains(parseError("postgresql://u@a%20b/db"), "is not a valid host name: it holds white space at position 2"));
		// white space around an element is not part of it
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), parse("Host= db-a , db-b ;Username=u").endpoints.size());
	}

	void testQuotedShowsLength()
	{
		const std::string message = parseError("Host=a;Username=u;SSL Mode=" + std::string(100, 'q'));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "SSL Mode: \"" + std::string(64, 'q') + "...\" (100 characters) is not a valid value"));
	}

	void testUserInfoMaskedInAnyText()
	{
		const SecretRedactor none;
		CPPUNIT_ASSERT_EQUAL(std::string("unknown keyword \"postgre\\x01sql:/user:***@host/db\""), none.redact("unknown keyword \"postgre\\x01sql:/user:secret@host/db\""));
		CPPUNIT_ASSERT_EQUAL(std::string("postgresql://u:***@h, x:***@y"), none.redact("postgresql://u:pw@h, x:y:z@y"));
		CPPUNIT_ASSERT_EQUAL(std::string("a:***@b:***@c"), none.redact("a:x@b:y@c"));
		CPPUNIT_ASSERT_EQUAL(std::string("GSS principal postgres/localhost@EXAMPLE.COM, 127.0.0.1:5432"),
			none.redact("GSS principal postgres/localhost@EXAMPLE.COM, 127.0.0.1:5432"));
		CPPUNIT_ASSERT_EQUAL(std::string("ssh:/host@x, user@host, :@"), none.redact("ssh:/host@x, user@host, :@"));
		Poco::Exception nested("inner u:pw@h");
		BlueTuskException outer("outer a:b@c", nested);
		none.redact(outer);
		CPPUNIT_ASSERT_EQUAL(std::string("outer a:***@c"), outer.message());
		CPPUNIT_ASSERT_EQUAL(std::string("inner u:***@h"), outer.nested()->message());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(MessageBoundsTest);
