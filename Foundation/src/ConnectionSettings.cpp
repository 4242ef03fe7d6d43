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
#include "BlueTusk/Lsn.h"
#include "ConnectionKeywords.h"
#include "ConnectionStringForm.h"
#include "HostList.h"
#include "ServiceFile.h"
#include "SecretRedaction.h"
#include "BlueTusk/SecretRedactor.h"
#include "SettingValues.h"
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
	const std::map<std::string, std::string>& environment, std::set<Detail::Setting>& given, std::vector<std::string>& secrets)
	/// libpq's precedence: a service's keyword applies only when the connection string did not give it, and
	/// before the environment; within the service the first line of a keyword counts (as libpq).
{
	const Detail::ServiceDefinition definition = Detail::findService(service, serviceFile, environment);
	for (const Detail::KeywordValue& line: definition.lines)
	{
		const std::vector<std::string> candidates = Detail::passwordCandidates(line.keyword + "=" + line.value).texts;
		secrets.insert(secrets.end(), candidates.begin(), candidates.end());
	}
	std::set<Detail::Setting> fromService;
	for (const Detail::KeywordValue& line: definition.lines)
	{
		const std::string where = "service file " + Detail::quoted(definition.file) + ", line " + std::to_string(line.position);
		const auto& keyword = findKeyword(line.keyword, " in " + where);
		if (given.count(keyword.setting) || fromService.count(keyword.setting)) continue;
		ConnectionKeywords::apply(settings, keyword, line.value, Detail::trim(line.keyword) + " (" + where + ")");
		fromService.insert(keyword.setting);
	}
	given.insert(fromService.begin(), fromService.end());
}


ConnectionSettings parseUnredacted(const std::string& connectionString, const std::map<std::string, std::string>& environment,
	std::vector<std::string>& secrets)
{
	ConnectionSettings settings;
	std::set<Detail::Setting> given;
	const bool url = Detail::detectForm(connectionString) == Detail::ConnectionStringForm::Url;
	for (const Detail::KeywordValue& pair: Detail::tokenize(connectionString))
	{
		const std::string where = " at " + Detail::position(pair.position);
		const auto& keyword = url ? findUrlKeyword(pair.keyword, where) : findKeyword(pair.keyword, where);
		ConnectionKeywords::apply(settings, keyword, pair.value, Detail::trim(pair.keyword));
		given.insert(keyword.setting);
	}

	// service (or PGSERVICE) and its file (or PGSERVICEFILE): libpq reads the service before the environment
	std::string service = given.count(Detail::Setting::Service) ? ConnectionKeywords::serviceOf(settings) : variable(environment, "PGSERVICE");
	const std::string serviceFile = given.count(Detail::Setting::ServiceFile) ? ConnectionKeywords::serviceFileOf(settings) : variable(environment, "PGSERVICEFILE");
	given.insert(Detail::Setting::Service);
	given.insert(Detail::Setting::ServiceFile);
	if (!Detail::trim(service).empty()) applyService(settings, Detail::trim(service), serviceFile, environment, given, secrets);

	for (const auto& keyword: ConnectionKeywords::all())
	{
		if (!keyword.environment || given.count(keyword.setting)) continue;
		const auto variable = environment.find(keyword.environment);
		if (variable == environment.end() || variable->second.empty()) continue;
		ConnectionKeywords::apply(settings, keyword, variable->second, std::string(keyword.environment) + " (environment)");
		given.insert(keyword.setting);
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
	const auto password = environment.find("PGPASSWORD");
	if (password != environment.end()) secrets.push_back(password->second);
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
		if (entry.setting == Detail::Setting::Service || entry.setting == Detail::Setting::ServiceFile)
			throw BlueTuskConnectionStringException(Detail::trim(keyword) + ": a service cannot be applied as an override (its keywords"
				" only fill in what a connection string leaves out); write it in the connection string");
		ConnectionSettings changed(*this);
		ConnectionKeywords::apply(changed, entry, value, Detail::trim(keyword));
		ConnectionKeywords::finish(changed, entry.setting == Detail::Setting::Host || entry.setting == Detail::Setting::Port ||
			entry.setting == Detail::Setting::HostAddress);
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
	secrets.push_back(password);
	secrets.push_back(sslPassword);
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
	std::string text;
	auto add = [&text](const char* name, const std::string& value)
	{
		text += std::string(name) + "=" + quoteValue(value) + ";"; // the final ';' keeps it in the Npgsql form
	};
	auto addText = [&add, &secrets](const char* name, const std::string& value)
	{
		add(name, secrets.redact(value));
	};
	addText("Host", Detail::hostListText(endpoints));
	add("Port", Detail::portListText(endpoints));
	addText("Database", database);
	addText("Username", username);
	if (!password.empty()) add("Password", "***");
	addText("Application Name", applicationName);
	add("Target Session Attributes", BlueTusk::toString(targetSessionAttributes));
	addText("Host Order", hostOrder);
	add("Timeout", Detail::formatSeconds(connectTimeout));
	add("SSL Mode", BlueTusk::toString(sslMode));
	addText("Root Certificate", rootCertificate);
	addText("Passfile", passfile);
	add("Require Auth", requireAuth.toString());
	add("Channel Binding", BlueTusk::toString(channelBinding));
	addText("Host Address", Detail::hostAddressListText(endpoints));
	addText("Options", options);
	add("Client Encoding", "UTF8"); // the only one BlueTusk speaks; written so that PGCLIENTENCODING cannot apply
	addText("Require Peer", requirePeer);
	add("Service", ""); // the service's keywords are in the settings already; an empty one keeps PGSERVICE out

	const ConnectionSettings defaults;
	auto seconds = [](const Poco::Timespan& span) { return Detail::formatSeconds(span); };
	auto boolean = [](bool value) { return std::string(value ? "true" : "false"); };
	auto addIfChanged = [&add](const char* name, const std::string& value, const std::string& defaultValue)
	{
		if (value != defaultValue) add(name, value);
	};
	addIfChanged("Failover Timeout", seconds(failoverTimeout), seconds(defaults.failoverTimeout));
	addIfChanged("Host Recheck Seconds", seconds(hostRecheck), seconds(defaults.hostRecheck));
	addIfChanged("Pooling", boolean(pooling), boolean(defaults.pooling));
	addIfChanged("Minimum Pool Size", std::to_string(minPoolSize), std::to_string(defaults.minPoolSize));
	addIfChanged("Maximum Pool Size", std::to_string(maxPoolSize), std::to_string(defaults.maxPoolSize));
	addIfChanged("Connection Idle Lifetime", seconds(connectionIdleLifetime), seconds(defaults.connectionIdleLifetime));
	addIfChanged("Connection Lifetime", seconds(connectionLifetime), seconds(defaults.connectionLifetime));
	addIfChanged("Checkout Timeout", seconds(checkoutTimeout), seconds(defaults.checkoutTimeout));
	addIfChanged("No Reset On Close", boolean(noResetOnClose), boolean(defaults.noResetOnClose));
	if (evictionPolicy != defaults.evictionPolicy) addText("Eviction Policy", evictionPolicy);
	if (!pluginPath.empty()) addText("Plugin Path", Detail::join(pluginPath, ","));
	addIfChanged("Command Timeout", seconds(commandTimeout), seconds(defaults.commandTimeout));
	addIfChanged("Failover Poll Milliseconds", std::to_string(failoverPoll.totalMilliseconds()), std::to_string(defaults.failoverPoll.totalMilliseconds()));
	addIfChanged("Max Auto Prepare", std::to_string(maxAutoPrepare), std::to_string(defaults.maxAutoPrepare));
	addIfChanged("Auto Prepare Min Usages", std::to_string(autoPrepareMinUsages), std::to_string(defaults.autoPrepareMinUsages));
	addIfChanged("Keepalive", std::to_string(keepalive.totalSeconds()), std::to_string(defaults.keepalive.totalSeconds()));
	addIfChanged("Tcp User Timeout", std::to_string(tcpUserTimeout.totalMilliseconds()), std::to_string(defaults.tcpUserTimeout.totalMilliseconds()));
	addIfChanged("Read Your Writes", boolean(readYourWrites), boolean(defaults.readYourWrites));
	addIfChanged("Read Your Writes Timeout", std::to_string(readYourWritesTimeout.totalMilliseconds()), std::to_string(defaults.readYourWritesTimeout.totalMilliseconds()));
	addIfChanged("Max Standby Lag", formatByteSizeSetting(maxStandbyLag), formatByteSizeSetting(defaults.maxStandbyLag));
	addIfChanged("Role Recheck Milliseconds", std::to_string(roleRecheck.totalMilliseconds()), std::to_string(defaults.roleRecheck.totalMilliseconds()));
	if (!searchPath.empty()) addText("Search Path", searchPath);
	if (!fallbackApplicationName.empty()) addText("Fallback Application Name", fallbackApplicationName);
	if (keepalives != Keepalives::Unset) add("Keepalives", boolean(keepalives == Keepalives::On));
	addIfChanged("Keepalives Interval", std::to_string(keepaliveInterval.totalSeconds()), std::to_string(defaults.keepaliveInterval.totalSeconds()));
	addIfChanged("Keepalives Count", std::to_string(keepaliveCount), std::to_string(defaults.keepaliveCount));
	// TLS, protocol version and Kerberos keywords: those with an environment variable always
	addText("SSL Certificate", sslCertificate);
	addText("SSL Key", sslKey);
	if (!sslPassword.empty()) add("SSL Password", "***");
	add("SSL Certificate Mode", BlueTusk::toString(sslCertMode));
	addText("SSL CRL", sslCrl);
	addText("SSL CRL Directory", sslCrlDirectory);
	add("SSL SNI", boolean(sslSni));
	add("SSL Min Protocol Version", BlueTusk::toString(sslMinProtocolVersion));
	add("SSL Max Protocol Version", BlueTusk::toString(sslMaxProtocolVersion));
	if (!sslKeyLogFile.empty()) addText("SSL Key Log File", sslKeyLogFile);
	add("Min Protocol Version", "3." + std::to_string(minProtocolVersion));
	add("Max Protocol Version", maxProtocolVersion < 0 ? std::string() : "3." + std::to_string(maxProtocolVersion));
	add("SSL Negotiation", BlueTusk::toString(sslNegotiation));
	addText("Kerberos Service Name", kerberosServiceName);
	add("GSS Encryption Mode", BlueTusk::toString(gssEncMode));
	add("GSS Delegation", boolean(gssDelegation));
	if (!topologySource.empty()) addText("Topology Source", topologySource);
	addIfChanged("Topology Refresh Interval", seconds(topologyRefresh), seconds(defaults.topologyRefresh));
	addIfChanged("Health Check Interval", seconds(healthCheckInterval), seconds(defaults.healthCheckInterval));
	addIfChanged("Max Connecting", std::to_string(maxConnecting), std::to_string(defaults.maxConnecting));
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
	return endpoints == other.endpoints &&
		database == other.database &&
		username == other.username &&
		password == other.password &&
		applicationName == other.applicationName &&
		targetSessionAttributes == other.targetSessionAttributes &&
		hostOrder == other.hostOrder &&
		connectTimeout == other.connectTimeout &&
		failoverTimeout == other.failoverTimeout &&
		hostRecheck == other.hostRecheck &&
		roleRecheck == other.roleRecheck &&
		failoverPoll == other.failoverPoll &&
		readYourWrites == other.readYourWrites &&
		readYourWritesTimeout == other.readYourWritesTimeout &&
		maxStandbyLag == other.maxStandbyLag &&
		sslMode == other.sslMode &&
		rootCertificate == other.rootCertificate &&
		passfile == other.passfile &&
		pooling == other.pooling &&
		minPoolSize == other.minPoolSize &&
		maxPoolSize == other.maxPoolSize &&
		connectionIdleLifetime == other.connectionIdleLifetime &&
		connectionLifetime == other.connectionLifetime &&
		checkoutTimeout == other.checkoutTimeout &&
		noResetOnClose == other.noResetOnClose &&
		evictionPolicy == other.evictionPolicy &&
		pluginPath == other.pluginPath &&
		commandTimeout == other.commandTimeout &&
		maxAutoPrepare == other.maxAutoPrepare &&
		autoPrepareMinUsages == other.autoPrepareMinUsages &&
		keepalive == other.keepalive &&
		tcpUserTimeout == other.tcpUserTimeout &&
		requireAuth == other.requireAuth &&
		channelBinding == other.channelBinding &&
		fallbackApplicationName == other.fallbackApplicationName &&
		options == other.options &&
		searchPath == other.searchPath &&
		keepalives == other.keepalives &&
		keepaliveInterval == other.keepaliveInterval &&
		keepaliveCount == other.keepaliveCount &&
		requirePeer == other.requirePeer &&
		sslCertificate == other.sslCertificate &&
		sslKey == other.sslKey &&
		sslPassword == other.sslPassword &&
		sslCertMode == other.sslCertMode &&
		sslCrl == other.sslCrl &&
		sslCrlDirectory == other.sslCrlDirectory &&
		sslSni == other.sslSni &&
		sslMinProtocolVersion == other.sslMinProtocolVersion &&
		sslMaxProtocolVersion == other.sslMaxProtocolVersion &&
		sslKeyLogFile == other.sslKeyLogFile &&
		minProtocolVersion == other.minProtocolVersion &&
		maxProtocolVersion == other.maxProtocolVersion &&
		sslNegotiation == other.sslNegotiation &&
		kerberosServiceName == other.kerberosServiceName &&
		gssEncMode == other.gssEncMode &&
		gssDelegation == other.gssDelegation &&
		topologySource == other.topologySource &&
		topologyRefresh == other.topologyRefresh &&
		healthCheckInterval == other.healthCheckInterval &&
		maxConnecting == other.maxConnecting;
}


bool ConnectionSettings::operator != (const ConnectionSettings& other) const
{
	return !(*this == other);
}

} // namespace BlueTusk
