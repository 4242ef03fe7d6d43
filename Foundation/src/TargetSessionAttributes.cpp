//
// TargetSessionAttributes.cpp
//
// Library: BlueTusk/Foundation
//
// Canonical names of the target session attributes, server roles and SSL modes, and their parsers.
//

#include "BlueTusk/TargetSessionAttributes.h"
#include "BlueTusk/BlueTuskException.h"
#include "ValueText.h"

namespace BlueTusk {

namespace {

const std::vector<std::string>& sslModeNames()
{
	static const std::vector<std::string> names = {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"};
	return names;
}


const std::vector<std::string>& serverRoleNames()
{
	static const std::vector<std::string> names = {"unknown", "primary", "primary-read-only", "standby"};
	return names;
}


std::string normalizedName(const std::string& text)
	/// Lower case without '-', '_' and spaces, so "PreferStandby", "prefer_standby" and "prefer-standby"
	/// compare equal (Npgsql spells the enum members in Pascal case, libpq with hyphens).
{
	std::string result;
	for (char c: Detail::trim(text))
	{
		if (c == '-' || c == '_' || c == ' ') continue;
		result += Detail::asciiLower(c);
	}
	return result;
}


int findName(const std::vector<std::string>& names, const std::string& text)
	/// The index of text in names (normalized comparison), or -1.
{
	const std::string wanted = normalizedName(text);
	if (wanted.empty()) return -1;
	for (std::size_t i = 0; i < names.size(); ++i)
	{
		if (normalizedName(names[i]) == wanted) return static_cast<int>(i);
	}
	return -1;
}


[[noreturn]] void throwInvalid(const std::string& keyword, const std::string& text, const std::vector<std::string>& names)
{
	throw BlueTuskConnectionStringException(keyword + ": " + Detail::quoted(text) + " is not a valid value; accepted values: " +
		Detail::join(names, ", "));
}

} // namespace


std::string toString(TargetSessionAttributes target)
{
	return targetSessionAttributesNames().at(static_cast<std::size_t>(target));
}


TargetSessionAttributes parseTargetSessionAttributes(const std::string& text, const std::string& keyword)
{
	const int index = findName(targetSessionAttributesNames(), text);
	if (index < 0) throwInvalid(keyword, text, targetSessionAttributesNames());
	return static_cast<TargetSessionAttributes>(index);
}


const std::vector<std::string>& targetSessionAttributesNames()
{
	static const std::vector<std::string> names = {"any", "primary", "standby", "prefer-primary", "prefer-standby", "read-write", "read-only"};
	return names;
}


std::string toString(ServerRole role)
{
	return serverRoleNames().at(static_cast<std::size_t>(role));
}


ServerRole parseServerRole(const std::string& text)
{
	const int index = findName(serverRoleNames(), text);
	if (index < 0)
		throw BlueTuskException("unknown server role " + Detail::quoted(text) + "; accepted values: " + Detail::join(serverRoleNames(), ", "));
	return static_cast<ServerRole>(index);
}


std::string toString(SslMode mode)
{
	return sslModeNames().at(static_cast<std::size_t>(mode));
}


SslMode parseSslMode(const std::string& text, const std::string& keyword)
{
	const int index = findName(sslModeNames(), text);
	if (index < 0) throwInvalid(keyword, text, sslModeNames());
	return static_cast<SslMode>(index);
}

} // namespace BlueTusk
