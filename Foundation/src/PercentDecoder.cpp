//
// PercentDecoder.cpp
//
// Library: BlueTusk/Foundation
//

#include "PercentDecoder.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {
namespace Detail {

namespace {

int hexValue(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

} // namespace


std::string percentDecode(const std::string& text, std::size_t offset)
{
	std::string result;
	result.reserve(text.size());
	for (std::size_t i = 0; i < text.size(); ++i)
	{
		if (text[i] != '%')
		{
			result += text[i];
			continue;
		}
		const int high = i + 1 < text.size() ? hexValue(text[i + 1]) : -1;
		const int low = i + 2 < text.size() ? hexValue(text[i + 2]) : -1;
		if (high < 0 || low < 0)
			throw BlueTuskConnectionStringException("bad percent escape at " + position(offset + i) + ": '%' must be followed by two hexadecimal digits");
		const int byte = high * 16 + low;
		if (byte == 0)
			throw BlueTuskConnectionStringException("percent escape %00 at " + position(offset + i) + " is not allowed: a setting cannot contain a NUL byte");
		result += static_cast<char>(byte);
		i += 2;
	}
	return result;
}

} } // namespace BlueTusk::Detail
