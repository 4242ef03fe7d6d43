//
// TextSafety.cpp
//
// BlueTusk samples.
//

#include "TextSafety.h"
#include <cstdio>

namespace BlueTusk {
namespace Samples {

namespace {

const char* const REPLACEMENT = "\xEF\xBF\xBD"; // U+FFFD


std::size_t sequenceLength(const std::string& text, std::size_t pos)
	/// The length of the well-formed UTF-8 sequence at pos, or 0.
{
	const unsigned char lead = static_cast<unsigned char>(text[pos]);
	if (lead < 0x80) return 1;
	std::size_t length = 0;
	unsigned char low = 0x80, high = 0xBF; // the range of the second byte
	if (lead >= 0xC2 && lead <= 0xDF) length = 2;
	else if (lead >= 0xE0 && lead <= 0xEF)
	{
		length = 3;
		if (lead == 0xE0) low = 0xA0;        // no overlong forms
		if (lead == 0xED) high = 0x9F;       // no surrogates
	}
	else if (lead >= 0xF0 && lead <= 0xF4)
	{
		length = 4;
		if (lead == 0xF0) low = 0x90;        // no overlong forms
		if (lead == 0xF4) high = 0x8F;       // nothing above U+10FFFF
	}
	else return 0;
	if (pos + length > text.size()) return 0;
	for (std::size_t i = 1; i < length; ++i)
	{
		const unsigned char c = static_cast<unsigned char>(text[pos + i]);
		if (i == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xBF)) return 0;
	}
	return length;
}


std::string hex(unsigned int value)
{
	char buffer[8];
	std::snprintf(buffer, sizeof(buffer), "\\x%02X", value);
	return buffer;
}

} // namespace


std::string validUtf8(const std::string& text)
{
	std::string result;
	result.reserve(text.size());
	for (std::size_t pos = 0; pos < text.size();)
	{
		const std::size_t length = sequenceLength(text, pos);
		if (length == 0)
		{
			result += REPLACEMENT;
			++pos;
			continue;
		}
		result.append(text, pos, length);
		pos += length;
	}
	return result;
}


std::string terminalSafe(const std::string& text, bool keepNewlines)
{
	const std::string valid = validUtf8(text);
	std::string result;
	result.reserve(valid.size());
	for (std::size_t pos = 0; pos < valid.size(); ++pos)
	{
		const unsigned char c = static_cast<unsigned char>(valid[pos]);
		if (c == '\n' && keepNewlines) result += '\n';
		else if (c < 0x20 || c == 0x7F) result += hex(c);
		else if (c == 0xC2 && pos + 1 < valid.size() && static_cast<unsigned char>(valid[pos + 1]) <= 0x9F)
		{
			result += hex(static_cast<unsigned char>(valid[pos + 1])); // a C1 control, U+0080..U+009F
			++pos;
		}
		else result += static_cast<char>(c);
	}
	return result;
}

} } // namespace BlueTusk::Samples
