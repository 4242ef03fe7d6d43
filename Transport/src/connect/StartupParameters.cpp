//
// StartupParameters.cpp
//
// Library: BlueTusk/Transport
//

#include "StartupParameters.h"

namespace BlueTusk {
namespace Detail {

std::vector<std::pair<std::string, std::string>> startupParameters(const ConnectionSettings& settings)
{
	std::vector<std::pair<std::string, std::string>> parameters;
	parameters.emplace_back("user", settings.username);
	parameters.emplace_back("database", settings.database.empty() ? settings.username : settings.database);
	const std::string& applicationName = settings.applicationName.empty() ? settings.fallbackApplicationName : settings.applicationName;
	if (!applicationName.empty()) parameters.emplace_back("application_name", applicationName);
	parameters.emplace_back("client_encoding", "UTF8");
	std::string options = settings.options;
	if (!settings.searchPath.empty())
		options += std::string(options.empty() ? "" : " ") + "-c " + escapeOption("search_path=" + settings.searchPath);
	if (!options.empty()) parameters.emplace_back("options", options);
	return parameters;
}


std::string escapeOption(const std::string& value)
{
	std::string escaped;
	for (char c: value)
	{
		if (c == '\\' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') escaped += '\\';
		escaped += c;
	}
	return escaped;
}

} } // namespace BlueTusk::Detail
