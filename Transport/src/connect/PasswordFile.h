//
// PasswordFile.h
//
// Library: BlueTusk/Transport
//
// Looking up a password in a libpq password file (~/.pgpass).
//

#ifndef BlueTusk_PasswordFile_INCLUDED
#define BlueTusk_PasswordFile_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "Poco/Types.h"
#include <istream>
#include <optional>
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API PasswordFile
	/// libpq's password file (PostgreSQL docs 34.16 "The Password File"): lines
	/// "hostname:port:database:username:password"; '#' starts a comment line; each of the first four
	/// fields matches literally or is "*"; a backslash escapes ':' and '\'; the first matching line wins.
	/// A file that group or others may access is ignored with a warning through Poco::Logger
	/// "BlueTusk.Transport" (as libpq). The host matched is the host as written; for a Unix-socket
	/// directory, "localhost" matches too. Thread-safe (no state). Never logs a password.
{
public:
	static std::string defaultPath();
		/// "$HOME/.pgpass" (the home directory from HOME, else the password database), or "" if unknown.

	static std::string pathFor(const ConnectionSettings& settings);
		/// settings.passfile (the parser already folded PGPASSFILE into it), else defaultPath().

	static std::optional<std::string> lookup(std::istream& lines, const std::string& host, Poco::UInt16 port, const std::string& database, const std::string& user);
		/// The password of the first matching line, if any (the matching rules only; no file checks).

	static std::optional<std::string> lookup(const std::string& path, const std::string& host, Poco::UInt16 port, const std::string& database, const std::string& user);
		/// As above, reading path: a missing file gives nothing; a file that is not a regular file, or is
		/// accessible by group or others, is ignored with a warning.

	static std::optional<std::string> passwordFor(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings);
		/// The password for endpoint from pathFor(settings), with settings.database (or the user name when
		/// empty) and settings.username; for a socket directory both the directory and "localhost" match.
};

} // namespace BlueTusk

#endif // BlueTusk_PasswordFile_INCLUDED
