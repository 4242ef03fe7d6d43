//
// PasswordFile.cpp
//
// Library: BlueTusk/Transport
//

#include "PasswordFile.h"
#include "BlueTusk/LocalUser.h"
#include "Poco/Environment.h"
#include "Poco/Logger.h"
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace BlueTusk {

namespace {

bool splitLine(const std::string& line, std::vector<std::string>& fields)
	/// Splits "a:b:c:d:password" honouring backslash escapes; the fifth field takes the rest of the line.
{
	fields.assign(1, std::string());
	for (std::size_t i = 0; i < line.size(); ++i)
	{
		char c = line[i];
		if (c == '\\' && i + 1 < line.size())
		{
			fields.back() += line[++i];
		}
		else if (c == ':' && fields.size() < 5)
		{
			fields.emplace_back();
		}
		else
		{
			fields.back() += c;
		}
	}
	return fields.size() == 5;
}


bool matches(const std::string& field, const std::string& value)
{
	return field == "*" || field == value;
}

} // namespace


std::string PasswordFile::defaultPath()
{
	std::string home = LocalUser::homeDirectory(Poco::Environment::get("HOME", ""));
	if (home.empty()) return std::string();
	if (home.back() != '/') home += '/';
	return home + ".pgpass";
}


std::string PasswordFile::pathFor(const ConnectionSettings& settings)
{
	return settings.passfile.empty() ? defaultPath() : settings.passfile;
}


std::optional<std::string> PasswordFile::lookup(std::istream& lines, const std::string& host, Poco::UInt16 port, const std::string& database, const std::string& user)
{
	const std::string portText = std::to_string(port);
	std::string line;
	std::vector<std::string> fields;
	while (std::getline(lines, line))
	{
		if (!line.empty() && line.back() == '\r') line.pop_back();
		if (line.empty() || line[0] == '#') continue;
		if (!splitLine(line, fields)) continue;
		if (matches(fields[0], host) && matches(fields[1], portText) && matches(fields[2], database) && matches(fields[3], user))
			return fields[4];
	}
	return std::nullopt;
}


std::optional<std::string> PasswordFile::lookup(const std::string& path, const std::string& host, Poco::UInt16 port, const std::string& database, const std::string& user)
{
	if (path.empty()) return std::nullopt;
	struct stat info;
	if (::stat(path.c_str(), &info) != 0) return std::nullopt;
	static Poco::Logger& logger = Poco::Logger::get("BlueTusk.Transport");
	if (!S_ISREG(info.st_mode))
	{
		logger.warning("password file \"%s\" is not a plain file; ignored", path);
		return std::nullopt;
	}
	if (info.st_mode & (S_IRWXG | S_IRWXO))
	{
		logger.warning("password file \"%s\" has group or world access; permissions should be u=rw (0600) or less; ignored", path);
		return std::nullopt;
	}
	std::ifstream in(path);
	if (!in) return std::nullopt;
	return lookup(in, host, port, database, user);
}


std::optional<std::string> PasswordFile::passwordFor(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings)
{
	const std::string path = pathFor(settings);
	const std::string database = settings.database.empty() ? settings.username : settings.database;
	std::optional<std::string> password = lookup(path, endpoint.host(), endpoint.port(), database, settings.username);
	if (!password && endpoint.isUnixSocket())
		password = lookup(path, "localhost", endpoint.port(), database, settings.username);
	return password;
}

} // namespace BlueTusk
