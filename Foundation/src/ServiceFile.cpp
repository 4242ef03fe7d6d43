//
// ServiceFile.cpp
//
// Library: BlueTusk/Foundation
//

#include "ServiceFile.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/LocalUser.h"
#include <fstream>
#include <sys/stat.h>
#include <vector>

namespace BlueTusk {
namespace Detail {

namespace {

std::string variable(const std::map<std::string, std::string>& environment, const char* name)
{
	const auto found = environment.find(name);
	return found == environment.end() ? std::string() : found->second;
}


bool exists(const std::string& path)
{
	struct stat status;
	return !path.empty() && ::stat(path.c_str(), &status) == 0;
}


std::string where(const std::string& file, std::size_t line)
{
	return "service file " + quoted(file) + ", line " + std::to_string(line);
}

} // namespace


std::string userServiceFile(const std::string& serviceFile, const std::map<std::string, std::string>& environment)
{
	if (!serviceFile.empty()) return serviceFile;
	std::string home = LocalUser::homeDirectory(variable(environment, "HOME"));
	if (home.empty()) return std::string();
	if (home.back() != '/') home += '/';
	return home + ".pg_service.conf";
}


std::string systemServiceFile(const std::map<std::string, std::string>& environment)
{
	std::string directory = variable(environment, "PGSYSCONFDIR");
	if (directory.empty()) directory = "/etc/postgresql-common";
	if (directory.back() != '/') directory += '/';
	return directory + "pg_service.conf";
}


bool readService(std::istream& input, const std::string& file, const std::string& service, ServiceDefinition& definition)
{
	bool inService = false;
	std::string raw;
	for (std::size_t number = 1; std::getline(input, raw); ++number)
	{
		const std::string line = trim(raw);
		if (line.empty() || line[0] == '#') continue;
		if (line[0] == '[')
		{
			if (inService) return true; // the next section ends ours
			const std::size_t close = line.find(']');
			inService = close != std::string::npos && line.substr(1, close - 1) == service;
			if (inService) definition.file = file;
			continue;
		}
		if (!inService) continue;
		const std::size_t equals = line.find('=');
		if (equals == std::string::npos)
			throw BlueTuskConnectionStringException(where(file, number) + ": syntax error: expected keyword=value");
		KeywordValue pair;
		pair.keyword = trim(line.substr(0, equals));
		pair.value = trim(line.substr(equals + 1));
		pair.position = number;
		const std::string keyword = asciiLower(pair.keyword);
		if (keyword == "service" || keyword == "servicefile" || keyword == "service file")
			throw BlueTuskConnectionStringException(where(file, number) + ": nested service specifications are not supported");
		definition.lines.push_back(pair);
	}
	return inService;
}


ServiceDefinition findService(const std::string& service, const std::string& serviceFile, const std::map<std::string, std::string>& environment)
{
	// libpq (fe-connect.c, parseServiceInfo; t/006_service.pl): a file named by servicefile or PGSERVICEFILE
	// must exist; only ~/.pg_service.conf and the system file are skipped when missing
	if (!serviceFile.empty() && !exists(serviceFile))
		throw BlueTuskConnectionStringException("Service: service file " + quoted(serviceFile) + " not found (named by servicefile or PGSERVICEFILE)");
	const std::vector<std::string> files = {userServiceFile(serviceFile, environment), systemServiceFile(environment)};
	std::vector<std::string> looked;
	for (const std::string& file: files)
	{
		if (!exists(file))
		{
			if (!file.empty()) looked.push_back(file + " (does not exist)");
			continue;
		}
		std::ifstream input(file);
		if (!input)
			throw BlueTuskConnectionStringException("Service: the service file " + quoted(file) + " exists but cannot be read");
		ServiceDefinition definition;
		if (readService(input, file, service, definition)) return definition;
		looked.push_back(file);
	}
	throw BlueTuskConnectionStringException("Service: definition of service " + quoted(service) + " not found (looked in " +
		join(looked, ", ") + ")");
}

} } // namespace BlueTusk::Detail
