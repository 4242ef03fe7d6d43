//
// StartupParameters.h
//
// Library: BlueTusk/Transport
//
// The parameters of the StartupMessage (PostgreSQL docs 55.7, "StartupMessage") for a session's settings.
//

#ifndef BlueTusk_Detail_StartupParameters_INCLUDED
#define BlueTusk_Detail_StartupParameters_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include <string>
#include <utility>
#include <vector>

namespace BlueTusk {
namespace Detail {

std::vector<std::pair<std::string, std::string>> startupParameters(const ConnectionSettings& settings);
	/// In this order: user; database (the user name when empty); application_name (Application Name, or
	/// Fallback Application Name when that is empty; left out when both are); client_encoding UTF8 (the
	/// only encoding BlueTusk decodes); options (Options, then "-c search_path=<Search Path>" escaped by
	/// escapeOption(); left out when both are empty). As libpq's build_startup_packet(). Throws nothing.

std::string escapeOption(const std::string& value);
	/// value as one word of the options parameter: '\\' and white space preceded by '\\', which the server
	/// removes when it splits the options at white space (PostgreSQL docs 34.1.2, "options").

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_StartupParameters_INCLUDED
