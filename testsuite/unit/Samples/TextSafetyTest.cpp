//
// TextSafetyTest.cpp
//
// bluetusk-connect's JSON is valid UTF-8 whatever bytes the server or the input
// holds, and its text output shows no raw control character.
//

#include "SampleJson.h"
#include "TextSafety.h"
#include "Poco/JSON/Parser.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk::Samples;


class TextSafetyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TextSafetyTest);
	CPPUNIT_TEST(testValidTextUnchanged);
	CPPUNIT_TEST(testInvalidBytesReplaced);
	CPPUNIT_TEST(testControlCharactersEscaped);
	CPPUNIT_TEST(testJsonLineIsValidUtf8);
	CPPUNIT_TEST_SUITE_END();

public:
	void testValidTextUnchanged()
	{
		const std::string text = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x90\x98 plain";
		CPPUNIT_ASSERT_EQUAL(text, validUtf8(text));
		CPPUNIT_ASSERT_EQUAL(text, terminalSafe(text));
	}

	void testInvalidBytesReplaced()
	{
		const std::string fffd = "\xEF\xBF\xBD";
		CPPUNIT_ASSERT_EQUAL("a" + fffd + fffd + "b", validUtf8("a\xFF\xFE" "b"));
		CPPUNIT_ASSERT_EQUAL("x" + fffd, validUtf8("x\xC3"));                       // truncated sequence
		CPPUNIT_ASSERT_EQUAL(fffd + fffd, validUtf8("\xC0\xAF"));                   // overlong '/'
		CPPUNIT_ASSERT_EQUAL(fffd + fffd + fffd, validUtf8("\xED\xA0\x80"));        // a surrogate
		CPPUNIT_ASSERT_EQUAL(fffd + fffd + fffd + fffd, validUtf8("\xF4\x90\x80\x80")); // above U+10FFFF
	}

	void testControlCharactersEscaped()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("\\x1B[31mred\\x07\\x0D"), terminalSafe("\x1B[31mred\x07\r"));
		CPPUNIT_ASSERT_EQUAL(std::string("a\\x0Ab"), terminalSafe("a\nb"));
		CPPUNIT_ASSERT_EQUAL(std::string("a\nb\\x7F"), terminalSafe("a\nb\x7F", true));
		CPPUNIT_ASSERT_EQUAL(std::string("c1 \\x9B"), terminalSafe("c1 \xC2\x9B")); // CSI as a C1 control
		CPPUNIT_ASSERT_EQUAL(std::string("\xEF\xBF\xBD"), terminalSafe("\x9B"));     // a lone C1 byte is invalid UTF-8
	}

	void testJsonLineIsValidUtf8()
	{
		Poco::JSON::Object::Ptr object = newObject();
		object->set("message", std::string("bad \xFF\xFE bytes \x1B[2J and \xC3\xA9"));
		const std::string line = toLine(object);
		CPPUNIT_ASSERT_EQUAL(line, validUtf8(line));
		Poco::JSON::Parser parser;
		Poco::JSON::Object::Ptr parsed = parser.parse(line).extract<Poco::JSON::Object::Ptr>();
		CPPUNIT_ASSERT_EQUAL(std::string("bad \xEF\xBF\xBD\xEF\xBF\xBD bytes \x1B[2J and \xC3\xA9"), parsed->getValue<std::string>("message"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TextSafetyTest);
