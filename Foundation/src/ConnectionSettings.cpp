//
// ConnectionSettings.cpp
//
// Library: BlueTusk/Foundation
//
// parse(): tokenize (ConnectionStringForm) -> apply each pair through the keyword table
// (ConnectionKeywords) -> environment fallbacks -> derive endpoints and defaults -> validate.
//

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/BlueTuskException.h"
#include "ConnectionKeywords.h"
#include "ConnectionStringForm.h"
#include "HostList.h"
#include "ServiceFile.h"
#include "SecretRedaction.h"
#include "BlueTusk/SecretRedactor.h"
#include "ValueText.h"
#include "Poco/Environment.h"
#include <algorithm>
#include <set>

namespace BlueTusk {

namespace {

using Detail::ConnectionKeywords;


std::string redactedMessage(const SecretRedactor& redactor, const std::string& message)
	/// A parse error's message as it may leave: redacted, or for a redactor that does not know every
	/// secret (which would print "***"), a fixed text that says why the details are missing. Bounded
	/// (Detail::boundedMessage()): every value it echoes is shortened already, this bounds the whole.
{
	if (redactor.complete()) return Detail::boundedMessage(redactor.redact(message));
	return "details withheld: the connection string holds more texts that could be a password than"
		" BlueTusk masks (over " + std::to_string(Detail::maximumPasswordCandidates) + ", or " +
		std::to_string(Detail::maximumPasswordCandidateBytes) + " bytes of them: each ':' before an '@' in"
		" a URL's user info, each 'password=' value)";
}


std::map<std::string, std::string> processEnvironment()
{
	std::map<std::string, std::string> environment;
	for (const auto& keyword: ConnectionKeywords::all())
	{
		if (keyword.environment && Poco::Environment::has(keyword.environment))
			environment[keyword.environment] = Poco::Environment::get(keyword.environment);
	}
	for (const char* name: Detail::serviceFileVariables) // where the service files are (ServiceFile.h)
	{
		if (Poco::Environment::has(name)) environment[name] = Poco::Environment::get(name);
	}
	return environment;
}


const ConnectionKeywords::Keyword& findKeyword(const std::string& written, const std::string& where)
{
	const ConnectionKeywords::Keyword* keyword = ConnectionKeywords::find(written);
	if (!keyword)
		throw BlueTuskConnectionStringException("unknown keyword " + Detail::quoted(Detail::trim(written)) + where +
			" (doc/connection-strings.md lists the accepted keywords)");
	return *keyword;
}


const ConnectionKeywords::Keyword& findUrlKeyword(const std::string& written, const std::string& where)
	/// As findKeyword() for a URL's query parameter: an unknown one stays an error (BlueTusk's stricter
	/// choice), and the message names how libpq spells the nearest known keyword.
{
	const ConnectionKeywords::Keyword* keyword = ConnectionKeywords::find(written);
	if (keyword) return *keyword;
	const ConnectionKeywords::Keyword& nearest = *ConnectionKeywords::nearest(written);
	const std::string hint = nearest.libpqName ?
		"the nearest known keyword is spelled " + Detail::quoted(nearest.libpqName) + " in libpq" :
		"the nearest known keyword is " + Detail::quoted(nearest.name) + " (BlueTusk's own; libpq has no such keyword)";
	throw BlueTuskConnectionStringException("unknown keyword " + Detail::quoted(Detail::trim(written)) + " in the URL query" + where +
		"; " + hint + " (doc/connection-strings.md lists the accepted keywords)");
}


std::string variable(const std::map<std::string, std::string>& environment, const char* name)
{
	const auto found = environment.find(name);
	return found == environment.end() ? std::string() : found->second;
}


void applyService(ConnectionSettings& settings, const std::string& service, const std::string& serviceFile,
	const std::map<std::string, std::string>& environment, std::set<std::string>& given, std::vector<std::string>& secrets)
	/// libpq's precedence: a service's keyword applies only when the connection string did not give it, and
	/// before the environment; within the service the first line of a keyword counts (as libpq).
{
	const Detail::ServiceDefinition definition = Detail::findService(service, serviceFile, environment);
	for (const Detail::KeywordValue& line: definition.lines)
	{
		const std::vector<std::string> candidates = Detail::passwordCandidates(line.keyword + "=" + line.value).texts;
		secrets.insert(secrets.end(), candidates.begin(), candidates.end());
	}
	std::set<std::string> fromService;
	for (const Detail::KeywordValue& line: definition.lines)
	{
		const std::string where = "service file " + Detail::quoted(definition.file) + ", line " + std::to_string(line.position);
		const auto& keyword = findKeyword(line.keyword, " in " + where);
		const std::string setting = ConnectionKeywords::settingOf(keyword);
		if (given.count(setting) || fromService.count(setting)) continue;
		ConnectionKeywords::apply(settings, keyword, line.value, Detail::trim(line.keyword) + " (" + where + ")");
		fromService.insert(setting);
	}
	given.insert(fromService.begin(), fromService.end());
}


ConnectionSettings parseUnredacted(const std::string& connectionString, const std::map<std::string, std::string>& environment,
	std::vector<std::string>& secrets)
{
	ConnectionSettings settings;
	std::set<std::string> given;
	const bool url = Detail::detectForm(connectionString) == Detail::ConnectionStringForm::Url;
	for (const Detail::KeywordValue& pair: Detail::tokenize(connectionString))
	{
		const std::string where = " at " + Detail::position(pair.position);
		const auto& keyword = url ? findUrlKeyword(pair.keyword, where) : findKeyword(pair.keyword, where);
		ConnectionKeywords::apply(settings, keyword, pair.value, Detail::trim(pair.keyword));
		given.insert(ConnectionKeywords::settingOf(keyword));
	}

	// service (or PGSERVICE) and its file (or PGSERVICEFILE): libpq reads the service before the environment
	std::string service = given.count("Service") ? ConnectionKeywords::serviceOf(settings) : variable(environment, "PGSERVICE");
	const std::string serviceFile = given.count("Service File") ? ConnectionKeywords::serviceFileOf(settings) : variable(environment, "PGSERVICEFILE");
	given.insert("Service");
	given.insert("Service File");
	if (!Detail::trim(service).empty()) applyService(settings, Detail::trim(service), serviceFile, environment, given, secrets);

	for (const auto& keyword: ConnectionKeywords::all())
	{
		const std::string setting = ConnectionKeywords::settingOf(keyword);
		if (!keyword.environment || given.count(setting)) continue;
		const auto variable = environment.find(keyword.environment);
		if (variable == environment.end() || variable->second.empty()) continue;
		ConnectionKeywords::apply(settings, keyword, variable->second, std::string(keyword.environment) + " (environment)");
		given.insert(setting);
	}
	ConnectionKeywords::finish(settings, true, true);
	settings.validate();
	return settings;
}


std::string quoteValue(const std::string& value)
	/// A value as the Npgsql tokenizer reads it back: in double quotes (doubled inside) when it holds
	/// ';' or a quote, or has white space at either end.
{
	const bool needsQuotes = value.find_first_of(";\"'") != std::string::npos ||
		(!value.empty() && (Detail::isSpace(value.front()) || Detail::isSpace(value.back())));
	if (!needsQuotes) return value;
	std::string result = "\"";
	for (char c: value)
	{
		result += c;
		if (c == '"') result += '"';
	}
	return result + "\"";
}

} // namespace


ConnectionSettings::ConnectionSettings()
{
}


ConnectionSettings ConnectionSettings::parse(const std::string& connectionString)
{
	return parse(connectionString, processEnvironment());
}


ConnectionSettings ConnectionSettings::parse(const std::string& connectionString, const std::map<std::string, std::string>& environment)
{
	Detail::PasswordCandidates candidates = Detail::passwordCandidates(connectionString);
	std::vector<std::string>& secrets = candidates.texts;
	for (const auto& keyword: ConnectionKeywords::all())
	{
		if (!keyword.secret || !keyword.environment) continue; // PGPASSWORD
		const auto variable = environment.find(keyword.environment);
		if (variable != environment.end()) secrets.push_back(variable->second);
	}
	try
	{
		ConnectionSettings settings = parseUnredacted(connectionString, environment, secrets);
		settings._secrets.insert(settings._secrets.end(), secrets.begin(), secrets.end());
		settings._secretsComplete = candidates.complete;
		return settings;
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		throw BlueTuskConnectionStringException(redactedMessage(SecretRedactor(secrets, candidates.complete), exc.message()));
	}
}


void ConnectionSettings::set(const std::string& keyword, const std::string& value)
{
	Detail::PasswordCandidates candidates = Detail::passwordCandidates(keyword + "=" + value);
	std::vector<std::string>& secrets = candidates.texts;
	try
	{
		const auto& entry = findKeyword(keyword, "");
		const std::string setting = ConnectionKeywords::settingOf(entry);
		if (setting == "Service" || setting == "Service File")
			throw BlueTuskConnectionStringException(Detail::trim(keyword) + ": a service cannot be applied as an override (its keywords"
				" only fill in what a connection string leaves out); write it in the connection string");
		ConnectionSettings changed(*this);
		ConnectionKeywords::apply(changed, entry, value, Detail::trim(keyword));
		ConnectionKeywords::finish(changed, setting == "Host" || setting == "Port" || setting == "Host Address");
		changed._secrets.insert(changed._secrets.end(), secrets.begin(), secrets.end());
		changed._secretsComplete = _secretsComplete && candidates.complete;
		*this = std::move(changed);
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		secrets.insert(secrets.end(), _secrets.begin(), _secrets.end());
		const bool complete = _secretsComplete && candidates.complete;
		throw BlueTuskConnectionStringException(redactedMessage(SecretRedactor(secrets, complete), exc.message()));
	}
}


SecretRedactor ConnectionSettings::redactor() const
{
	std::vector<std::string> secrets = _secrets;
	for (const auto& keyword: ConnectionKeywords::all())
	{
		if (keyword.secret) secrets.push_back(keyword.field.format(*this)); // Password, SSL Password
	}
	return SecretRedactor(secrets, _secretsComplete);
}


void ConnectionSettings::addSecret(const std::string& secret)
{
	_secrets.push_back(secret);
}


std::string ConnectionSettings::toString() const
{
	// Malformed input can leave the password's text inside another free-text value (a host, an
	// application name): it is masked there too, so no printed connection string shows it. Numbers and
	// enumeration names are canonical and printed as they are.
	const SecretRedactor secrets = redactor();
	const ConnectionSettings defaults;
	std::string text;
	for (const auto& keyword: ConnectionKeywords::all())
	{
		if (!keyword.field.format) continue;
		const std::string value = keyword.field.format(*this);
		if (keyword.printing == Detail::Printing::WhenTextChanged && value == keyword.field.format(defaults)) continue;
		if (keyword.printing == Detail::Printing::WhenValueChanged && keyword.field.same(*this, defaults)) continue;
		const std::string printed = keyword.secret ? std::string("***") : keyword.field.freeText ? secrets.redact(value) : value;
		text += std::string(keyword.name) + "=" + quoteValue(printed) + ";"; // the final ';' keeps it in the Npgsql form
	}
	return text;
}


std::string ConnectionSettings::hostList() const
{
	std::vector<std::string> items;
	for (const auto& endpoint: endpoints) items.push_back(endpoint.toString());
	return Detail::join(items, ",");
}


std::string ConnectionSettings::defaultSocketDirectory()
{
	return Detail::defaultSocketDirectory();
}


std::string ConnectionSettings::defaultSocketDirectory(const std::vector<std::string>& candidates)
{
	return Detail::defaultSocketDirectory(candidates);
}


void ConnectionSettings::validate() const
{
	if (endpoints.empty())
		throw BlueTuskConnectionStringException("Host is required: give the Host (host) keyword or set PGHOST");
	if (username.empty())
		throw BlueTuskConnectionStringException("Username is required: give the Username (user) keyword or set PGUSER");
	if (minPoolSize > maxPoolSize)
		throw BlueTuskConnectionStringException("Minimum Pool Size (" + std::to_string(minPoolSize) +
			") is greater than Maximum Pool Size (" + std::to_string(maxPoolSize) + ")");
	if (sslMinProtocolVersion != TlsProtocolVersion::None && sslMaxProtocolVersion != TlsProtocolVersion::None &&
		sslMinProtocolVersion > sslMaxProtocolVersion)
		throw BlueTuskConnectionStringException("invalid SSL protocol version range: SSL Min Protocol Version (ssl_min_protocol_version) " +
			BlueTusk::toString(sslMinProtocolVersion) + " is above SSL Max Protocol Version (ssl_max_protocol_version) " +
			BlueTusk::toString(sslMaxProtocolVersion));
	if (maxProtocolVersion >= 0 && minProtocolVersion > maxProtocolVersion)
		throw BlueTuskConnectionStringException("Min Protocol Version (min_protocol_version) 3." + std::to_string(minProtocolVersion) +
			" is greater than Max Protocol Version (max_protocol_version) 3." + std::to_string(maxProtocolVersion));
	if (sslNegotiation == SslNegotiation::Direct && (sslMode == SslMode::Disable || sslMode == SslMode::Allow || sslMode == SslMode::Prefer))
		throw BlueTuskConnectionStringException("weak SSL Mode (sslmode) \"" + BlueTusk::toString(sslMode) + "\" may not be used with SSL Negotiation"
			" (sslnegotiation)=direct (use require, verify-ca or verify-full), as in libpq");
	if (gssEncMode == GssEncMode::Require)
		throw BlueTuskConnectionStringException("GSS Encryption Mode (gssencmode)=require cannot be honoured: BlueTusk does not implement GSSAPI"
			" transport encryption (GSSAPI authentication works); use TLS (SSL Mode) with gssencmode=disable or prefer");
}


int ConnectionSettings::requestedProtocolVersion() const
{
	return maxProtocolVersion >= 0 ? maxProtocolVersion : std::max(0, minProtocolVersion);
}


bool ConnectionSettings::operator == (const ConnectionSettings& other) const
{
	for (const auto& keyword: ConnectionKeywords::all())
	{
		if (keyword.field.same && !keyword.field.same(*this, other)) return false;
	}
	return true;
}


bool ConnectionSettings::operator != (const ConnectionSettings& other) const
{
	return !(*this == other);
}

} // namespace BlueTusk
