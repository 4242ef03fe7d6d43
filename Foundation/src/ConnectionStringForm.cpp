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


bool hasSemicolonOutsideLibpqQuotes(const std::string& text)
	/// Walks the text with libpq's quoting rule (a value that begins with ' runs to the next unescaped ').
{
	bool valueStart = false;
	for (std::size_t pos = 0; pos < text.size(); ++pos)
	{
		const char c = text[pos];
		if (c == ';') return true;
		if (c == '=')
		{
			valueStart = true;
			continue;
		}
		if (isSpace(c)) continue;
		if (valueStart && c == '\'')
		{
			for (++pos; pos < text.size() && text[pos] != '\''; ++pos)
			{
				if (text[pos] == '\\') ++pos;
			}
		}
		valueStart = false;
	}
	return false;
}

} // namespace


ConnectionStringForm detectForm(const std::string& text)
{
	if (isConnectionUrl(text)) return ConnectionStringForm::Url;
	if (hasSemicolonOutsideLibpqQuotes(text) || firstKeywordHasSpace(text)) return ConnectionStringForm::NpgsqlStyle;
	return ConnectionStringForm::LibpqStyle;
}


KeywordValueList tokenize(const std::string& text)
{
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
