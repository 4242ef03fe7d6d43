//
// ConnectionKeywords.cpp
//
// Library: BlueTusk/Foundation
//
// The keyword table. To add a keyword: add its row here (doc/maintaining.md, "Adding a keyword").
//

#include "ConnectionKeywords.h"
#include "HostList.h"
#include "KeywordValueParsers.h"
#include "LibpqKeywordValues.h"
#include "SettingValues.h"
#include "TopologySourceValue.h"
#include "ValueText.h"
#include "BlueTusk/Lsn.h"

namespace BlueTusk {
namespace Detail {

namespace {

using S = ConnectionSettings;
using P = Printing;
using F = KeywordField;
using Value = const std::string&;


const F nothing = F{[](S&, Value, Value) {}, nullptr, nullptr, false};
	/// Accepted and ignored.

} // namespace


const std::vector<ConnectionKeywords::Keyword>& ConnectionKeywords::all()
{
	static const std::vector<Keyword> keywords = {
		// ---- always printed: the keywords with an environment variable, so that the text means the same in any environment ----
		{"Host", "host", "PGHOST",
			F{[](S& s, Value v, Value src) { parseHostList(v, src, true); s._hostList = v; s._hostSource = src; },
				[](const S& s) { return hostListText(s.endpoints); }, sameMember<&S::endpoints>, true},
			P::Always, "db-b"},
		{"Port", "port", "PGPORT",
			F{[](S& s, Value v, Value src) { parsePortList(v, src); s._portList = v; },
				[](const S& s) { return portListText(s.endpoints); }, nullptr, false}, // the endpoints: compared by Host
			P::Always, "6000"},
		{"Database", "dbname", "PGDATABASE",
			F{[](S& s, Value v, Value) { s.database = v; s._defaultDatabase.clear(); },
				[](const S& s) { return s.database; }, sameMember<&S::database>, true},
			P::Always, "sales"},
		{"Username", "user", "PGUSER", textField<&S::username>(), P::Always, "bob"},
		{"Password", "password", "PGPASSWORD", field<&S::password, keepText, formatText>(), P::WhenValueChanged, "example-secret", nullptr, true},
		{"Application Name", "application_name", "PGAPPNAME", textField<&S::applicationName>(), P::Always, "report"},
		{"Target Session Attributes", "target_session_attrs", "PGTARGETSESSIONATTRS",
			F{targetSession, formatTargetSession,
				[](const S& a, const S& b) { return a.targetSessionAttributes == b.targetSessionAttributes && a.targetSessionPolicy == b.targetSessionPolicy; },
				false},
			P::Always, "standby"},
		{"readonly", nullptr, nullptr, F{[](S& s, Value v, Value src) { s.targetSessionAttributes = readOnly(v, src); s.targetSessionPolicy.clear(); }},
			P::Always, "false", "Target Session Attributes"},
		{"Load Balance Hosts", "load_balance_hosts", "PGLOADBALANCEHOSTS", F{[](S& s, Value v, Value src) { s.hostOrder = loadBalanceHosts(v, src); }},
			P::Always, "true", "Host Order"},
		{"Host Order", "hostorder", nullptr, field<&S::hostOrder, hostOrderPolicy, formatText>(true), P::Always, "parallel"},
		{"Timeout", "connect_timeout", "PGCONNECT_TIMEOUT", field<&S::connectTimeout, parseSeconds, formatSeconds>(), P::Always, "7"},
		{"SSL Mode", "sslmode", "PGSSLMODE", field<&S::sslMode, parseSslMode, formatName<SslMode>>(), P::Always, "require"},
		{"Root Certificate", "sslrootcert", "PGSSLROOTCERT", textField<&S::rootCertificate>(), P::Always, "/etc/root.crt"},
		{"Passfile", "passfile", "PGPASSFILE", textField<&S::passfile>(), P::Always, "/etc/pgpass"},
		{"Require Auth", "require_auth", "PGREQUIREAUTH", field<&S::requireAuth, RequireAuth::parse, formatRequireAuth>(), P::Always, "scram-sha-256"},
		{"Channel Binding", "channel_binding", "PGCHANNELBINDING", field<&S::channelBinding, parseChannelBinding, formatName<ChannelBinding>>(), P::Always, "require"},
		{"Host Address", "hostaddr", "PGHOSTADDR",
			F{[](S& s, Value v, Value src) { parseHostAddressList(v, src); s._hostAddressList = v; },
				[](const S& s) { return hostAddressListText(s.endpoints); }, nullptr, true}, // the endpoints: compared by Host
			P::Always, "10.0.0.1"},
		{"Options", "options", "PGOPTIONS", textField<&S::options>(), P::Always, "-c statement_timeout=5s"},
		{"Client Encoding", "client_encoding", "PGCLIENTENCODING",
			F{[](S&, Value v, Value src) { checkClientEncoding(v, src); },
				[](const S&) { return std::string("UTF8"); }, nullptr, false}, // the only one BlueTusk speaks; printed so that PGCLIENTENCODING cannot apply
			P::Always, "utf-8"},
		{"Require Peer", "requirepeer", "PGREQUIREPEER", field<&S::requirePeer, trimmedText, formatText>(true), P::Always, "postgres"},
		{"Service", "service", "PGSERVICE",
			F{[](S& s, Value v, Value) { s._service = trim(v); },
				[](const S&) { return std::string(); }, nullptr, false}, // its keywords are in the settings already; printed empty to keep PGSERVICE out
			P::Always, nullptr},
		{"Service File", "servicefile", "PGSERVICEFILE", F{[](S& s, Value v, Value) { s._serviceFile = v; }}, P::Always, "/etc/pg_service.conf"},

		// ---- printed when not at their default ----
		{"Failover Timeout", "failover_timeout", nullptr, field<&S::failoverTimeout, parseSeconds, formatSeconds>(), P::WhenTextChanged, "30"},
		{"Host Recheck Seconds", nullptr, nullptr, field<&S::hostRecheck, parseSeconds, formatSeconds>(), P::WhenTextChanged, "4"},
		{"Pooling", nullptr, nullptr, field<&S::pooling, parseBoolean, formatBoolean>(), P::WhenTextChanged, "false"},
		{"Minimum Pool Size", nullptr, nullptr, field<&S::minPoolSize, parseCount, formatCount>(), P::WhenTextChanged, "2"},
		{"Maximum Pool Size", nullptr, nullptr, field<&S::maxPoolSize, maximumPoolSize, formatCount>(), P::WhenTextChanged, "20"},
		{"Connection Idle Lifetime", nullptr, nullptr, field<&S::connectionIdleLifetime, parseSeconds, formatSeconds>(), P::WhenTextChanged, "60"},
		{"Connection Lifetime", nullptr, nullptr, field<&S::connectionLifetime, parseSeconds, formatSeconds>(), P::WhenTextChanged, "600"},
		{"Checkout Timeout", nullptr, nullptr, field<&S::checkoutTimeout, parseSeconds, formatSeconds>(), P::WhenTextChanged, "5"},
		{"No Reset On Close", nullptr, nullptr, field<&S::noResetOnClose, parseBoolean, formatBoolean>(), P::WhenTextChanged, "true"},
		{"Eviction Policy", nullptr, nullptr, field<&S::evictionPolicy, evictionPolicyName, formatText>(true), P::WhenValueChanged, "lru"},
		{"Plugin Path", nullptr, nullptr, field<&S::pluginPath, pathList, joinPathList>(true), P::WhenValueChanged, "/opt/plugins"},
		{"Command Timeout", nullptr, nullptr, field<&S::commandTimeout, parseSeconds, formatSeconds>(), P::WhenTextChanged, "9"},
		{"Failover Poll Milliseconds", nullptr, nullptr, field<&S::failoverPoll, wholeMilliseconds, formatMilliseconds>(), P::WhenTextChanged, "200"},
		{"Max Auto Prepare", nullptr, nullptr, field<&S::maxAutoPrepare, parseCount, formatCount>(), P::WhenTextChanged, "16"},
		{"Server Pooling", nullptr, nullptr, field<&S::serverPooling, parseServerPooling, formatName<ServerPooling>>(), P::WhenTextChanged, "transaction"},
		{"Auto Prepare Min Usages", nullptr, nullptr, field<&S::autoPrepareMinUsages, autoPrepareMinUsages, formatCount>(), P::WhenTextChanged, "5"},
		{"Keepalive", "keepalives_idle", nullptr, field<&S::keepalive, parseKeepaliveSeconds, formatWholeSeconds>(), P::WhenTextChanged, "30"},
		{"Tcp User Timeout", "tcp_user_timeout", nullptr, field<&S::tcpUserTimeout, wholeMilliseconds, formatMilliseconds>(), P::WhenTextChanged, "5000"},
		{"Read Your Writes", nullptr, nullptr, field<&S::readYourWrites, parseBoolean, formatBoolean>(), P::WhenTextChanged, "true"},
		{"Read Your Writes Timeout", nullptr, nullptr, field<&S::readYourWritesTimeout, wholeMilliseconds, formatMilliseconds>(), P::WhenTextChanged, "250"},
		{"Max Standby Lag", nullptr, nullptr, field<&S::maxStandbyLag, parseByteSize, formatByteSizeSetting>(), P::WhenTextChanged, "16MB"},
		{"Role Recheck Milliseconds", "role_recheck_ms", nullptr, field<&S::roleRecheck, roleRecheckMilliseconds, formatMilliseconds>(), P::WhenTextChanged, "500"},
		{"Search Path", nullptr, nullptr, textField<&S::searchPath>(), P::WhenValueChanged, "app"},
		{"Fallback Application Name", "fallback_application_name", nullptr, textField<&S::fallbackApplicationName>(), P::WhenValueChanged, "tool"},
		{"Keepalives", "keepalives", nullptr, field<&S::keepalives, parseKeepalives, formatKeepalives>(), P::WhenValueChanged, "0"},
		{"Keepalives Interval", "keepalives_interval", nullptr, field<&S::keepaliveInterval, parseKeepaliveSeconds, formatWholeSeconds>(), P::WhenTextChanged, "10"},
		{"Keepalives Count", "keepalives_count", nullptr, field<&S::keepaliveCount, parseKeepaliveCount, formatCount>(), P::WhenTextChanged, "3"},

		// ---- libpq keywords that store nothing: accepted and ignored, only checked, or refused with the reason ----
		{"SSL Compression", "sslcompression", nullptr, nothing, P::Always, "1"}, // libpq 17 ignores it (no TLS compression in OpenSSL 3, PostgreSQL 14+)
		{"replication", nullptr, nullptr, F{[](S&, Value v, Value src) { checkReplication(v, src); }}, P::Always, "false"},
		{"GSS Library", "gsslib", nullptr, F{[](S&, Value v, Value src) { checkGssLibrary(v, src); }}, P::Always, "gssapi"},
		{"oauth_issuer", nullptr, nullptr, F{refuseOAuth}, P::Always, nullptr},
		{"oauth_client_id", nullptr, nullptr, F{refuseOAuth}, P::Always, nullptr},
		{"oauth_client_secret", nullptr, nullptr, F{refuseOAuth}, P::Always, nullptr},
		{"oauth_scope", nullptr, nullptr, F{refuseOAuth}, P::Always, nullptr},
		{"scram_client_key", nullptr, nullptr, F{refuseScramKeys}, P::Always, nullptr},
		{"scram_server_key", nullptr, nullptr, F{refuseScramKeys}, P::Always, nullptr},
		{"tty", nullptr, nullptr,
			F{[](S&, Value, Value src) { refuseKeyword(src, "tty is not a libpq 17 keyword any more (the server had ignored it since PostgreSQL 7.4)"); }},
			P::Always, nullptr},
		{"requiressl", nullptr, nullptr,
			F{[](S&, Value, Value src) { refuseKeyword(src, "requiressl is not a libpq 17 keyword any more; write sslmode=require"); }},
			P::Always, nullptr},

		// ---- TLS, protocol version and Kerberos (doc/connection-strings.md); those with an environment variable always printed ----
		{"SSL Certificate", "sslcert", "PGSSLCERT", textField<&S::sslCertificate>(), P::Always, "/etc/client.crt"},
		{"SSL Key", "sslkey", "PGSSLKEY", textField<&S::sslKey>(), P::Always, "/etc/client.key"},
		{"SSL Password", "sslpassword", nullptr, field<&S::sslPassword, keepText, formatText>(), P::WhenValueChanged, "example-key-secret", nullptr, true},
		{"SSL Certificate Mode", "sslcertmode", "PGSSLCERTMODE", field<&S::sslCertMode, parseSslCertMode, formatName<SslCertMode>>(), P::Always, "require"},
		{"SSL CRL", "sslcrl", "PGSSLCRL", textField<&S::sslCrl>(), P::Always, "/etc/root.crl"},
		{"SSL CRL Directory", "sslcrldir", "PGSSLCRLDIR", textField<&S::sslCrlDirectory>(), P::Always, "/etc/crl"},
		{"SSL SNI", "sslsni", "PGSSLSNI", field<&S::sslSni, parseBoolean, formatBoolean>(), P::Always, "false"},
		{"SSL Min Protocol Version", "ssl_min_protocol_version", "PGSSLMINPROTOCOLVERSION",
			field<&S::sslMinProtocolVersion, parseTlsProtocolVersion, formatName<TlsProtocolVersion>>(), P::Always, "TLSv1.3"},
		{"SSL Max Protocol Version", "ssl_max_protocol_version", "PGSSLMAXPROTOCOLVERSION",
			field<&S::sslMaxProtocolVersion, parseTlsProtocolVersion, formatName<TlsProtocolVersion>>(), P::Always, "TLSv1.3"},
		{"SSL Key Log File", "sslkeylogfile", nullptr, textField<&S::sslKeyLogFile>(), P::WhenValueChanged, "/tmp/keys.log"},
		{"Min Protocol Version", "min_protocol_version", "PGMINPROTOCOLVERSION",
			field<&S::minProtocolVersion, minimumProtocolVersion, formatMinimumProtocolVersion>(), P::Always, "3.2"},
		{"Max Protocol Version", "max_protocol_version", "PGMAXPROTOCOLVERSION",
			field<&S::maxProtocolVersion, maximumProtocolVersion, formatMaximumProtocolVersion>(), P::Always, "3.2"},
		{"SSL Negotiation", "sslnegotiation", "PGSSLNEGOTIATION", field<&S::sslNegotiation, parseSslNegotiation, formatName<SslNegotiation>>(), P::Always, "direct"},
		{"Kerberos Service Name", "krbsrvname", "PGKRBSRVNAME", field<&S::kerberosServiceName, kerberosServiceName, formatText>(true), P::Always, "HTTP"},
		{"GSS Encryption Mode", "gssencmode", "PGGSSENCMODE", field<&S::gssEncMode, parseGssEncMode, formatName<GssEncMode>>(), P::Always, "disable"},
		{"GSS Delegation", "gssdelegation", "PGGSSDELEGATION", field<&S::gssDelegation, parseBoolean, formatBoolean>(), P::Always, "true"},

		// ---- high availability (doc/high-availability.md) ----
		{"Topology Source", "topology_source", nullptr,
			F{[](S& s, Value v, Value src) { s.topologySource = topologySource(v, src);
					for (const std::string& secret: topologySourceSecrets(topologySourceLocation(s.topologySource))) s._secrets.push_back(secret); },
				[](const S& s) { return s.topologySource; }, sameMember<&S::topologySource>, true},
			P::WhenValueChanged, "patroni:http://10.0.0.1:8008"},
		{"Topology Refresh Interval", "topology_refresh_interval", nullptr, field<&S::topologyRefresh, topologyRefresh, formatSeconds>(), P::WhenTextChanged, "2.5"},
		{"Health Check Interval", "health_check_interval", nullptr, field<&S::healthCheckInterval, parseSeconds, formatSeconds>(), P::WhenTextChanged, "0.5"},
		{"Max Connecting", "max_connecting", nullptr, field<&S::maxConnecting, parseCount, formatCount>(), P::WhenTextChanged, "4"},
	};
	return keywords;
}

} } // namespace BlueTusk::Detail
