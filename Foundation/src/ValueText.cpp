//
// ValueText.cpp
//
// Library: BlueTusk/Foundation
//

#include "ValueText.h"
#include <cstdio>

namespace BlueTusk {
namespace Detail {

char asciiLower(char c)
{
	return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}


std::string asciiLower(const std::string& text)
{
	std::string result(text);
	for (char& c: result) c = asciiLower(c);
	return result;
}


bool isSpace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}


std::size_t skipSpace(const std::string& text, std::size_t pos)
{
	while (pos < text.size() && isSpace(text[pos])) ++pos;
	return pos;
}


std::string trim(const std::string& text)
{
	std::size_t begin = 0;
	std::size_t end = text.size();
	while (begin < end && isSpace(text[begin])) ++begin;
	while (end > begin && isSpace(text[end - 1])) --end;
	return text.substr(begin, end - begin);
}


std::vector<std::string> split(const std::string& text, char separator)
{
	std::vector<std::string> items;
	std::size_t start = 0;
	for (;;)
	{
		const std::size_t next = text.find(separator, start);
		if (next == std::string::npos)
		{
			items.push_back(text.substr(start));
			return items;
		}
		items.push_back(text.substr(start, next - start));
		start = next + 1;
	}
}


std::string join(const std::vector<std::string>& items, const std::string& separator)
{
	std::string result;
	for (std::size_t i = 0; i < items.size(); ++i)
	{
		if (i > 0) result += separator;
		result += items[i];
	}
	return result;
}


std::string quoted(const std::string& value)
{
	static const std::size_t maxShown = 64;
	std::string result = "\"";
	std::size_t shown = 0;
	for (char c: value)
	{
		if (shown++ == maxShown)
		{
			result += "...\" (" + std::to_string(value.size()) + " characters)";
			return result;
		}
		const unsigned char byte = static_cast<unsigned char>(c);
		if (byte < 0x20 || byte == 0x7f)
		{
			char escaped[8];
			std::snprintf(escaped, sizeof(escaped), "\\x%02X", byte);
			result += escaped;
		}
		else
		{
			result += c;
		}
	}
	result += '"';
	return result;
}


std::string boundedMessage(const std::string& message, std::size_t limit)
{
	if (message.size() <= limit) return message;
	return message.substr(0, limit) + "... (cut: " + std::to_string(message.size()) + " characters in all)";
}


std::string position(std::size_t offset)
{
	return "position " + std::to_string(offset + 1);
}

} } // namespace BlueTusk::Detail
