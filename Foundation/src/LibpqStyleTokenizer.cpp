//
// LibpqStyleTokenizer.cpp
//
// Library: BlueTusk/Foundation
//

#include "LibpqStyleTokenizer.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {
namespace Detail {

KeywordValueList tokenizeLibpqStyle(const std::string& text)
{
	KeywordValueList pairs;
	std::size_t pos = skipSpace(text, 0);
	while (pos < text.size())
	{
		KeywordValue pair;
		pair.position = pos;
		while (pos < text.size() && !isSpace(text[pos]) && text[pos] != '=') ++pos;
		pair.keyword = text.substr(pair.position, pos - pair.position);
		pos = skipSpace(text, pos);
		if (pos >= text.size() || text[pos] != '=')
			throw BlueTuskConnectionStringException("expected '=' after the keyword at " + position(pair.position));
		if (pair.keyword.empty())
			throw BlueTuskConnectionStringException("missing keyword before '=' at " + position(pos));
		pos = skipSpace(text, pos + 1);

		if (pos < text.size() && text[pos] == '\'')
		{
			const std::size_t quoteStart = pos++;
			for (;;)
			{
				if (pos >= text.size())
					throw BlueTuskConnectionStringException("unterminated quote (') starting at " + position(quoteStart));
				const char c = text[pos++];
				if (c == '\'') break;
				if (c == '\\')
				{
					if (pos >= text.size())
						throw BlueTuskConnectionStringException("unterminated quote (') starting at " + position(quoteStart));
					pair.value += text[pos++];
				}
				else
				{
					pair.value += c;
				}
			}
			if (pos < text.size() && !isSpace(text[pos]))
				throw BlueTuskConnectionStringException("unexpected character after the closing quote at " + position(pos) + "; expected white space");
		}
		else
		{
			while (pos < text.size() && !isSpace(text[pos]))
			{
				const char c = text[pos++];
				if (c == '\\')
				{
					if (pos < text.size()) pair.value += text[pos++];
				}
				else
				{
					pair.value += c;
				}
			}
		}
		pairs.push_back(pair);
		pos = skipSpace(text, pos);
	}
	return pairs;
}

} } // namespace BlueTusk::Detail
