//
// ConnectionStringTestHelpers.h
//
// Shared helpers of the connection string test fixtures.
//

#ifndef BlueTusk_ConnectionStringTestHelpers_INCLUDED
#define BlueTusk_ConnectionStringTestHelpers_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include <cppunit/extensions/HelperMacros.h>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

using Environment = std::map<std::string, std::string>;


inline ConnectionSettings parse(const std::string& text, const Environment& environment = Environment())
	/// ConnectionSettings::parse with an explicit (by default empty) environment, so the machine's PG*
	/// variables never change a result.
{
	return ConnectionSettings::parse(text, environment);
}


inline std::vector<std::string> endpointsOf(const ConnectionSettings& settings)
{
	std::vector<std::string> result;
	for (const auto& endpoint: settings.endpoints) result.push_back(endpoint.toString());
	return result;
}


inline std::string joined(const std::vector<std::string>& items)
{
	std::string text;
	for (const auto& item: items) text += (text.empty() ? "" : " ") + item;
	return text;
}


inline std::string parseError(const std::string& text, const Environment& environment = Environment())
	/// The message of the BlueTuskConnectionStringException parse() throws; fails the test when parse()
	/// succeeds or throws anything else.
{
	try
	{
		ConnectionSettings::parse(text, environment);
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		CPPUNIT_ASSERT_EQUAL(std::string("Invalid connection string"), std::string(exc.name()));
		return exc.message();
	}
	CPPUNIT_FAIL("no BlueTuskConnectionStringException for: " + text);
	return std::string();
}


inline bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


struct Rejection
	/// One bad value for assertRejections(): the string's tail and the parts its message must contain.
{
	std::string tail;
	std::vector<std::string> parts;
};


inline void assertRejections(const std::string& base, std::initializer_list<Rejection> rejections)
	/// For each rejection, parses base + tail (which must throw BlueTuskConnectionStringException) and
	/// asserts that the message contains every expected part and nothing of base's "Password=" value.
{
	const std::string::size_type at = base.find("Password=");
	const std::string secret = at == std::string::npos ? std::string() : base.substr(at + 9, base.find(';', at) - at - 9);
	for (const auto& rejection: rejections)
	{
		const std::string message = parseError(base + rejection.tail);
		for (const auto& part: rejection.parts)
			CPPUNIT_ASSERT_MESSAGE("\"" + message + "\" (for " + rejection.tail + ") does not contain \"" + part + "\"", contains(message, part));
		if (!secret.empty())
			CPPUNIT_ASSERT_MESSAGE("the password is in \"" + message + "\"", !contains(message, secret));
	}
}

} } // namespace BlueTusk::Test

#define BLUETUSK_ASSERT_ENDPOINTS(expected, settings) \
	CPPUNIT_ASSERT_EQUAL(std::string(expected), BlueTusk::Test::joined(BlueTusk::Test::endpointsOf(settings)))

#define BLUETUSK_ASSERT_CONTAINS(text, part) \
	CPPUNIT_ASSERT_MESSAGE("\"" + std::string(text) + "\" does not contain \"" + std::string(part) + "\"", BlueTusk::Test::contains(text, part))

#endif // BlueTusk_ConnectionStringTestHelpers_INCLUDED
