//
// ServiceFile.h
//
// Library: BlueTusk/Foundation
//
// libpq's connection service file (PostgreSQL docs 34.17, "The Connection Service File"): finds a named
// service in the user's and the system's pg_service.conf and gives its keyword/value lines.
//

#ifndef BlueTusk_Detail_ServiceFile_INCLUDED
#define BlueTusk_Detail_ServiceFile_INCLUDED

#include "KeywordValue.h"
#include <istream>
#include <map>
#include <string>

namespace BlueTusk {
namespace Detail {

const char* const serviceFileVariables[] = {"PGSYSCONFDIR", "HOME"};
	/// The environment variables (besides PGSERVICE and PGSERVICEFILE, the keywords' own) that decide where
	/// the service files are.

struct ServiceDefinition
	/// The lines of one service: keyword and value trimmed, position = the 1-based line number.
{
	std::string file;       /// the file the service was found in
	KeywordValueList lines; /// in file order
};

std::string userServiceFile(const std::string& serviceFile, const std::map<std::string, std::string>& environment);
	/// serviceFile (the Service File keyword or PGSERVICEFILE) when not empty, else
	/// <home>/.pg_service.conf with the home directory of LocalUser::homeDirectory($HOME of environment).

std::string systemServiceFile(const std::map<std::string, std::string>& environment);
	/// $PGSYSCONFDIR/pg_service.conf, or /etc/postgresql-common/pg_service.conf (where Debian's libpq is built
	/// to look) when PGSYSCONFDIR is unset or empty.

bool readService(std::istream& input, const std::string& file, const std::string& service, ServiceDefinition& definition);
	/// Reads libpq's format: lines are trimmed; empty lines and lines starting with '#' are skipped;
	/// "[name]" starts a section; inside the section named service every other line is "keyword=value"
	/// (white space around both dropped). True when the section was found (the first one of that name;
	/// it ends at the next section). Throws BlueTuskConnectionStringException naming file and line for a
	/// line without '=' and for a "service" or "servicefile" line (nested services are not supported, as
	/// in libpq). Lines of other sections are not checked.

ServiceDefinition findService(const std::string& service, const std::string& serviceFile, const std::map<std::string, std::string>& environment);
	/// libpq's search (parseServiceInfo): the user's file (userServiceFile()) and, only when the service
	/// is not there, the system's (systemServiceFile()); a file that does not exist is skipped. Throws
	/// BlueTuskConnectionStringException "Service: definition of service "x" not found (looked in ...)",
	/// naming every file and whether it exists, or for a file that exists but cannot be read, or as
	/// readService().

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ServiceFile_INCLUDED
