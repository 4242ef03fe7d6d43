//
// NpgsqlStyleTokenizer.cpp
//
// Library: BlueTusk/Foundation
//

#include "NpgsqlStyleTokenizer.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {
namespace Detail {

KeywordValueList tokenizeNpgsqlStyle(const std::string& text)
{
	KeywordValueList pairs;
	std::size_t pos = 0;
	while (pos < text.size())
	{
		pos = skipSpace(text, pos);
		if (pos < text.size() && text[pos] == ';')
		{
			++pos;
			continue;
		}
		if (pos >= text.size()) break;

		const std::size_t keywordStart = pos;
		while (pos < text.size() && text[pos] != '=' && text[pos] != ';') ++pos;
		if (pos >= text.size() || text[pos] != '=')
			throw BlueTuskConnectionStringException("expected '=' after the keyword at " + position(keywordStart));
		KeywordValue pair;
		pair.keyword = trim(text.substr(keywordStart, pos - keywordStart));
		pair.position = keywordStart;
		if (pair.keyword.empty())
			throw BlueTuskConnectionStringException("missing keyword before '=' at " + position(pos));
		pos = skipSpace(text, pos + 1);

		if (pos < text.size() && (text[pos] == '"' || text[pos] == '\''))
		{
			const char quote = text[pos];
			const std::size_t quoteStart = pos++;
			for (;;)
			{
				if (pos >= text.size())
					throw BlueTuskConnectionStringException(std::string("unterminated quote (") + quote + ") starting at " + position(quoteStart));
				if (text[pos] == quote)
				{
					if (pos + 1 < text.size() && text[pos + 1] == quote)
					{
						pair.value += quote;
						pos += 2;
						continue;
					}
					++pos;
					break;
				}
				pair.value += text[pos++];
			}
			pos = skipSpace(text, pos);
			if (pos < text.size() && text[pos] != ';')
				throw BlueTuskConnectionStringException("unexpected character after the closing quote at " + position(pos) + "; expected ';'");
		}
		else
		{
			const std::size_t valueStart = pos;
			while (pos < text.size() && text[pos] != ';') ++pos;
			pair.value = trim(text.substr(valueStart, pos - valueStart));
		}
		pairs.push_back(pair);
	}
	return pairs;
}

} } // namespace BlueTusk::Detail
