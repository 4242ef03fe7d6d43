//
// WireValue.h
//
// Library: BlueTusk/Transport
//
// Helpers shared by the parameter encoder and the value decoder: big-endian integers, PostgreSQL's
// 2000-01-01 epoch, and the text forms of dates, times and timestamps (ISO DateStyle).
//

#ifndef BlueTusk_Detail_WireValue_INCLUDED
#define BlueTusk_Detail_WireValue_INCLUDED

#include "Poco/Types.h"
#include <cstring>
#include <limits>
#include <string>

namespace BlueTusk {
namespace Detail {

constexpr Poco::Int64 USECS_PER_DAY = 86400LL * 1000000LL;
constexpr Poco::Int64 POSTGRES_EPOCH_UNIX_USECS = 946684800LL * 1000000LL;
	/// 2000-01-01 00:00:00 UTC, PostgreSQL's epoch for date and timestamp values, in Unix microseconds.
constexpr Poco::Int32 POSTGRES_EPOCH_UNIX_DAYS = 10957;
constexpr Poco::Int64 TIMESTAMP_INFINITY = std::numeric_limits<Poco::Int64>::max();      /// 'infinity'
constexpr Poco::Int64 TIMESTAMP_MINUS_INFINITY = std::numeric_limits<Poco::Int64>::min(); /// '-infinity'
constexpr Poco::Int32 DATE_INFINITY = std::numeric_limits<Poco::Int32>::max();
constexpr Poco::Int32 DATE_MINUS_INFINITY = std::numeric_limits<Poco::Int32>::min();


inline void putBigEndian(std::string& out, Poco::UInt64 value, int bytes)
{
	for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xFF));
}


inline Poco::UInt64 getBigEndian(const char* data, int bytes)
{
	Poco::UInt64 value = 0;
	for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(data[i]);
	return value;
}


inline Poco::UInt64 doubleBits(double value)
{
	Poco::UInt64 bits;
	std::memcpy(&bits, &value, sizeof bits);
	return bits;
}


inline double bitsDouble(Poco::UInt64 bits)
{
	double value;
	std::memcpy(&value, &bits, sizeof value);
	return value;
}


inline float bitsFloat(Poco::UInt32 bits)
{
	float value;
	std::memcpy(&value, &bits, sizeof value);
	return value;
}


inline Poco::UInt32 floatBits(float value)
{
	Poco::UInt32 bits;
	std::memcpy(&bits, &value, sizeof bits);
	return bits;
}


struct CivilDate
{
	Poco::Int64 year;  /// astronomical: 0 is 1 BC
	int month;
	int day;
};

Poco::Int64 daysFromCivil(Poco::Int64 year, int month, int day);
	/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).

CivilDate civilFromDays(Poco::Int64 days);
	/// The inverse of daysFromCivil.

std::string formatDate(Poco::Int32 pgDays);
	/// ISO "2024-02-29" ("0044-03-15 BC" before year 1; "infinity", "-infinity").

std::string formatTime(Poco::Int64 microseconds);
	/// "12:34:56" or "12:34:56.5" (trailing fraction zeros dropped, as PostgreSQL prints).

std::string formatTimestamp(Poco::Int64 pgMicroseconds, bool withZone);
	/// "2024-02-29 12:34:56.123456", with "+00" when withZone (the value is UTC); infinities as words.

std::string formatDouble(double value);
	/// The shortest text that reads back to value; "NaN", "Infinity", "-Infinity" as PostgreSQL writes.

std::string formatUuid(const char* sixteenBytes);
	/// "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11".

bool parseDate(const std::string& text, Poco::Int32& pgDays);
	/// ISO date ("2024-02-29", optional " BC", "infinity", "-infinity"); false when malformed.

bool parseTime(const std::string& text, Poco::Int64& microseconds);
	/// "HH:MM[:SS[.ffffff]]"; false when malformed.

bool parseTimestamp(const std::string& text, Poco::Int64& pgMicroseconds);
	/// ISO "YYYY-MM-DD HH:MM:SS[.ffffff][+hh[:mm[:ss]]]" (the offset, when present, is applied so the result
	/// is UTC), optional " BC", "infinity", "-infinity"; false when malformed.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_WireValue_INCLUDED
