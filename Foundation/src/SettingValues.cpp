//
// SettingValues.cpp
//
// Library: BlueTusk/Foundation
//

#include "SettingValues.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include <cstdint>

namespace BlueTusk {
namespace Detail {

namespace {

const std::int64_t maxWholeNumber = 2147483647;


bool allDigits(const std::string& text)
{
	if (text.empty()) return false;
	for (char c: text)
	{
		if (c < '0' || c > '9') return false;
	}
	return true;
}


bool parseWhole(const std::string& digits, std::int64_t limit, std::int64_t& result)
	/// digits (all decimal digits) as a number; false when it exceeds limit.
{
	result = 0;
	for (char c: digits)
	{
		result = result * 10 + (c - '0');
		if (result > limit) return false;
	}
	return true;
}

} // namespace


bool isBooleanText(const std::string& value, bool& result)
{
	const std::string word = asciiLower(trim(value));
	if (word == "true" || word == "yes" || word == "on" || word == "1")
	{
		result = true;
		return true;
	}
	if (word == "false" || word == "no" || word == "off" || word == "0")
	{
		result = false;
		return true;
	}
	return false;
}


bool parseBoolean(const std::string& value, const std::string& keyword)
{
	bool result = false;
	if (!isBooleanText(value, result))
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(value) + " is not a boolean; accepted values: true, false, yes, no, on, off, 1, 0");
	return result;
}


Poco::Timespan parseSeconds(const std::string& value, const std::string& keyword)
{
	const std::string text = trim(value);
	if (!text.empty() && text[0] == '-')
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is negative; a number of seconds must be 0 or more");
	const std::size_t dot = text.find('.');
	const std::string whole = text.substr(0, dot);
	const std::string fraction = dot == std::string::npos ? std::string() : text.substr(dot + 1);
	const bool wellFormed = (allDigits(whole) && (dot == std::string::npos || fraction.empty() || allDigits(fraction))) ||
		(whole.empty() && allDigits(fraction));
	if (!wellFormed)
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is not a number of seconds; expected e.g. 15 or 2.5");
	std::int64_t seconds = 0;
	if (!parseWhole(whole, maxWholeNumber, seconds))
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is too large; at most 2147483647 seconds");
	std::int64_t micros = 0;
	std::int64_t scale = 100000;
	for (std::size_t i = 0; i < fraction.size() && scale > 0; ++i, scale /= 10)
		micros += (fraction[i] - '0') * scale;
	return Poco::Timespan(seconds * Poco::Timespan::SECONDS + micros);
}


int parseCount(const std::string& value, const std::string& keyword)
{
	const std::string text = trim(value);
	if (!text.empty() && text[0] == '-')
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is negative; expected a whole number 0 or more");
	std::int64_t result = 0;
	if (!allDigits(text))
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is not a whole number");
	if (!parseWhole(text, maxWholeNumber, result))
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is too large; at most 2147483647");
	return static_cast<int>(result);
}


Poco::UInt16 parsePortNumber(const std::string& value, const std::string& keyword)
{
	const std::string text = trim(value);
	if (text.empty())
		throw BlueTuskConnectionStringException(keyword + ": empty port; expected a number 1..65535");
	if (!allDigits(text))
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is not a port number; expected 1..65535");
	std::int64_t port = 0;
	if (!parseWhole(text, 65535, port) || port == 0)
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is out of range for a port; expected 1..65535");
	return static_cast<Poco::UInt16>(port);
}


std::string formatSeconds(const Poco::Timespan& span)
{
	const Poco::Timespan::TimeDiff micros = span.totalMicroseconds();
	std::string text = std::to_string(micros / Poco::Timespan::SECONDS);
	Poco::Timespan::TimeDiff fraction = micros % Poco::Timespan::SECONDS;
	if (fraction != 0)
	{
		std::string digits = std::to_string(fraction);
		digits.insert(0, 6 - digits.size(), '0');
		while (!digits.empty() && digits.back() == '0') digits.pop_back();
		text += "." + digits;
	}
	return text;
}

} } // namespace BlueTusk::Detail
