//
// LibpqKeywordValues.h
//
// Library: BlueTusk/Foundation
//
// Value parsers for the libpq keywords of libpq (doc/connection-strings.md, "libpq keywords"):
// client_encoding, the keepalive family, and the keywords BlueTusk refuses with a reason.
//

#ifndef BlueTusk_Detail_LibpqKeywordValues_INCLUDED
#define BlueTusk_Detail_LibpqKeywordValues_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "Poco/Timespan.h"
#include <string>

namespace BlueTusk {
namespace Detail {

// Every function takes the keyword as written (or the environment variable) for its message and throws
// BlueTuskConnectionStringException naming it.

void checkClientEncoding(const std::string& value, const std::string& keyword);
	/// client_encoding: BlueTusk decodes every text as UTF-8, so it accepts what PostgreSQL reads as UTF8
	/// (case, '-' and '_' ignored: UTF8, utf-8, unicode) and "auto" when the locale's character set
	/// (nl_langinfo(CODESET) of LC_CTYPE, as libpq's auto) is UTF-8 or ASCII (the C / POSIX locale;
	/// ASCII is a subset of UTF-8). Anything else is refused, naming the encoding (or the locale's
	/// character set) and saying that BlueTusk speaks UTF8 only.

std::string localeCharacterSet();
	/// nl_langinfo(CODESET) for the current LC_CTYPE, e.g. "UTF-8", "ANSI_X3.4-1968", "ISO-8859-1".

bool isUtf8CompatibleCharacterSet(const std::string& characterSet);
	/// True for UTF-8 (any spelling) and ASCII (ANSI_X3.4-1968, US-ASCII, ASCII).

ConnectionSettings::Keepalives parseKeepalives(const std::string& value, const std::string& keyword);
	/// keepalives: 1 / 0 as libpq (any whole number: non-zero is on), or a boolean word.

Poco::Timespan parseKeepaliveSeconds(const std::string& value, const std::string& keyword);
	/// keepalives_idle / keepalives_interval: whole seconds 0..32767 (Linux's limit for TCP_KEEPIDLE and
	/// TCP_KEEPINTVL).

int parseKeepaliveCount(const std::string& value, const std::string& keyword);
	/// keepalives_count: 0..127 (Linux's limit for TCP_KEEPCNT).

void checkReplication(const std::string& value, const std::string& keyword);
	/// replication: a false boolean ("false", "0", "off", ...: an ordinary session, which is what BlueTusk
	/// opens) is accepted; true or database (a walsender session for the streaming replication
	/// protocol) is refused with the reason.

void checkGssLibrary(const std::string& value, const std::string& keyword);
	/// gsslib: "gssapi" (the only library off Windows, which libpq then disregards) is accepted; "sspi"
	/// is refused (SSPI exists only on Windows); anything else names the accepted value.

[[noreturn]] void refuseKeyword(const std::string& keyword, const std::string& reason);
	/// Throws "<keyword>: not supported by BlueTusk: <reason>" (the value is never echoed: some of these
	/// keywords carry secrets).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_LibpqKeywordValues_INCLUDED
