//
// TopologySourceValue.cpp
//
// Library: BlueTusk/Foundation
//

#include "TopologySourceValue.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include <cctype>

namespace BlueTusk {
namespace Detail {

namespace {

bool isNameCharacter(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

} // namespace


std::string topologySource(const std::string& value, const std::string& source)
{
	const std::string text = trim(value);
	if (text.empty()) return text;
	const std::string::size_type colon = text.find(':');
	const std::string expected = "; expected <source>:<location>, e.g. patroni:http://10.0.0.1:8008,http://10.0.0.2:8008 "
		"or pg_auto_failover:<monitor connection string>";
	if (colon == std::string::npos || colon == 0)
		throw BlueTuskConnectionStringException(source + ": no source name before ':'" + expected);
	for (std::string::size_type i = 0; i < colon; ++i)
	{
		if (!isNameCharacter(text[i]))
			throw BlueTuskConnectionStringException(source + ": the source name may hold only letters, digits, '_', '-' and '.'" + expected);
	}
	if (text.compare(colon + 1, 2, "//") == 0)
		throw BlueTuskConnectionStringException(source + ": the value is a URL without a source name before it" + expected);
	if (trim(text.substr(colon + 1)).empty())
		throw BlueTuskConnectionStringException(source + ": source " + quoted(text.substr(0, colon)) + " has no location after ':'" + expected);
	return text;
}


std::string topologySourceName(const std::string& value)
{
	const std::string::size_type colon = value.find(':');
	return colon == std::string::npos ? std::string() : value.substr(0, colon);
}


std::string topologySourceLocation(const std::string& value)
{
	const std::string::size_type colon = value.find(':');
	return colon == std::string::npos ? std::string() : trim(value.substr(colon + 1));
}


std::vector<std::string> topologySourceSecrets(const std::string& location)
{
	std::vector<std::string> secrets;
	const std::string lower = asciiLower(location);
	// password=<value> in a keyword/value or Npgsql-style monitor connection string
	for (std::string::size_type at = lower.find("password"); at != std::string::npos; at = lower.find("password", at + 1))
	{
		std::string::size_type i = at + 8;
		while (i < location.size() && location[i] == ' ') ++i;
		if (i >= location.size() || location[i] != '=') continue;
		++i;
		while (i < location.size() && location[i] == ' ') ++i;
		std::string secret;
		if (i < location.size() && (location[i] == '\'' || location[i] == '"'))
		{
			const char quote = location[i++];
			while (i < location.size() && location[i] != quote) secret += location[i++];
		}
		else
		{
			while (i < location.size() && location[i] != ';' && location[i] != ' ' && location[i] != '&') secret += location[i++];
		}
		if (!secret.empty()) secrets.push_back(secret);
	}
	// scheme://user:secret@host in a URL
	for (std::string::size_type at = location.find("://"); at != std::string::npos; at = location.find("://", at + 3))
	{
		const std::string::size_type start = at + 3;
		const std::string::size_type end = location.find_first_of("/@,; ", start);
		if (end == std::string::npos || location[end] != '@') continue;
		const std::string::size_type colon = location.find(':', start);
		if (colon != std::string::npos && colon < end && colon + 1 < end) secrets.push_back(location.substr(colon + 1, end - colon - 1));
	}
	return secrets;
}

} } // namespace BlueTusk::Detail
