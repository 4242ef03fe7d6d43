//
// ConnectionStringForm.cpp
//
// Library: BlueTusk/Foundation
//

#include "ConnectionStringForm.h"
#include "LibpqStyleTokenizer.h"
#include "NpgsqlStyleTokenizer.h"
#include "UrlTokenizer.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {
namespace Detail {

namespace {

bool firstKeywordHasSpace(const std::string& text)
{
	const std::size_t equals = text.find('=');
	const std::string keyword = trim(text.substr(0, equals));
	for (char c: keyword)
	{
		if (isSpace(c)) return true;
	}
	return false;
}


bool readsAsLibpq(const std::string& text)
	/// Walks the text with libpq's rules (see LibpqStyleTokenizer.h): false when a ';' appears outside a
	/// single-quoted value, or when the text is not valid in the libpq form but holds a ';' somewhere.
{
	const bool anySemicolon = text.find(';') != std::string::npos;
	std::size_t pos = 0;
	auto skipSpace = [&text, &pos] { while (pos < text.size() && isSpace(text[pos])) ++pos; };
	for (skipSpace(); pos < text.size(); skipSpace())
	{
		for (; pos < text.size() && !isSpace(text[pos]) && text[pos] != '='; ++pos)
		{
			if (text[pos] == ';') return false;
		}
		skipSpace();
		if (pos >= text.size() || text[pos] != '=') return !anySemicolon;
		++pos;
		skipSpace();
		if (pos < text.size() && text[pos] == '\'')
		{
			for (++pos; pos < text.size() && text[pos] != '\''; ++pos)
			{
				if (text[pos] == '\\') ++pos;
			}
			if (pos >= text.size()) return !anySemicolon;
			++pos;
			if (pos < text.size() && !isSpace(text[pos])) return !anySemicolon;
		}
		else
		{
			for (; pos < text.size() && !isSpace(text[pos]); ++pos)
			{
				if (text[pos] == ';') return false;
				if (text[pos] == '\\') ++pos;
			}
		}
	}
	return true;
}

} // namespace


ConnectionStringForm detectForm(const std::string& text)
{
	if (isConnectionUrl(text)) return ConnectionStringForm::Url;
	if (firstKeywordHasSpace(text) || !readsAsLibpq(text)) return ConnectionStringForm::NpgsqlStyle;
	return ConnectionStringForm::LibpqStyle;
}


KeywordValueList tokenize(const std::string& text)
{
	if (looksLikeMistypedUrl(text))
		throw BlueTuskConnectionStringException("the connection string begins like a URL, but a URL begins with "
			"\"postgresql://\" or \"postgres://\" (two slashes)");
	const std::string scheme = nearMissUrlScheme(text);
	if (!scheme.empty())
		throw BlueTuskConnectionStringException("the connection string is not a valid URL: it begins with " + quoted(scheme) +
			", and a URL begins with \"postgresql://\" or \"postgres://\" (a keyword/value string begins with a keyword and '=')");
	switch (detectForm(text))
	{
	case ConnectionStringForm::Url:
		return tokenizeUrl(text);
	case ConnectionStringForm::NpgsqlStyle:
		return tokenizeNpgsqlStyle(text);
	case ConnectionStringForm::LibpqStyle:
		break;
	}
	return tokenizeLibpqStyle(text);
}

} } // namespace BlueTusk::Detail
