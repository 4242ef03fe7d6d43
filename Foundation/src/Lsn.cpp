//
// Lsn.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/Lsn.h"
#include "BlueTusk/BlueTuskException.h"
#include "ValueText.h"
#include "Poco/Exception.h"
#include <cstdio>
#include <limits>

namespace BlueTusk {

namespace {

bool parseHexHalf(const std::string& text, std::size_t begin, std::size_t end, Poco::UInt64& value)
	/// At most 8 hexadecimal digits (one 32-bit half of a pg_lsn).
{
	if (end <= begin || end - begin > 8) return false;
	value = 0;
	for (std::size_t i = begin; i < end; ++i)
	{
		const char c = text[i];
		int digit;
		if (c >= '0' && c <= '9') digit = c - '0';
		else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
		else return false;
		value = (value << 4) | static_cast<Poco::UInt64>(digit);
	}
	return true;
}


struct Unit
{
	const char* name;
	Poco::UInt64 factor;
};

const Unit UNITS[] = {{"B", 1}, {"kB", 1024}, {"MB", 1024 * 1024}, {"GB", 1024ull * 1024 * 1024}, {"TB", 1024ull * 1024 * 1024 * 1024}};

} // namespace


bool Lsn::tryParse(const std::string& text, Lsn& result)
{
	const std::string value = Detail::trim(text);
	const std::size_t slash = value.find('/');
	if (slash == std::string::npos) return false;
	Poco::UInt64 high = 0, low = 0;
	if (!parseHexHalf(value, 0, slash, high) || !parseHexHalf(value, slash + 1, value.size(), low)) return false;
	result = Lsn((high << 32) | low);
	return true;
}


Lsn Lsn::parse(const std::string& text)
{
	Lsn result;
	if (!tryParse(text, result))
		throw Poco::SyntaxException("not a WAL position (pg_lsn, e.g. 16/B374D848): \"" + text + "\"");
	return result;
}


Lsn Lsn::recordEnd(Lsn insertPosition, Poco::UInt64 blockSize, Poco::UInt64 segmentSize)
{
	const Poco::UInt64 SHORT_HEADER = 24;   // SizeOfXLogShortPHD (MAXALIGNed XLogPageHeaderData)
	const Poco::UInt64 LONG_HEADER = 40;    // SizeOfXLogLongPHD, the first page of a segment
	const Poco::UInt64 value = insertPosition.value();
	if (segmentSize > 0 && value % segmentSize == LONG_HEADER) return Lsn(value - LONG_HEADER);
	if (blockSize > 0 && value % blockSize == SHORT_HEADER && (segmentSize == 0 || value % segmentSize != SHORT_HEADER))
		return Lsn(value - SHORT_HEADER);
	return insertPosition;
}


std::string Lsn::toString() const
{
	char buffer[24];
	std::snprintf(buffer, sizeof(buffer), "%X/%X", static_cast<unsigned>(_value >> 32), static_cast<unsigned>(_value & 0xFFFFFFFFu));
	return buffer;
}


Poco::UInt64 parseByteSize(const std::string& text, const std::string& keyword)
{
	const std::string value = Detail::trim(text);
	auto fail = [&](const std::string& why)
	{
		throw BlueTuskConnectionStringException(keyword + ": " + Detail::quoted(value) + " " + why +
			"; expected a whole number of bytes, optionally with a unit B, kB, MB, GB or TB (e.g. 16MB)");
	};
	std::size_t digits = 0;
	Poco::UInt64 number = 0;
	while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9')
	{
		if (number > (std::numeric_limits<Poco::UInt64>::max() - 9) / 10) fail("is too large");
		number = number * 10 + static_cast<Poco::UInt64>(value[digits] - '0');
		++digits;
	}
	if (digits == 0) fail("is not a size");
	const std::string unit = Detail::trim(value.substr(digits));
	if (unit.empty())
	{
		if (number > (Poco::UInt64(1) << 63)) fail("is too large");
		return number;
	}
	for (const Unit& candidate: UNITS)
	{
		if (unit == candidate.name)
		{
			if (number > (Poco::UInt64(1) << 63) / candidate.factor) fail("is too large");
			return number * candidate.factor;
		}
	}
	fail(unit[0] == '.' ? "is not a whole number" : "has an unknown unit " + Detail::quoted(unit) + " (units are case-sensitive)");
	return 0; // not reached
}


std::string formatByteSize(Poco::UInt64 bytes)
{
	if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
	std::size_t index = 1;
	while (index + 1 < sizeof(UNITS) / sizeof(UNITS[0]) && bytes >= UNITS[index + 1].factor) ++index;
	const Unit& unit = UNITS[index];
	// One decimal, rounded half up, in integer arithmetic.
	const Poco::UInt64 tenths = bytes / unit.factor * 10 + ((bytes % unit.factor) * 10 + unit.factor / 2) / unit.factor;
	std::string text = std::to_string(tenths / 10);
	if (tenths % 10 != 0) text += "." + std::to_string(tenths % 10);
	return text + " " + unit.name;
}


std::string formatByteSizeSetting(Poco::UInt64 bytes)
{
	if (bytes == 0) return "0";
	for (std::size_t i = sizeof(UNITS) / sizeof(UNITS[0]); i-- > 0;)
	{
		if (bytes % UNITS[i].factor == 0) return std::to_string(bytes / UNITS[i].factor) + UNITS[i].name;
	}
	return std::to_string(bytes) + "B";
}

} // namespace BlueTusk
