//
// KeywordValueParsers.cpp
//
// Library: BlueTusk/Foundation
//

#include "KeywordValueParsers.h"
#include "LibpqKeywordValues.h"
#include "SettingValues.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include <cctype>

namespace BlueTusk {
namespace Detail {

namespace {

std::string policyName(const std::string& value, const std::string& source, const std::string& examples)
{
	const std::string name = trim(value);
	if (name.empty())
		throw BlueTuskConnectionStringException(source + ": empty policy name; expected e.g. " + examples);
	return name;
}

} // namespace


std::string hostOrderPolicy(const std::string& value, const std::string& source)
{
	return policyName(value, source, "sequential, random, parallel");
}


std::string evictionPolicyName(const std::string& value, const std::string& source)
{
	return policyName(value, source, "standard");
}


std::string trimmedText(const std::string& value, const std::string&)
{
	return trim(value);
}


std::vector<std::string> pathList(const std::string& value, const std::string&)
{
	std::vector<std::string> entries;
	for (const std::string& item: split(value, ','))
	{
		const std::string entry = trim(item);
		if (!entry.empty()) entries.push_back(entry);
	}
	return entries;
}


std::string joinPathList(const std::vector<std::string>& entries)
{
	return join(entries, ",");
}


std::string loadBalanceHosts(const std::string& value, const std::string& source)
{
	const std::string word = asciiLower(trim(value));
	bool enabled = false;
	if (word == "random") return "random";
	if (word == "disable") return "sequential";
	if (isBooleanText(word, enabled)) return enabled ? "random" : "sequential";
	throw BlueTuskConnectionStringException(source + ": " + quoted(value) +
		" is not a valid value; accepted values: true, random (= Host Order random), false, disable (= sequential)");
}


int autoPrepareMinUsages(const std::string& value, const std::string& source)
{
	const int count = parseCount(value, source);
	if (count < 1)
		throw BlueTuskConnectionStringException(source + ": must be 1 or more (the executions of one SQL text before it is prepared)");
	return count;
}


void targetSession(ConnectionSettings& settings, const std::string& value, const std::string& source)
{
	try
	{
		settings.targetSessionAttributes = parseTargetSessionAttributes(value, source);
		settings.targetSessionPolicy.clear();
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		const std::string name = trim(value);
		bool valid = !name.empty() && std::isalnum(static_cast<unsigned char>(name[0]));
		for (char c: name) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
		if (!valid) throw BlueTuskConnectionStringException(exc.message() + "; or a site target session policy's name (doc/plugins.md)");
		settings.targetSessionAttributes = TargetSessionAttributes::Any;
		settings.targetSessionPolicy = name;
	}
}


std::string formatTargetSession(const ConnectionSettings& settings)
{
	return settings.targetSessionPolicy.empty() ? toString(settings.targetSessionAttributes) : settings.targetSessionPolicy;
}


TargetSessionAttributes readOnly(const std::string& value, const std::string& source)
{
	return parseBoolean(value, source) ? TargetSessionAttributes::Any : TargetSessionAttributes::ReadWrite;
}


int maximumPoolSize(const std::string& value, const std::string& source)
{
	const int size = parseCount(value, source);
	if (size < 1)
		throw BlueTuskConnectionStringException(source + ": must be at least 1");
	return size;
}


Poco::Timespan wholeMilliseconds(const std::string& value, const std::string& source)
{
	return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(parseCount(value, source)) * 1000);
}


Poco::Timespan roleRecheckMilliseconds(const std::string& value, const std::string& source)
{
	const int milliseconds = parseCount(value, source);
	if (milliseconds > 3600000)
		throw BlueTuskConnectionStringException(source + ": " + quoted(trim(value)) + " is too large; at most 3600000 milliseconds (one hour)");
	return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(milliseconds) * 1000);
}


Poco::Timespan topologyRefresh(const std::string& value, const std::string& source)
{
	const Poco::Timespan interval = parseSeconds(value, source);
	if (interval < Poco::Timespan(0, 50000))
		throw BlueTuskConnectionStringException(source + ": must be at least 0.05 seconds");
	return interval;
}


void refuseOAuth(ConnectionSettings&, const std::string&, const std::string& source)
{
	refuseKeyword(source, "OAuth (SASL OAUTHBEARER, PostgreSQL 18) is not implemented");
}


void refuseScramKeys(ConnectionSettings&, const std::string&, const std::string& source)
{
	refuseKeyword(source, "SCRAM key pass-through (postgres_fdw's use_scram_passthrough, PostgreSQL 18) is not implemented");
}


std::string kerberosServiceName(const std::string& value, const std::string& source)
{
	const std::string name = trim(value);
	if (name.empty())
		throw BlueTuskConnectionStringException(source + ": empty Kerberos service name; the default is postgres (principal postgres/<host>)");
	return name;
}


namespace {

int protocolVersion(const std::string& value, const std::string& source, bool allowEmpty)
	/// "3.0", "3.2" or "latest" (= 3.2), as a minor version number; "" (max only) is -1, not given.
{
	const std::string word = asciiLower(trim(value));
	if (word.empty() && allowEmpty) return -1;
	if (word == "3.0") return 0;
	if (word == "3.2" || word == "latest") return 2;
	throw BlueTuskConnectionStringException(source + ": " + quoted(value) + " is not a valid value; accepted values: 3.0, 3.2, latest" +
		std::string(allowEmpty ? ", or empty for the default (3.0, or the minimum when higher)" : "") +
		" (3.1 was never used; 3.2 is PostgreSQL 18's protocol)");
}

} // namespace


int minimumProtocolVersion(const std::string& value, const std::string& source)
{
	return protocolVersion(value, source, false);
}


int maximumProtocolVersion(const std::string& value, const std::string& source)
{
	return protocolVersion(value, source, true);
}


std::string formatRequireAuth(const RequireAuth& requireAuth)
{
	return requireAuth.toString();
}


std::string formatKeepalives(ConnectionSettings::Keepalives keepalives)
{
	if (keepalives == ConnectionSettings::Keepalives::Unset) return std::string();
	return keepalives == ConnectionSettings::Keepalives::On ? "true" : "false";
}


std::string formatMinimumProtocolVersion(int minor)
{
	return "3." + std::to_string(minor);
}


std::string formatMaximumProtocolVersion(int minor)
{
	return minor < 0 ? std::string() : "3." + std::to_string(minor);
}

} } // namespace BlueTusk::Detail
