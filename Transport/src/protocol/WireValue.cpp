//
// WireValue.cpp
//
// Library: BlueTusk/Transport
//
// Dates and times in PostgreSQL's text forms (ISO DateStyle, PostgreSQL docs 8.5.2) and the calendar
// arithmetic behind them (the proleptic Gregorian calendar, as PostgreSQL uses).
//

#include "WireValue.h"
#include <charconv>
#include <cmath>
#include <cstdio>

namespace BlueTusk {
namespace Detail {

namespace {

Poco::Int64 floorDiv(Poco::Int64 a, Poco::Int64 b)
{
	Poco::Int64 q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
	return q;
}


void appendTwo(std::string& out, int value)
{
	out.push_back(static_cast<char>('0' + value / 10));
	out.push_back(static_cast<char>('0' + value % 10));
}


void appendCivil(std::string& out, const CivilDate& date, bool& bc)
{
	Poco::Int64 year = date.year;
	bc = year <= 0;
	if (bc) year = 1 - year;   // astronomical 0 is 1 BC
	char buffer[32];
	std::snprintf(buffer, sizeof buffer, "%04lld-", static_cast<long long>(year));
	out += buffer;
	appendTwo(out, date.month);
	out.push_back('-');
	appendTwo(out, date.day);
}


void appendClock(std::string& out, Poco::Int64 microseconds)
{
	const Poco::Int64 seconds = microseconds / 1000000;
	appendTwo(out, static_cast<int>(seconds / 3600));
	out.push_back(':');
	appendTwo(out, static_cast<int>(seconds / 60 % 60));
	out.push_back(':');
	appendTwo(out, static_cast<int>(seconds % 60));
	int fraction = static_cast<int>(microseconds % 1000000);
	if (fraction == 0) return;
	char digits[8];
	std::snprintf(digits, sizeof digits, "%06d", fraction);
	std::string text(digits);
	while (!text.empty() && text.back() == '0') text.pop_back();
	out.push_back('.');
	out += text;
}


// A cursor over the text being parsed.
struct Scanner
{
	const std::string& text;
	std::size_t pos = 0;

	bool number(int minDigits, int maxDigits, Poco::Int64& value)
	{
		std::size_t start = pos;
		value = 0;
		while (pos < text.size() && pos - start < static_cast<std::size_t>(maxDigits) && text[pos] >= '0' && text[pos] <= '9')
			value = value * 10 + (text[pos++] - '0');
		return pos - start >= static_cast<std::size_t>(minDigits);
	}

	bool literal(char c)
	{
		if (pos < text.size() && text[pos] == c)
		{
			++pos;
			return true;
		}
		return false;
	}

	bool atEnd() const
	{
		return pos == text.size();
	}

	bool rest(const char* word)
	{
		if (text.compare(pos, std::string::npos, word) != 0) return false;
		pos = text.size();
		return true;
	}
};


bool scanDate(Scanner& s, Poco::Int64& days)
{
	Poco::Int64 year = 0, month = 0, day = 0;
	if (!s.number(4, 9, year) || !s.literal('-') || !s.number(2, 2, month) || !s.literal('-') || !s.number(2, 2, day)) return false;
	if (month < 1 || month > 12 || day < 1 || day > 31) return false;
	days = daysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
	if (civilFromDays(days).day != day) return false;   // e.g. 2023-02-29
	return true;
}


bool scanClock(Scanner& s, Poco::Int64& microseconds)
{
	Poco::Int64 hour = 0, minute = 0, second = 0, fraction = 0;
	if (!s.number(2, 2, hour) || !s.literal(':') || !s.number(2, 2, minute)) return false;
	if (s.literal(':'))
	{
		if (!s.number(2, 2, second)) return false;
		if (s.literal('.'))
		{
			std::size_t start = s.pos;
			if (!s.number(1, 6, fraction)) return false;
			for (std::size_t digits = s.pos - start; digits < 6; ++digits) fraction *= 10;
			while (s.pos < s.text.size() && s.text[s.pos] >= '0' && s.text[s.pos] <= '9') ++s.pos;   // beyond microseconds
		}
	}
	if (hour > 24 || minute > 59 || second > 60) return false;
	microseconds = ((hour * 60 + minute) * 60 + second) * 1000000 + fraction;
	return microseconds <= USECS_PER_DAY;
}


bool scanBc(Scanner& s, Poco::Int64& days)
	/// An optional " BC" suffix: the year written is 1 BC = astronomical 0.
{
	if (s.atEnd()) return true;
	if (!s.rest(" BC")) return false;
	const CivilDate date = civilFromDays(days);
	days = daysFromCivil(1 - date.year, date.month, date.day);
	return true;
}

} // namespace


Poco::Int64 daysFromCivil(Poco::Int64 year, int month, int day)
{
	year -= month <= 2;
	const Poco::Int64 era = floorDiv(year, 400);
	const Poco::Int64 yoe = year - era * 400;
	const Poco::Int64 doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	const Poco::Int64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}


CivilDate civilFromDays(Poco::Int64 days)
{
	days += 719468;
	const Poco::Int64 era = floorDiv(days, 146097);
	const Poco::Int64 doe = days - era * 146097;
	const Poco::Int64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const Poco::Int64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const Poco::Int64 mp = (5 * doy + 2) / 153;
	const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
	const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
	return CivilDate{yoe + era * 400 + (month <= 2), month, day};
}


std::string formatDate(Poco::Int32 pgDays)
{
	if (pgDays == DATE_INFINITY) return "infinity";
	if (pgDays == DATE_MINUS_INFINITY) return "-infinity";
	std::string out;
	bool bc = false;
	appendCivil(out, civilFromDays(static_cast<Poco::Int64>(pgDays) + POSTGRES_EPOCH_UNIX_DAYS), bc);
	if (bc) out += " BC";
	return out;
}


std::string formatTime(Poco::Int64 microseconds)
{
	std::string out;
	appendClock(out, microseconds);
	return out;
}


std::string formatTimestamp(Poco::Int64 pgMicroseconds, bool withZone)
{
	if (pgMicroseconds == TIMESTAMP_INFINITY) return "infinity";
	if (pgMicroseconds == TIMESTAMP_MINUS_INFINITY) return "-infinity";
	const Poco::Int64 days = floorDiv(pgMicroseconds, USECS_PER_DAY);
	std::string out;
	bool bc = false;
	appendCivil(out, civilFromDays(days + POSTGRES_EPOCH_UNIX_DAYS), bc);
	out.push_back(' ');
	// the remainder, not pgMicroseconds - days * USECS_PER_DAY: that overflows near INT64_MIN (fuzz/ValueCodecFuzzer)
	const Poco::Int64 rest = pgMicroseconds % USECS_PER_DAY;
	appendClock(out, rest < 0 ? rest + USECS_PER_DAY : rest);
	if (withZone) out += "+00";
	if (bc) out += " BC";
	return out;
}


std::string formatDouble(double value)
{
	if (std::isnan(value)) return "NaN";
	if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
	char buffer[64];
	auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
	return std::string(buffer, result.ptr);
}


std::string formatUuid(const char* bytes)
{
	static const char HEX[] = "0123456789abcdef";
	std::string out;
	out.reserve(36);
	for (int i = 0; i < 16; ++i)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
		const unsigned char byte = static_cast<unsigned char>(bytes[i]);
		out.push_back(HEX[byte >> 4]);
		out.push_back(HEX[byte & 0x0F]);
	}
	return out;
}


bool parseDate(const std::string& text, Poco::Int32& pgDays)
{
	if (text == "infinity") { pgDays = DATE_INFINITY; return true; }
	if (text == "-infinity") { pgDays = DATE_MINUS_INFINITY; return true; }
	Scanner s{text};
	Poco::Int64 days = 0;
	if (!scanDate(s, days) || !scanBc(s, days)) return false;
	days -= POSTGRES_EPOCH_UNIX_DAYS;
	if (days <= DATE_MINUS_INFINITY || days >= DATE_INFINITY) return false;
	pgDays = static_cast<Poco::Int32>(days);
	return true;
}


bool parseTime(const std::string& text, Poco::Int64& microseconds)
{
	Scanner s{text};
	return scanClock(s, microseconds) && s.atEnd();
}


bool parseTimestamp(const std::string& text, Poco::Int64& pgMicroseconds)
{
	if (text == "infinity") { pgMicroseconds = TIMESTAMP_INFINITY; return true; }
	if (text == "-infinity") { pgMicroseconds = TIMESTAMP_MINUS_INFINITY; return true; }
	Scanner s{text};
	Poco::Int64 days = 0, clock = 0;
	if (!scanDate(s, days) || !(s.literal(' ') || s.literal('T')) || !scanClock(s, clock)) return false;
	Poco::Int64 offsetSeconds = 0;
	if (s.pos < text.size() && (text[s.pos] == '+' || text[s.pos] == '-'))
	{
		const bool negative = text[s.pos++] == '-';
		Poco::Int64 hours = 0, minutes = 0, seconds = 0;
		if (!s.number(2, 2, hours)) return false;
		if (s.literal(':') && !s.number(2, 2, minutes)) return false;
		if (s.literal(':') && !s.number(2, 2, seconds)) return false;
		offsetSeconds = (hours * 3600 + minutes * 60 + seconds) * (negative ? -1 : 1);
	}
	if (!scanBc(s, days)) return false;
	// a year beyond PostgreSQL's (294276) must not overflow (found by fuzz/ValueCodecFuzzer): not a timestamp
	Poco::Int64 dayMicroseconds = 0;
	return !__builtin_mul_overflow(days - POSTGRES_EPOCH_UNIX_DAYS, USECS_PER_DAY, &dayMicroseconds) &&
		!__builtin_add_overflow(dayMicroseconds, clock - offsetSeconds * 1000000, &pgMicroseconds);
}

} } // namespace BlueTusk::Detail
