//
// KeywordValueParsers.h
//
// Library: BlueTusk/Foundation
//
// Value parsers of single keywords of the keyword table (ConnectionKeywords) that need more than a value
// type's parser (SettingValues.h): ranges, synonyms' value sets, refusals.
//

#ifndef BlueTusk_Detail_KeywordValueParsers_INCLUDED
#define BlueTusk_Detail_KeywordValueParsers_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "Poco/Timespan.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

// Every function takes the keyword as written (or the environment variable) for its message and throws
// BlueTuskConnectionStringException naming it.

std::string hostOrderPolicy(const std::string& value, const std::string& source);
	/// Host Order: a non-empty policy name, trimmed.

std::string evictionPolicyName(const std::string& value, const std::string& source);
	/// Eviction Policy: a non-empty policy name, trimmed.

std::string trimmedText(const std::string& value, const std::string& source);
	/// Free text with the white space around it dropped (Require Peer, Service).

std::vector<std::string> pathList(const std::string& value, const std::string& source);
	/// Plugin Path: entries separated by ','; empty entries are dropped.

std::string joinPathList(const std::vector<std::string>& entries);
	/// The inverse of pathList: the entries joined with ','.

std::string loadBalanceHosts(const std::string& value, const std::string& source);
	/// libpq's load_balance_hosts (disable, random) and Npgsql's Load Balance Hosts (true, false), as a
	/// Host Order policy name.

int autoPrepareMinUsages(const std::string& value, const std::string& source);
	/// Auto Prepare Min Usages: 1 or more (Npgsql's range).

void targetSession(ConnectionSettings& settings, const std::string& value, const std::string& source);
	/// Target Session Attributes: a standard name sets settings.targetSessionAttributes (and clears
	/// targetSessionPolicy); any other policy name (letters, digits, '-', '_', '.', starting with a letter
	/// or digit) is a site target-session policy's: settings.targetSessionPolicy, the target Any.

std::string formatTargetSession(const ConnectionSettings& settings);
	/// The inverse of targetSession: the site policy's name, or the standard name.

TargetSessionAttributes readOnly(const std::string& value, const std::string& source);
	/// The 2016 proposal's readonly: true = any server will do, false = a writable server is required.

int maximumPoolSize(const std::string& value, const std::string& source);
	/// Maximum Pool Size: 1 or more.

Poco::Timespan wholeMilliseconds(const std::string& value, const std::string& source);
	/// A count of milliseconds 0..2147483647 (Tcp User Timeout, Failover Poll Milliseconds, Read Your Writes
	/// Timeout).

Poco::Timespan roleRecheckMilliseconds(const std::string& value, const std::string& source);
	/// Role Recheck Milliseconds: whole milliseconds, 0 (recheck on every checkout) up to one hour.

Poco::Timespan topologyRefresh(const std::string& value, const std::string& source);
	/// Topology Refresh Interval: seconds, at least 0.05 (a source is not asked more than 20 times a second).

std::string kerberosServiceName(const std::string& value, const std::string& source);
	/// krbsrvname: the Kerberos service name of the server principal, not empty.

int minimumProtocolVersion(const std::string& value, const std::string& source);
	/// min_protocol_version (libpq 18): "3.0", "3.2" or "latest" (= 3.2), as a minor version number.

int maximumProtocolVersion(const std::string& value, const std::string& source);
	/// max_protocol_version (libpq 18): as minimumProtocolVersion, and "" for not given (-1).

std::string formatRequireAuth(const RequireAuth& requireAuth);
	/// Require Auth as written back: RequireAuth::toString().

std::string formatKeepalives(ConnectionSettings::Keepalives keepalives);
	/// keepalives: "true" (On), "false" (Off), "" (Unset: not printed).

std::string formatMinimumProtocolVersion(int minor);
	/// "3.<minor>".

std::string formatMaximumProtocolVersion(int minor);
	/// "3.<minor>", or "" for -1 (not given).

[[noreturn]] void refuseOAuth(ConnectionSettings& settings, const std::string& value, const std::string& source);
	/// PostgreSQL 18's oauth_issuer, oauth_client_id, oauth_client_secret, oauth_scope.

[[noreturn]] void refuseScramKeys(ConnectionSettings& settings, const std::string& value, const std::string& source);
	/// PostgreSQL 18's scram_client_key, scram_server_key (set by postgres_fdw, not by users).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_KeywordValueParsers_INCLUDED
