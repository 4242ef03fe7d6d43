//
// SettingValues.h
//
// Library: BlueTusk/Foundation
//
// Parsers for the value types of connection string keywords: booleans, seconds, counts, port numbers.
//

#ifndef BlueTusk_Detail_SettingValues_INCLUDED
#define BlueTusk_Detail_SettingValues_INCLUDED

#include "Poco/Timespan.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {
namespace Detail {

// Every function takes the keyword as the user wrote it (or the environment variable's name) for its
// message and throws BlueTuskConnectionStringException naming it, the value and what is accepted.
// None may be used for the Password value.

bool parseBoolean(const std::string& value, const std::string& keyword);
	/// true, yes, on, 1 / false, no, off, 0 (any letter case, surrounding white space ignored).

bool isBooleanText(const std::string& value, bool& result);
	/// As parseBoolean, without throwing: false when value is not a boolean word.

Poco::Timespan parseSeconds(const std::string& value, const std::string& keyword);
	/// A non-negative number of seconds, decimals accepted ("2", "0.25", "1.5"; a BlueTusk extension:
	/// libpq and Npgsql take whole seconds), at most 2147483647; digits beyond microseconds are dropped.
	/// A negative value gets its own message ("must not be negative").

int parseCount(const std::string& value, const std::string& keyword);
	/// A whole number 0..2147483647.

Poco::UInt16 parsePortNumber(const std::string& value, const std::string& keyword);
	/// A TCP port 1..65535 written in decimal digits.

std::string formatSeconds(const Poco::Timespan& span);
	/// The inverse of parseSeconds: "15", "0.25".

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_SettingValues_INCLUDED
