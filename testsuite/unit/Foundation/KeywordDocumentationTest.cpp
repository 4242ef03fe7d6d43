//
// KeywordDocumentationTest.cpp
//
// doc/connection-strings.md documents exactly the keyword table (Foundation's ConnectionKeywords): every row
// is in one of its keyword tables with its libpq name and environment variable, and every keyword the
// document lists is accepted under that name.
//

#include "ConnectionStringTestHelpers.h"
#include "ConnectionKeywords.h"
#include "Poco/FileStream.h"
#include <cctype>
#include <map>
#include <set>

using namespace BlueTusk;
using namespace BlueTusk::Test;
using Detail::ConnectionKeywords;
using Keyword = ConnectionKeywords::Keyword;

namespace {

std::string trimmed(const std::string& text)
{
	const auto first = text.find_first_not_of(' ');
	if (first == std::string::npos) return std::string();
	return text.substr(first, text.find_last_not_of(' ') - first + 1);
}


std::vector<std::string> cells(const std::string& line)
	/// The cells of a Markdown table row "| a | b |".
{
	std::vector<std::string> result;
	std::string::size_type start = 1;
	for (std::string::size_type bar = line.find('|', start); bar != std::string::npos; bar = line.find('|', start))
	{
		result.push_back(trimmed(line.substr(start, bar - start)));
		start = bar + 1;
	}
	return result;
}


bool containsWord(const std::string& text, const std::string& word)
	/// Whether text holds word between characters that cannot be part of a keyword.
{
	auto boundary = [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_'); };
	for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
	{
		const bool before = at == 0 || boundary(text[at - 1]);
		const bool after = at + word.size() == text.size() || boundary(text[at + word.size()]);
		if (before && after) return true;
	}
	return false;
}


std::string withoutNote(const std::string& name)
	/// "servicefile (18)" -> "servicefile".
{
	return trimmed(name.substr(0, name.find(" (")));
}


struct Documentation
	/// The keyword tables of doc/connection-strings.md.
{
	std::map<std::string, std::vector<std::string>> keywords; /// "| keyword | libpq / other names | environment | ..." rows by keyword
	std::set<std::string> libpqKeywords;                      /// first cells of "| libpq keyword | environment | BlueTusk |"
};


Documentation readDocumentation()
{
	Poco::FileInputStream in(std::string(BLUETUSK_SOURCE_DIR) + "/doc/connection-strings.md");
	Documentation documentation;
	std::string table; // the first header cell of the table being read, or ""
	std::string line;
	while (std::getline(in, line))
	{
		if (line.empty() || line[0] != '|')
		{
			table.clear();
			continue;
		}
		const std::vector<std::string> row = cells(line);
		if (table.empty())
		{
			table = row.empty() ? std::string("?") : row[0];
			continue;
		}
		if (row.empty() || row[0].compare(0, 3, "---") == 0) continue;
		if (table == "keyword" && row.size() >= 3)
		{
			documentation.keywords[row[0]] = row;
		}
		else if (table == "libpq keyword")
		{
			// "host", "servicefile (18)", "oauth_issuer, oauth_client_id, ... (18)", "tty, requiressl (older libpq)"
			const std::string names = withoutNote(row[0]);
			std::string::size_type start = 0;
			for (std::string::size_type comma = names.find(',', start); ; comma = names.find(',', start))
			{
				documentation.libpqKeywords.insert(trimmed(names.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
				if (comma == std::string::npos) break;
				start = comma + 1;
			}
		}
	}
	return documentation;
}

} // namespace


class KeywordDocumentationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(KeywordDocumentationTest);
	CPPUNIT_TEST(testEveryRowIsDocumented);
	CPPUNIT_TEST(testEveryDocumentedKeywordIsAccepted);
	CPPUNIT_TEST_SUITE_END();

public:
	void testEveryRowIsDocumented()
	{
		const Documentation documentation = readDocumentation();
		CPPUNIT_ASSERT(documentation.keywords.size() > 60);
		CPPUNIT_ASSERT(documentation.libpqKeywords.size() > 40);
		for (const Keyword& keyword: ConnectionKeywords::all())
		{
			const std::string name = keyword.name;
			const auto row = documentation.keywords.find(name);
			if (row != documentation.keywords.end())
			{
				// its row names its libpq synonym and its environment variable
				const std::string& synonyms = row->second[1];
				const std::string& environment = row->second[2];
				if (keyword.libpqName)
					CPPUNIT_ASSERT_MESSAGE(name + "'s row does not name " + keyword.libpqName + ": " + synonyms, containsWord(synonyms, keyword.libpqName));
				else
					CPPUNIT_ASSERT_MESSAGE(name + " has no libpq name, its row says " + synonyms, synonyms.compare(0, 1, "-") == 0);
				if (keyword.environment)
					CPPUNIT_ASSERT_EQUAL_MESSAGE(name, std::string(keyword.environment), environment);
				else
					CPPUNIT_ASSERT_MESSAGE(name + " has no environment variable, its row says " + environment, environment.compare(0, 1, "-") == 0);
				continue;
			}
			if (keyword.setting)
			{
				// a synonym of another keyword's setting (readonly) is named in that keyword's row
				const auto ownerRow = documentation.keywords.find(keyword.setting);
				CPPUNIT_ASSERT_MESSAGE(name + "'s setting " + keyword.setting + " has no row", ownerRow != documentation.keywords.end());
				BLUETUSK_ASSERT_CONTAINS(ownerRow->second[1], "`" + name + "`");
				continue;
			}
			// a libpq keyword BlueTusk only checks or refuses: in the libpq keyword table
			const std::string spelling = keyword.libpqName ? keyword.libpqName : name;
			CPPUNIT_ASSERT_MESSAGE(name + " (" + spelling + ") is in no keyword table of doc/connection-strings.md",
				documentation.libpqKeywords.count(spelling) > 0);
		}
	}

	void testEveryDocumentedKeywordIsAccepted()
	{
		const Documentation documentation = readDocumentation();
		for (const auto& row: documentation.keywords)
		{
			const Keyword* keyword = ConnectionKeywords::find(row.first);
			CPPUNIT_ASSERT_MESSAGE(row.first + " is documented but not a keyword", keyword != nullptr);
			CPPUNIT_ASSERT_EQUAL_MESSAGE("documented under another name than the canonical one", std::string(keyword->name), row.first);
		}
		for (const std::string& name: documentation.libpqKeywords)
			CPPUNIT_ASSERT_MESSAGE(name + " is in the libpq keyword table but not a keyword", ConnectionKeywords::find(name) != nullptr);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeywordDocumentationTest);
