//
// ConnectionKeywords.cpp
//
// Library: BlueTusk/Foundation
//

#include "ConnectionKeywords.h"
#include "HostList.h"
#include "LibpqKeywordValues.h"
#include "SettingValues.h"
#include "TopologySourceValue.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/LocalUser.h"
#include "BlueTusk/Lsn.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

namespace {

using S = ConnectionSettings;


std::string policyName(const std::string& value, const std::string& source, const std::string& examples)
{
	const std::string name = trim(value);
	if (name.empty())
		throw BlueTuskConnectionStringException(source + ": empty policy name; expected e.g. " + examples);
	return name;
}


std::vector<std::string> pathList(const std::string& value)
	/// Plugin Path: entries separated by ','; empty entries are dropped.
{
	std::vector<std::string> entries;
	for (const std::string& item: split(value, ','))
	{
		const std::string entry = trim(item);
		if (!entry.empty()) entries.push_back(entry);
	}
	return entries;
}


std::string loadBalanceHosts(const std::string& value, const std::string& source)
	/// libpq's load_balance_hosts (disable, random) and Npgsql's Load Balance Hosts (true, false).
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
	/// Auto Prepare Min Usages: 1 or more (Npgsql's range).
{
	const int count = parseCount(value, source);
	if (count < 1)
		throw BlueTuskConnectionStringException(source + ": must be 1 or more (the executions of one SQL text before it is prepared)");
	return count;
}


TargetSessionAttributes readOnly(const std::string& value, const std::string& source)
	/// The 2016 proposal's readonly: true = any server will do, false = a writable server is required.
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


Poco::Timespan roleRecheckMilliseconds(const std::string& value, const std::string& source)
	/// Role Recheck Milliseconds: whole milliseconds, 0 (recheck on every checkout) up to one hour.
{
	const int milliseconds = parseCount(value, source);
	if (milliseconds > 3600000)
		throw BlueTuskConnectionStringException(source + ": " + quoted(trim(value)) + " is too large; at most 3600000 milliseconds (one hour)");
	return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(milliseconds) * 1000);
}


Poco::Timespan topologyRefresh(const std::string& value, const std::string& source)
	/// Topology Refresh Interval: seconds, at least 0.05 (a source is not asked more than 20 times a second).
{
	const Poco::Timespan interval = parseSeconds(value, source);
	if (interval < Poco::Timespan(0, 50000))
		throw BlueTuskConnectionStringException(source + ": must be at least 0.05 seconds");
	return interval;
}


void refuseOAuth(S&, const std::string&, const std::string& source)
	/// PostgreSQL 18's oauth_issuer, oauth_client_id, oauth_client_secret, oauth_scope.
{
	refuseKeyword(source, "OAuth (SASL OAUTHBEARER, PostgreSQL 18) is not implemented");
}


void refuseScramKeys(S&, const std::string&, const std::string& source)
	/// PostgreSQL 18's scram_client_key, scram_server_key (set by postgres_fdw, not by users).
{
	refuseKeyword(source, "SCRAM key pass-through (postgres_fdw's use_scram_passthrough, PostgreSQL 18) is not implemented");
}


std::string serviceName(const std::string& value, const std::string& source)
	/// krbsrvname: the Kerberos service name of the server principal, not empty.
{
	const std::string name = trim(value);
	if (name.empty())
		throw BlueTuskConnectionStringException(source + ": empty Kerberos service name; the default is postgres (principal postgres/<host>)");
	return name;
}


int protocolVersion(const std::string& value, const std::string& source, bool allowEmpty)
	/// min_protocol_version / max_protocol_version (libpq 18): "3.0", "3.2" or "latest" (= 3.2), as a minor
	/// version number; "" (max only) is -1, not given.
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


const std::vector<ConnectionKeywords::Keyword>& ConnectionKeywords::all()
{
	static const std::vector<Keyword> keywords = {
		{"Host", "host", "PGHOST", Setting::Host,
			[](S& s, const std::string& v, const std::string& src) { parseHostList(v, src, true); s._hostList = v; s._hostSource = src; }},
		{"Port", "port", "PGPORT", Setting::Port,
			[](S& s, const std::string& v, const std::string& src) { parsePortList(v, src); s._portList = v; }},
		{"Database", "dbname", "PGDATABASE", Setting::Database,
			[](S& s, const std::string& v, const std::string&) { s.database = v; s._defaultDatabase.clear(); }},
		{"Username", "user", "PGUSER", Setting::Username,
			[](S& s, const std::string& v, const std::string&) { s.username = v; }},
		{"Password", "password", "PGPASSWORD", Setting::Password,
			[](S& s, const std::string& v, const std::string&) { s.password = v; s._secrets.push_back(v); }},
		{"Application Name", "application_name", "PGAPPNAME", Setting::ApplicationName,
			[](S& s, const std::string& v, const std::string&) { s.applicationName = v; }},
		{"Target Session Attributes", "target_session_attrs", "PGTARGETSESSIONATTRS", Setting::TargetSessionAttributes,
			[](S& s, const std::string& v, const std::string& src) { s.targetSessionAttributes = parseTargetSessionAttributes(v, src); }},
		{"Load Balance Hosts", "load_balance_hosts", "PGLOADBALANCEHOSTS", Setting::HostOrder,
			[](S& s, const std::string& v, const std::string& src) { s.hostOrder = loadBalanceHosts(v, src); }},
		{"Host Order", "hostorder", nullptr, Setting::HostOrder,
			[](S& s, const std::string& v, const std::string& src) { s.hostOrder = policyName(v, src, "sequential, random, parallel"); }},
		{"Timeout", "connect_timeout", "PGCONNECT_TIMEOUT", Setting::Timeout,
			[](S& s, const std::string& v, const std::string& src) { s.connectTimeout = parseSeconds(v, src); }},
		{"Failover Timeout", "failover_timeout", nullptr, Setting::FailoverTimeout,
			[](S& s, const std::string& v, const std::string& src) { s.failoverTimeout = parseSeconds(v, src); }},
		{"Host Recheck Seconds", nullptr, nullptr, Setting::HostRecheck,
			[](S& s, const std::string& v, const std::string& src) { s.hostRecheck = parseSeconds(v, src); }},
		{"SSL Mode", "sslmode", "PGSSLMODE", Setting::SslMode,
			[](S& s, const std::string& v, const std::string& src) { s.sslMode = parseSslMode(v, src); }},
		{"Pooling", nullptr, nullptr, Setting::Pooling,
			[](S& s, const std::string& v, const std::string& src) { s.pooling = parseBoolean(v, src); }},
		{"Minimum Pool Size", nullptr, nullptr, Setting::MinPoolSize,
			[](S& s, const std::string& v, const std::string& src) { s.minPoolSize = parseCount(v, src); }},
		{"Maximum Pool Size", nullptr, nullptr, Setting::MaxPoolSize,
			[](S& s, const std::string& v, const std::string& src) { s.maxPoolSize = maximumPoolSize(v, src); }},
		{"Connection Idle Lifetime", nullptr, nullptr, Setting::IdleLifetime,
			[](S& s, const std::string& v, const std::string& src) { s.connectionIdleLifetime = parseSeconds(v, src); }},
		{"Connection Lifetime", nullptr, nullptr, Setting::Lifetime,
			[](S& s, const std::string& v, const std::string& src) { s.connectionLifetime = parseSeconds(v, src); }},
		{"Checkout Timeout", nullptr, nullptr, Setting::CheckoutTimeout,
			[](S& s, const std::string& v, const std::string& src) { s.checkoutTimeout = parseSeconds(v, src); }},
		{"No Reset On Close", nullptr, nullptr, Setting::NoResetOnClose,
			[](S& s, const std::string& v, const std::string& src) { s.noResetOnClose = parseBoolean(v, src); }},
		{"Eviction Policy", nullptr, nullptr, Setting::EvictionPolicy,
			[](S& s, const std::string& v, const std::string& src) { s.evictionPolicy = policyName(v, src, "standard"); }},
		{"Plugin Path", nullptr, nullptr, Setting::PluginPath,
			[](S& s, const std::string& v, const std::string&) { s.pluginPath = pathList(v); }},
		{"Passfile", "passfile", "PGPASSFILE", Setting::Passfile,
			[](S& s, const std::string& v, const std::string&) { s.passfile = v; }},
		{"Root Certificate", "sslrootcert", "PGSSLROOTCERT", Setting::RootCertificate,
			[](S& s, const std::string& v, const std::string&) { s.rootCertificate = v; }},
		{"readonly", nullptr, nullptr, Setting::TargetSessionAttributes,
			[](S& s, const std::string& v, const std::string& src) { s.targetSessionAttributes = readOnly(v, src); }},
		{"Command Timeout", nullptr, nullptr, Setting::CommandTimeout,
			[](S& s, const std::string& v, const std::string& src) { s.commandTimeout = parseSeconds(v, src); }},
		{"Max Auto Prepare", nullptr, nullptr, Setting::MaxAutoPrepare,
			[](S& s, const std::string& v, const std::string& src) { s.maxAutoPrepare = parseCount(v, src); }},
		{"Auto Prepare Min Usages", nullptr, nullptr, Setting::AutoPrepareMinUsages,
			[](S& s, const std::string& v, const std::string& src) { s.autoPrepareMinUsages = autoPrepareMinUsages(v, src); }},
		{"Keepalive", "keepalives_idle", nullptr, Setting::Keepalive,
			[](S& s, const std::string& v, const std::string& src) { s.keepalive = parseKeepaliveSeconds(v, src); }},
		{"Tcp User Timeout", "tcp_user_timeout", nullptr, Setting::TcpUserTimeout,
			[](S& s, const std::string& v, const std::string& src) { s.tcpUserTimeout = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(parseCount(v, src)) * 1000); }},
		{"Failover Poll Milliseconds", nullptr, nullptr, Setting::FailoverPoll,
			[](S& s, const std::string& v, const std::string& src) { s.failoverPoll = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(parseCount(v, src)) * 1000); }},
		{"Require Auth", "require_auth", "PGREQUIREAUTH", Setting::RequireAuth,
			[](S& s, const std::string& v, const std::string& src) { s.requireAuth = RequireAuth::parse(v, src); }},
		{"Channel Binding", "channel_binding", "PGCHANNELBINDING", Setting::ChannelBinding,
			[](S& s, const std::string& v, const std::string& src) { s.channelBinding = parseChannelBinding(v, src); }},
		{"Read Your Writes", nullptr, nullptr, Setting::ReadYourWrites,
			[](S& s, const std::string& v, const std::string& src) { s.readYourWrites = parseBoolean(v, src); }},
		{"Read Your Writes Timeout", nullptr, nullptr, Setting::ReadYourWritesTimeout,
			[](S& s, const std::string& v, const std::string& src) { s.readYourWritesTimeout = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(parseCount(v, src)) * 1000); }},
		{"Max Standby Lag", nullptr, nullptr, Setting::MaxStandbyLag,
			[](S& s, const std::string& v, const std::string& src) { s.maxStandbyLag = parseByteSize(v, src); }},
		{"Role Recheck Milliseconds", "role_recheck_ms", nullptr, Setting::RoleRecheck,
			[](S& s, const std::string& v, const std::string& src) { s.roleRecheck = roleRecheckMilliseconds(v, src); }},
		// libpq keywords (doc/connection-strings.md, "libpq keywords")
		{"Host Address", "hostaddr", "PGHOSTADDR", Setting::HostAddress,
			[](S& s, const std::string& v, const std::string& src) { parseHostAddressList(v, src); s._hostAddressList = v; }},
		{"Service", "service", "PGSERVICE", Setting::Service,
			[](S& s, const std::string& v, const std::string&) { s._service = trim(v); }},
		{"Service File", "servicefile", "PGSERVICEFILE", Setting::ServiceFile,
			[](S& s, const std::string& v, const std::string&) { s._serviceFile = v; }},
		{"Options", "options", "PGOPTIONS", Setting::Options,
			[](S& s, const std::string& v, const std::string&) { s.options = v; }},
		{"Search Path", nullptr, nullptr, Setting::SearchPath,
			[](S& s, const std::string& v, const std::string&) { s.searchPath = v; }},
		{"Client Encoding", "client_encoding", "PGCLIENTENCODING", Setting::ClientEncoding,
			[](S&, const std::string& v, const std::string& src) { checkClientEncoding(v, src); }},
		{"Fallback Application Name", "fallback_application_name", nullptr, Setting::FallbackApplicationName,
			[](S& s, const std::string& v, const std::string&) { s.fallbackApplicationName = v; }},
		{"Keepalives", "keepalives", nullptr, Setting::Keepalives,
			[](S& s, const std::string& v, const std::string& src) { s.keepalives = parseKeepalives(v, src); }},
		{"Keepalives Interval", "keepalives_interval", nullptr, Setting::KeepalivesInterval,
			[](S& s, const std::string& v, const std::string& src) { s.keepaliveInterval = parseKeepaliveSeconds(v, src); }},
		{"Keepalives Count", "keepalives_count", nullptr, Setting::KeepalivesCount,
			[](S& s, const std::string& v, const std::string& src) { s.keepaliveCount = parseKeepaliveCount(v, src); }},
		{"Require Peer", "requirepeer", "PGREQUIREPEER", Setting::RequirePeer,
			[](S& s, const std::string& v, const std::string&) { s.requirePeer = trim(v); }},
		{"SSL Compression", "sslcompression", nullptr, Setting::SslCompression,
			[](S&, const std::string&, const std::string&) { /* libpq 17 ignores it (TLS compression is gone from OpenSSL 3 and PostgreSQL 14+) */ }},
		{"replication", nullptr, nullptr, Setting::Replication,
			[](S&, const std::string& v, const std::string& src) { checkReplication(v, src); }},
		{"GSS Library", "gsslib", nullptr, Setting::GssLibrary,
			[](S&, const std::string& v, const std::string& src) { checkGssLibrary(v, src); }},
		{"oauth_issuer", nullptr, nullptr, Setting::Refused, refuseOAuth},
		{"oauth_client_id", nullptr, nullptr, Setting::Refused, refuseOAuth},
		{"oauth_client_secret", nullptr, nullptr, Setting::Refused, refuseOAuth},
		{"oauth_scope", nullptr, nullptr, Setting::Refused, refuseOAuth},
		{"scram_client_key", nullptr, nullptr, Setting::Refused, refuseScramKeys},
		{"scram_server_key", nullptr, nullptr, Setting::Refused, refuseScramKeys},
		{"tty", nullptr, nullptr, Setting::Refused,
			[](S&, const std::string&, const std::string& src) { refuseKeyword(src, "tty is not a libpq 17 keyword any more (the server had ignored it since PostgreSQL 7.4)"); }},
		{"requiressl", nullptr, nullptr, Setting::Refused,
			[](S&, const std::string&, const std::string& src) { refuseKeyword(src, "requiressl is not a libpq 17 keyword any more; write sslmode=require"); }},
		// ---- TLS, protocol version and Kerberos keywords (doc/connection-strings.md) ----
		{"SSL Certificate", "sslcert", "PGSSLCERT", Setting::SslCertificate,
			[](S& s, const std::string& v, const std::string&) { s.sslCertificate = v; }},
		{"SSL Key", "sslkey", "PGSSLKEY", Setting::SslKey,
			[](S& s, const std::string& v, const std::string&) { s.sslKey = v; }},
		{"SSL Password", "sslpassword", nullptr, Setting::SslPassword,
			[](S& s, const std::string& v, const std::string&) { s.sslPassword = v; s._secrets.push_back(v); }},
		{"SSL Certificate Mode", "sslcertmode", "PGSSLCERTMODE", Setting::SslCertMode,
			[](S& s, const std::string& v, const std::string& src) { s.sslCertMode = parseSslCertMode(v, src); }},
		{"SSL CRL", "sslcrl", "PGSSLCRL", Setting::SslCrl,
			[](S& s, const std::string& v, const std::string&) { s.sslCrl = v; }},
		{"SSL CRL Directory", "sslcrldir", "PGSSLCRLDIR", Setting::SslCrlDirectory,
			[](S& s, const std::string& v, const std::string&) { s.sslCrlDirectory = v; }},
		{"SSL SNI", "sslsni", "PGSSLSNI", Setting::SslSni,
			[](S& s, const std::string& v, const std::string& src) { s.sslSni = parseBoolean(v, src); }},
		{"SSL Min Protocol Version", "ssl_min_protocol_version", "PGSSLMINPROTOCOLVERSION", Setting::SslMinProtocolVersion,
			[](S& s, const std::string& v, const std::string& src) { s.sslMinProtocolVersion = parseTlsProtocolVersion(v, src); }},
		{"SSL Max Protocol Version", "ssl_max_protocol_version", "PGSSLMAXPROTOCOLVERSION", Setting::SslMaxProtocolVersion,
			[](S& s, const std::string& v, const std::string& src) { s.sslMaxProtocolVersion = parseTlsProtocolVersion(v, src); }},
		{"SSL Key Log File", "sslkeylogfile", nullptr, Setting::SslKeyLogFile,
			[](S& s, const std::string& v, const std::string&) { s.sslKeyLogFile = v; }},
		{"Min Protocol Version", "min_protocol_version", "PGMINPROTOCOLVERSION", Setting::MinProtocolVersion,
			[](S& s, const std::string& v, const std::string& src) { s.minProtocolVersion = protocolVersion(v, src, false); }},
		{"Max Protocol Version", "max_protocol_version", "PGMAXPROTOCOLVERSION", Setting::MaxProtocolVersion,
			[](S& s, const std::string& v, const std::string& src) { s.maxProtocolVersion = protocolVersion(v, src, true); }},
		{"SSL Negotiation", "sslnegotiation", "PGSSLNEGOTIATION", Setting::SslNegotiation,
			[](S& s, const std::string& v, const std::string& src) { s.sslNegotiation = parseSslNegotiation(v, src); }},
		{"Kerberos Service Name", "krbsrvname", "PGKRBSRVNAME", Setting::KerberosServiceName,
			[](S& s, const std::string& v, const std::string& src) { s.kerberosServiceName = serviceName(v, src); }},
		{"GSS Encryption Mode", "gssencmode", "PGGSSENCMODE", Setting::GssEncMode,
			[](S& s, const std::string& v, const std::string& src) { s.gssEncMode = parseGssEncMode(v, src); }},
		{"GSS Delegation", "gssdelegation", "PGGSSDELEGATION", Setting::GssDelegation,
			[](S& s, const std::string& v, const std::string& src) { s.gssDelegation = parseBoolean(v, src); }},
		// ---- high availability (doc/high-availability.md) ----
		{"Topology Source", "topology_source", nullptr, Setting::TopologySource,
			[](S& s, const std::string& v, const std::string& src) { s.topologySource = topologySource(v, src);
				for (const std::string& secret: topologySourceSecrets(topologySourceLocation(s.topologySource))) s._secrets.push_back(secret); }},
		{"Topology Refresh Interval", "topology_refresh_interval", nullptr, Setting::TopologyRefresh,
			[](S& s, const std::string& v, const std::string& src) { s.topologyRefresh = topologyRefresh(v, src); }},
		{"Health Check Interval", "health_check_interval", nullptr, Setting::HealthCheckInterval,
			[](S& s, const std::string& v, const std::string& src) { s.healthCheckInterval = parseSeconds(v, src); }},
		{"Max Connecting", "max_connecting", nullptr, Setting::MaxConnecting,
			[](S& s, const std::string& v, const std::string& src) { s.maxConnecting = parseCount(v, src); }},
	};
	return keywords;
}


const ConnectionKeywords::Keyword* ConnectionKeywords::find(const std::string& written)
{
	const std::string wanted = asciiLower(trim(written));
	if (wanted.empty()) return nullptr;
	for (const Keyword& keyword: all())
	{
		const std::string canonical = asciiLower(keyword.name);
		std::string compact;
		for (char c: canonical)
		{
			if (c != ' ') compact += c;
		}
		if (wanted == canonical || wanted == compact) return &keyword;
		if (keyword.libpqName && wanted == keyword.libpqName) return &keyword;
	}
	return nullptr;
}


void ConnectionKeywords::apply(ConnectionSettings& settings, const Keyword& keyword, const std::string& value, const std::string& source)
{
	keyword.apply(settings, value, source);
}


void ConnectionKeywords::finish(ConnectionSettings& settings, bool deriveEndpoints, bool libpqDefaults)
{
	if (deriveEndpoints)
	{
		const bool addresses = !trim(settings._hostAddressList).empty();
		std::vector<HostElement> hosts;
		if (!trim(settings._hostList).empty())
		{
			// an empty element is allowed only where a hostaddr fills it in (applyHostAddresses checks)
			hosts = parseHostList(settings._hostList, settings._hostSource.empty() ? std::string("Host") : settings._hostSource, addresses);
		}
		else
		{
			// endpoints filled in by a program (no Host text): a new Port applies to their hosts
			for (const auto& endpoint: settings.endpoints) hosts.push_back(HostElement{endpoint.host(), 0, endpoint.address()});
		}
		if (addresses)
			applyHostAddresses(hosts, parseHostAddressList(settings._hostAddressList, "hostaddr"), settings._hostSource.empty() ? std::string("Host") : settings._hostSource);
		if (hosts.empty() && libpqDefaults)
			hosts.push_back(HostElement{defaultSocketDirectory(), 0, std::string()}); // libpq: no host means the local socket
		const std::vector<Poco::UInt16> ports = settings._portList.empty() ? std::vector<Poco::UInt16>() : parsePortList(settings._portList, "Port");
		settings.endpoints = resolveEndpoints(hosts, ports);
	}
	if (libpqDefaults && settings.username.empty())
		settings.username = LocalUser::name(); // libpq: the operating-system user's name

	// Database defaults to the user name, and keeps following it while it was not set explicitly.
	const bool defaulted = !settings._defaultDatabase.empty() && settings.database == settings._defaultDatabase;
	if (settings.database.empty() || defaulted)
	{
		settings.database = settings.username;
		settings._defaultDatabase = settings.username;
	}
}


namespace {

std::size_t editDistance(const std::string& a, const std::string& b)
	/// Levenshtein distance, for "nearest keyword" hints (keywords are short: O(n*m) is fine).
{
	std::vector<std::size_t> row(b.size() + 1);
	for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
	for (std::size_t i = 1; i <= a.size(); ++i)
	{
		std::size_t diagonal = row[0];
		row[0] = i;
		for (std::size_t j = 1; j <= b.size(); ++j)
		{
			const std::size_t above = row[j];
			row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0u : 1u)});
			diagonal = above;
		}
	}
	return row[b.size()];
}

} // namespace


const ConnectionKeywords::Keyword* ConnectionKeywords::nearest(const std::string& written)
{
	const std::string wanted = asciiLower(trim(written));
	const Keyword* best = nullptr;
	std::size_t bestDistance = 0;
	for (const Keyword& keyword: all())
	{
		std::string canonical = asciiLower(keyword.name);
		std::string compact = canonical;
		compact.erase(std::remove(compact.begin(), compact.end(), ' '), compact.end());
		std::vector<std::string> spellings = {canonical, compact};
		if (keyword.libpqName) spellings.push_back(keyword.libpqName);
		for (const std::string& spelling: spellings)
		{
			const std::size_t distance = editDistance(wanted, spelling);
			if (!best || distance < bestDistance)
			{
				best = &keyword;
				bestDistance = distance;
			}
		}
	}
	return best;
}


std::string ConnectionKeywords::serviceOf(const ConnectionSettings& settings)
{
	return settings._service;
}


std::string ConnectionKeywords::serviceFileOf(const ConnectionSettings& settings)
{
	return settings._serviceFile;
}



} } // namespace BlueTusk::Detail
