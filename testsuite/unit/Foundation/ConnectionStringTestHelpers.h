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

} } // namespace BlueTusk::Test

#define BLUETUSK_ASSERT_ENDPOINTS(expected, settings) \
	CPPUNIT_ASSERT_EQUAL(std::string(expected), BlueTusk::Test::joined(BlueTusk::Test::endpointsOf(settings)))

#define BLUETUSK_ASSERT_CONTAINS(text, part) \
	CPPUNIT_ASSERT_MESSAGE("\"" + std::string(text) + "\" does not contain \"" + std::string(part) + "\"", BlueTusk::Test::contains(text, part))

#endif // BlueTusk_ConnectionStringTestHelpers_INCLUDED
