//
// KeywordTableTest.cpp
//
// The keyword table (Foundation's ConnectionKeywords) drives everything: each row, with its example value,
// under each of its spellings, in each form and from its environment variable, parses, prints, compares and
// round-trips through toString(); set() applies it; a secret row is redacted. A new row is tested here
// without a line of this file changing.
//

#include "ConnectionStringTestHelpers.h"
#include "ConnectionKeywords.h"
#include <set>

using namespace BlueTusk;
using namespace BlueTusk::Test;
using Detail::ConnectionKeywords;
using Keyword = ConnectionKeywords::Keyword;

namespace {

const std::vector<std::pair<std::string, std::string>> required = {
	// what every connection string here needs; SSL Mode=verify-full lets SSL Negotiation=direct stand alone
	{"Host", "db-a"}, {"Username", "u"}, {"SSL Mode", "verify-full"}};


std::string baseWithout(const std::string& setting)
	/// The required keywords in the Npgsql form, less the one of setting.
{
	std::string text;
	for (const auto& pair: required)
	{
		if (pair.first != setting) text += pair.first + "=" + pair.second + ";";
	}
	return text;
}


std::string spaceless(const std::string& name)
{
	std::string result;
	for (char c: name)
	{
		if (c != ' ') result += c;
	}
	return result;
}


std::vector<std::string> spellings(const Keyword& keyword)
{
	std::vector<std::string> result = {keyword.name, spaceless(keyword.name)};
	if (keyword.libpqName) result.push_back(keyword.libpqName);
	return result;
}


std::string owner(const Keyword& keyword)
{
	return ConnectionKeywords::settingOf(keyword);
}

} // namespace


class KeywordTableTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(KeywordTableTest);
	CPPUNIT_TEST(testRowsAreWellFormed);
	CPPUNIT_TEST(testEveryRowRoundTrips);
	CPPUNIT_TEST(testEqualityAndPrintingAgree);
	CPPUNIT_TEST(testEveryFormAndSetAgree);
	CPPUNIT_TEST(testEnvironmentVariables);
	CPPUNIT_TEST(testSecretsAreRedacted);
	CPPUNIT_TEST_SUITE_END();

public:
	void testRowsAreWellFormed()
	{
		std::set<std::string> names;
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			const std::string name = keyword.name;
			CPPUNIT_ASSERT_MESSAGE(name + " is in the table twice", names.insert(name).second);
			for (const std::string& spelling: spellings(keyword))
				CPPUNIT_ASSERT_MESSAGE(spelling + " finds another keyword than " + name, ConnectionKeywords::find(spelling) == &keyword);
			CPPUNIT_ASSERT_MESSAGE(name + " has no parser", keyword.field.apply != nullptr);
			if (keyword.setting)
			{
				const Keyword* settingOwner = ConnectionKeywords::find(keyword.setting);
				CPPUNIT_ASSERT_MESSAGE(name + " sets the setting of an unknown keyword", settingOwner && settingOwner->name == std::string(keyword.setting));
				CPPUNIT_ASSERT_MESSAGE(name + " shares a setting, so its owner prints and compares it", !keyword.field.format && !keyword.field.same);
			}
			if (keyword.printing == Detail::Printing::WhenValueChanged)
				CPPUNIT_ASSERT_MESSAGE(name + " is printed when its value changed, but has no comparison", keyword.field.same != nullptr);
			if (keyword.secret)
				CPPUNIT_ASSERT_MESSAGE(name + " is a secret: it needs a format for the redactor", keyword.field.format != nullptr);
			else if (keyword.environment && keyword.field.format)
				CPPUNIT_ASSERT_MESSAGE(name + " has an environment variable: toString() must always print it, so that the text means the same in any"
					" environment", keyword.printing == Detail::Printing::Always);
			if (keyword.field.same)
				CPPUNIT_ASSERT_MESSAGE(name + " drives a setting: it needs an example value", keyword.example != nullptr);
		}
		CPPUNIT_ASSERT(names.count("Password") && names.count("SSL Password"));
		CPPUNIT_ASSERT(ConnectionKeywords::find("Password")->secret);
		CPPUNIT_ASSERT(ConnectionKeywords::find("SSL Password")->secret);
		CPPUNIT_ASSERT(!ConnectionKeywords::find("Username")->secret);
	}

	void testEveryRowRoundTrips()
	{
		std::size_t tested = 0;
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			if (!keyword.example || keyword.secret) continue; // secrets: testSecretsAreRedacted
			for (const std::string& spelling: spellings(keyword))
			{
				const std::string text = baseWithout(owner(keyword)) + spelling + "=" + keyword.example;
				const ConnectionSettings settings = parse(text);
				const std::string printed = settings.toString();
				const ConnectionSettings back = parse(printed);
				CPPUNIT_ASSERT_MESSAGE(text + " does not round-trip through " + printed, back == settings);
				CPPUNIT_ASSERT_EQUAL(printed, back.toString());
				++tested;
			}
		}
		CPPUNIT_ASSERT(tested > 150);
	}

	void testEqualityAndPrintingAgree()
	{
		// A row whose example changes the settings changes the printed text too, and the other way round:
		// toString() and operator == see the same settings. A row that compares its setting (field.same)
		// sees the change; a row that neither stores nor shares a setting leaves the settings equal.
		const ConnectionSettings defaults = parse(baseWithout(""));
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			if (!keyword.example || owner(keyword) == "Host" || owner(keyword) == "Username" || owner(keyword) == "SSL Mode") continue;
			const std::string name = keyword.name;
			const ConnectionSettings settings = parse(baseWithout("") + name + "=" + keyword.example);
			const bool changed = settings != defaults;
			CPPUNIT_ASSERT_MESSAGE(name + ": operator == and toString() disagree about " + keyword.example,
				changed == (settings.toString() != defaults.toString()));
			if (keyword.field.same)
			{
				CPPUNIT_ASSERT_MESSAGE(name + "=" + keyword.example + " is the default", !keyword.field.same(settings, defaults) && changed);
				CPPUNIT_ASSERT_MESSAGE(name + " compares unequal to itself", keyword.field.same(settings, settings));
			}
			if (!keyword.field.same && !keyword.setting && name != "Port" && name != "Host Address")
				CPPUNIT_ASSERT_MESSAGE(name + " stores nothing, yet changed the settings", !changed);
		}
		// the endpoints, which Port and Host Address change, are compared by Host's row
		CPPUNIT_ASSERT(parse(baseWithout("") + "Port=6000") != defaults);
		CPPUNIT_ASSERT(parse(baseWithout("") + "Host Address=10.0.0.1") != defaults);
	}

	void testEveryFormAndSetAgree()
	{
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			if (!keyword.example) continue;
			const std::string name = keyword.name;
			const ConnectionSettings npgsql = parse(baseWithout(owner(keyword)) + name + "=" + keyword.example);
			if (keyword.libpqName)
			{
				std::string libpq;
				for (const auto& pair: required)
				{
					if (pair.first != owner(keyword)) libpq += ConnectionKeywords::find(pair.first)->libpqName + std::string("=") + pair.second + " ";
				}
				libpq += std::string(keyword.libpqName) + "='" + keyword.example + "'";
				CPPUNIT_ASSERT_MESSAGE(libpq, parse(libpq) == npgsql);
			}
			if (owner(keyword) == "Service File") continue; // set() refuses the service keywords
			ConnectionSettings overridden = parse(baseWithout(""));
			overridden.set(name, keyword.example);
			CPPUNIT_ASSERT_MESSAGE("set(" + name + ")", overridden == npgsql);
		}
	}

	void testEnvironmentVariables()
	{
		std::size_t tested = 0;
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			if (!keyword.environment || !keyword.example) continue;
			const std::string name = keyword.name;
			const std::string base = baseWithout(owner(keyword));
			const ConnectionSettings written = parse(base + name + "=" + keyword.example);
			const ConnectionSettings fromEnvironment = parse(base, {{keyword.environment, keyword.example}});
			CPPUNIT_ASSERT_MESSAGE(std::string(keyword.environment) + " is not " + name, fromEnvironment == written);
			// a keyword written wins over its variable
			const ConnectionSettings both = parse(base + name + "=" + keyword.example, {{keyword.environment, "\x01invalid"}});
			CPPUNIT_ASSERT_MESSAGE(std::string(keyword.environment) + " was read although " + name + " was given", both == written);
			++tested;
		}
		CPPUNIT_ASSERT(tested > 30);
	}

	void testSecretsAreRedacted()
	{
		std::size_t tested = 0;
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			if (!keyword.secret) continue;
			const std::string name = keyword.name;
			const std::string secret = keyword.example;
			for (const std::string& spelling: spellings(keyword))
			{
				const ConnectionSettings settings = parse(baseWithout("") + spelling + "=" + secret);
				CPPUNIT_ASSERT_EQUAL(secret, keyword.field.format(settings)); // stored as given
				const std::string printed = settings.toString();
				BLUETUSK_ASSERT_CONTAINS(printed, name + "=***;");
				CPPUNIT_ASSERT_MESSAGE(printed, !contains(printed, secret));
				CPPUNIT_ASSERT_EQUAL(std::string("failed for ***"), settings.redactor().redact("failed for " + secret));
				CPPUNIT_ASSERT_EQUAL(std::string("***"), keyword.field.format(parse(printed))); // re-parsed: the mask
				// no parse error shows it, in the Npgsql form or from the environment variable
				const std::string error = parseError(baseWithout("") + spelling + "=" + secret + ";Application Name=" + secret + ";Port=x" + secret);
				CPPUNIT_ASSERT_MESSAGE(error, !contains(error, secret));
				if (keyword.environment)
				{
					const std::string fromEnvironment = parseError(baseWithout("") + "Port=x" + secret, {{keyword.environment, secret}});
					CPPUNIT_ASSERT_MESSAGE(fromEnvironment, !contains(fromEnvironment, secret));
				}
				++tested;
			}
		}
		CPPUNIT_ASSERT(tested >= 5);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeywordTableTest);
