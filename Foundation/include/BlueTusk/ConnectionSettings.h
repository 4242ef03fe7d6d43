//
// ConnectionSettings.h
//
// Library: BlueTusk/Foundation
//
// The settings object every connection string form parses into, and its TLS and authentication values
// (SslMode, ChannelBinding, RequireAuth, ...; doc/connection-strings.md).
//

#ifndef BlueTusk_ConnectionSettings_INCLUDED
#define BlueTusk_ConnectionSettings_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/SecretRedactor.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Timespan.h"
#include "Poco/Types.h"
#include <map>
#include <string>
#include <vector>

namespace BlueTusk {

enum class SslMode
	/// libpq's sslmode (PostgreSQL docs 34.19.3 "Protection Provided in Different Modes").
{
	Disable,    /// "disable"
	Allow,      /// "allow": plain first, TLS if the server insists
	Prefer,     /// "prefer": TLS if the server offers it, else plain (the default)
	Require,    /// "require": TLS or fail; no certificate verification
	VerifyCa,   /// "verify-ca": TLS, certificate chain verified against Root Certificate
	VerifyFull  /// "verify-full": as verify-ca, and the host name must match the certificate
};

BlueTusk_Foundation_API std::string toString(SslMode mode);
BlueTusk_Foundation_API SslMode parseSslMode(const std::string& text, const std::string& keyword = "SSL Mode");
	/// Case-insensitive; throws BlueTuskConnectionStringException naming keyword and the accepted values.


enum class ChannelBinding
	/// libpq's channel_binding (PostgreSQL docs 34.1.2): whether SCRAM-SHA-256-PLUS binds the
	/// authentication to the TLS channel (tls-server-end-point).
{
	Disable,  /// "disable": never bind (SCRAM-SHA-256 with the 'n' flag even when PLUS is offered)
	Prefer,   /// "prefer": bind when the session uses TLS and the server offers SCRAM-SHA-256-PLUS (the default)
	Require   /// "require": the server must authenticate with SCRAM-SHA-256-PLUS over TLS; any other
	          /// method (trust, cleartext, MD5, SCRAM without binding) fails the open
};

BlueTusk_Foundation_API std::string toString(ChannelBinding mode);
BlueTusk_Foundation_API ChannelBinding parseChannelBinding(const std::string& text, const std::string& keyword = "Channel Binding");
	/// Case-insensitive; throws BlueTuskConnectionStringException naming keyword and the accepted values.


enum class AuthenticationMethod
	/// The methods libpq 16's require_auth names. BlueTusk speaks None, Password, Md5 and ScramSha256;
	/// Gss and Sspi are accepted in a require_auth list (a "!gss" is meaningful) but never performed.
{
	None,         /// "none": the server asks for no authentication (trust)
	Password,     /// "password": AuthenticationCleartextPassword
	Md5,          /// "md5": AuthenticationMD5Password
	ScramSha256,  /// "scram-sha-256": SASL with SCRAM-SHA-256 or SCRAM-SHA-256-PLUS
	Gss,          /// "gss"
	Sspi          /// "sspi"
};

BlueTusk_Foundation_API std::string toString(AuthenticationMethod method);
	/// "none", "password", "md5", "scram-sha-256", "gss", "sspi".


class BlueTusk_Foundation_API RequireAuth
	/// libpq 16's require_auth (PostgreSQL docs 34.1.2): the authentication methods the server may use.
	/// A comma-separated list of method names; every element may instead be negated with '!' ("!md5,
	/// !password": anything but these). Positive and negative elements cannot be mixed, and no method may
	/// appear twice. An empty list (the default) allows everything. A positive list without "none" refuses
	/// a server that authenticates the client without asking (trust); "!none" requires the server to ask.
	/// Plain value; thread-safe to read.
{
public:
	RequireAuth();
		/// No requirement: every method is allowed.

	static RequireAuth parse(const std::string& text, const std::string& keyword = "Require Auth");
		/// Parses the list (white space around elements ignored, any letter case). Throws
		/// BlueTuskConnectionStringException naming keyword and the problem (an unknown method with the
		/// accepted names, a mix of negated and plain elements, a repeated method, an empty element).

	bool allows(AuthenticationMethod method) const;
		/// Whether the server may use method.

	bool empty() const;
		/// True when there is no requirement.

	std::string toString() const;
		/// The canonical list ("scram-sha-256,none", "!md5,!password"), "" without requirement; parses back.

	bool operator == (const RequireAuth& other) const;
	bool operator != (const RequireAuth& other) const;

private:
	std::vector<AuthenticationMethod> _methods; /// in canonical order
	bool _negated = false;
};


// ---- TLS, protocol version and Kerberos keywords (doc/connection-strings.md) ----

enum class SslCertMode
	/// libpq 16's sslcertmode (PostgreSQL docs 34.1.2): whether a client certificate may be sent.
{
	Disable,  /// "disable": never send one, even when SSL Certificate or the default file exists
	Allow,    /// "allow": send one when the server asks and one is configured (the default)
	Require   /// "require": the server must ask for a certificate and the client must send one
};

BlueTusk_Foundation_API std::string toString(SslCertMode mode);
BlueTusk_Foundation_API SslCertMode parseSslCertMode(const std::string& text, const std::string& keyword = "SSL Certificate Mode");
	/// Case-insensitive; throws BlueTuskConnectionStringException naming keyword and the accepted values.

enum class TlsProtocolVersion
	/// libpq's ssl_min_protocol_version / ssl_max_protocol_version values (PostgreSQL docs 34.1.2).
{
	None,     /// "": no bound (OpenSSL's own limit)
	TLSv1,    /// "TLSv1" (TLS 1.0)
	TLSv1_1,  /// "TLSv1.1"
	TLSv1_2,  /// "TLSv1.2" (libpq's default minimum)
	TLSv1_3   /// "TLSv1.3"
};

BlueTusk_Foundation_API std::string toString(TlsProtocolVersion version);
	/// "", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3".
BlueTusk_Foundation_API TlsProtocolVersion parseTlsProtocolVersion(const std::string& text, const std::string& keyword);
	/// Case-insensitive, as libpq; empty (or only white space) is None. Throws
	/// BlueTuskConnectionStringException naming keyword and the accepted values.

enum class SslNegotiation
	/// libpq 17's sslnegotiation (PostgreSQL docs 34.1.2): how TLS begins.
{
	Postgres,  /// "postgres": SSLRequest first, TLS after the server's 'S' (the default, every server)
	Direct     /// "direct": the TLS handshake at once, with ALPN "postgresql" (PostgreSQL 17 or later)
};

BlueTusk_Foundation_API std::string toString(SslNegotiation negotiation);
BlueTusk_Foundation_API SslNegotiation parseSslNegotiation(const std::string& text, const std::string& keyword = "SSL Negotiation");
	/// Case-insensitive; throws BlueTuskConnectionStringException naming keyword and the accepted values.

enum class GssEncMode
	/// libpq's gssencmode (PostgreSQL docs 34.1.2): GSSAPI transport encryption.
{
	Disable,  /// "disable": never
	Prefer,   /// "prefer" (libpq's default): BlueTusk does not implement GSSAPI encryption, so as disable
	Require   /// "require": refused while parsing (no GSSAPI encryption in BlueTusk; use TLS)
};

BlueTusk_Foundation_API std::string toString(GssEncMode mode);
BlueTusk_Foundation_API GssEncMode parseGssEncMode(const std::string& text, const std::string& keyword = "GSS Encryption Mode");
	/// Case-insensitive; throws BlueTuskConnectionStringException naming keyword and the accepted values.


namespace Detail {
struct ConnectionKeywords;
}


enum class ServerPooling
	/// Server Pooling: what sits between the client and PostgreSQL (doc/poolers.md).
{
	Auto,        /// "auto" (the default): a server or a session pooler until the server shows otherwise
	Session,     /// "session": a server, or a pooler that gives each client one server session (no pooler mode)
	Transaction  /// "transaction": a pooler that may give each transaction another server session (PgBouncer's
	             /// pool_mode=transaction): unnamed statements only, no reset that reaches other clients
};

BlueTusk_Foundation_API std::string toString(ServerPooling mode);
BlueTusk_Foundation_API ServerPooling parseServerPooling(const std::string& text, const std::string& keyword = "Server Pooling");
	/// Throws BlueTuskConnectionStringException naming keyword for a value other than auto, session, transaction.


class BlueTusk_Foundation_API ConnectionSettings
	/// All keywords of a connection string, resolved: environment fallbacks (PGHOST, PGPORT, ...) and
	/// defaults are applied by parse(). Plain data with public members; copy it freely. Not synchronized:
	/// do not modify one object from several threads.
	///
	/// Accepted forms (see doc/connection-strings.md):
	///   - Npgsql style:  "Host=db-a,db-b;Port=5432,6432;Target Session Attributes=prefer-standby"
	///   - libpq keyword/value: "host=db-a,db-b port=5432 target_session_attrs=read-write"
	///   - URL: "postgresql://user:secret@db-a:5432,db-b:6432/app?target_session_attrs=standby"
{
public:
	std::vector<BlueTuskHostEndpoint> endpoints;
		/// The ordered host list with each host's port resolved (own :port, positional Port, shared Port,
		/// 5432). Duplicates are kept as written.
	std::string database;          /// Database / dbname; defaults to the user name
	std::string username;          /// Username / user
	std::string password;          /// Password; never printed (toString() shows Password=***)
	std::string applicationName;   /// Application Name / application_name
	TargetSessionAttributes targetSessionAttributes = TargetSessionAttributes::Any;
		/// Target Session Attributes / target_session_attrs when it is one of the seven standard names.
	std::string targetSessionPolicy;
		/// Target Session Attributes naming a site target-session policy (a plugin, doc/plugins.md) instead
		/// of a standard name: that name as written (trimmed), with targetSessionAttributes left Any. The
		/// name is resolved when a data source or connection is created (an unknown one fails there, listing
		/// the names loaded). Empty for a standard target.
	std::string hostOrder = "sequential";
		/// Host Order / hostorder, or "random" from Load Balance Hosts=true: a host-order policy name.
	Poco::Timespan connectTimeout = Poco::Timespan(15, 0);
		/// Timeout / connect_timeout: one deadline for one host (resolve, every address, TLS, startup,
		/// authentication, role probe). Zero means no limit. Given in seconds (decimals accepted).
	Poco::Timespan failoverTimeout = 0;
		/// Failover Timeout / failover_timeout: how long to keep retrying the host list (0: one pass).
	Poco::Timespan failoverPoll = Poco::Timespan(0, 50000);
		/// Failover Poll Milliseconds: while Failover Timeout runs and a pass reached healthy servers whose
		/// role did not suit the target, the wait before the next pass (0: the ordinary backoff).
	Poco::Timespan hostRecheck = Poco::Timespan(10, 0);
		/// Host Recheck Seconds: how long a learned host state is trusted.
	Poco::Timespan roleRecheck = 0;
		/// Role Recheck Milliseconds: a pooled session handed to a targeted checkout (target not any) keeps
		/// the role its last ReadyForQuery confirmed when that arrived less than this long ago, without a
		/// round trip (HikariCP's aliveBypassWindowMs for roles); 0, the default, refreshes the role on every
		/// targeted checkout (doc/pooling.md, "Role refresh"). Whole milliseconds, at most one hour.
	SslMode sslMode = SslMode::Prefer;   /// SSL Mode / sslmode
	std::string rootCertificate;         /// Root Certificate / sslrootcert
	std::string passfile;                /// Passfile / passfile; empty means ~/.pgpass
	bool pooling = true;                 /// Pooling
	int minPoolSize = 0;                 /// Minimum Pool Size, per endpoint
	int maxPoolSize = 100;               /// Maximum Pool Size, per endpoint
	Poco::Timespan connectionIdleLifetime = Poco::Timespan(300, 0); /// Connection Idle Lifetime
	Poco::Timespan connectionLifetime = 0;     /// Connection Lifetime (0: never retire)
	Poco::Timespan checkoutTimeout = Poco::Timespan(15, 0); /// Checkout Timeout (0: no limit)
	bool noResetOnClose = false;               /// No Reset On Close
	std::string evictionPolicy = "standard";   /// Eviction Policy
	std::vector<std::string> pluginPath;       /// Plugin Path: extra plugin directories or files
	Poco::Timespan commandTimeout = 0;         /// Command Timeout (0: none)
	int maxAutoPrepare = 128;
		/// Max Auto Prepare: SQL texts a session keeps prepared in its statement cache (least recently used
		/// ones are closed beyond it); 0 turns automatic preparation off (Npgsql's keyword and meaning).
	ServerPooling serverPooling = ServerPooling::Auto;
		/// Server Pooling: auto, session or transaction (doc/poolers.md). With transaction, every statement
		/// is an unnamed one (Parse, Bind, Execute in one write: no round trip of its own), the statement cache
		/// is off whatever Max Auto Prepare says, a returning lease is rolled back but not DISCARDed, and a
		/// role is learned by a query rather than from ParameterStatus a pooler may replay from its cache.
	int autoPrepareMinUsages = 2;
		/// Auto Prepare Min Usages: executions of one SQL text through query() before it is prepared (1 or
		/// more; Npgsql's keyword).
	Poco::Timespan keepalive = 0;
		/// Keepalive / keepalives_idle: whole seconds of idle before the first TCP keepalive probe and
		/// between probes (SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL on every TCP socket); 0 leaves
		/// keepalives off (the operating system's default). At most 32767.
	Poco::Timespan tcpUserTimeout = 0;
		/// Tcp User Timeout / tcp_user_timeout: given in milliseconds; how long transmitted data may stay
		/// unacknowledged before the kernel drops the connection (TCP_USER_TIMEOUT); 0 leaves the
		/// operating system's default (retransmissions for about 15 minutes).
	RequireAuth requireAuth;
		/// Require Auth / require_auth (PGREQUIREAUTH): the authentication methods the server may use
		/// (libpq 16 semantics; empty: any). A server asking for another fails the open with
		/// BlueTuskAuthenticationException.
	ChannelBinding channelBinding = ChannelBinding::Prefer;
		/// Channel Binding / channel_binding (PGCHANNELBINDING): disable, prefer, require.
	bool readYourWrites = false;
		/// Read Your Writes: a data source remembers the WAL position of each write lease it gets back
		/// (BlueTuskConnection::walPosition(), one round trip at the lease's return) and a read checkout
		/// then takes a standby only once it has replayed that far (doc/freshness.md).
	Poco::Timespan readYourWritesTimeout = Poco::Timespan(1, 0);
		/// Read Your Writes Timeout: given in milliseconds (default 1000); how long a checkout with a token
		/// waits for a standby it holds to replay up to the token before prefer-standby and any take the
		/// primary and standby and read-only fail; 0: no wait.
	Poco::UInt64 maxStandbyLag = 0;
		/// Max Standby Lag: bytes of WAL (units B, kB, MB, GB, TB as in postgresql.conf) a standby may be
		/// behind the primary and still be taken by standby, read-only and prefer-standby checkouts; 0: no
		/// limit (doc/freshness.md).

	// libpq keywords (doc/connection-strings.md, "libpq keywords"); hostaddr lives in the endpoints
	// (BlueTuskHostEndpoint::address()), service and client_encoding are applied by parse().

	enum class Keepalives
		/// libpq's keepalives switch.
	{
		Unset, /// not given: SO_KEEPALIVE only when Keepalive, Keepalives Interval or Keepalives Count is set
		On,    /// keepalives=1: SO_KEEPALIVE on, the other three (or the system's defaults) for its timing
		Off    /// keepalives=0: SO_KEEPALIVE left off whatever the other three say
	};

	std::string fallbackApplicationName;
		/// Fallback Application Name / fallback_application_name: sent as application_name when
		/// Application Name is empty (libpq; PostgreSQL docs 34.1.2).
	std::string options;
		/// Options / options (PGOPTIONS): command-line options for the server, sent unchanged as the
		/// "options" startup parameter, e.g. "-c search_path=app -c statement_timeout=5s" (a space or '\'
		/// inside one value is escaped with '\', as the server reads it: PostgreSQL docs 55.2.2).
	std::string searchPath;
		/// Search Path (Npgsql): appended to the options as "-c search_path=<value>" (spaces and '\' escaped).
	Keepalives keepalives = Keepalives::Unset;
		/// Keepalives / keepalives: see Keepalives.
	Poco::Timespan keepaliveInterval = 0;
		/// Keepalives Interval / keepalives_interval: whole seconds between keepalive probes (TCP_KEEPINTVL);
		/// 0: the Keepalive value when that is set, else the system's. At most 32767.
	int keepaliveCount = 0;
		/// Keepalives Count / keepalives_count: unanswered probes before the connection is dropped
		/// (TCP_KEEPCNT); 0: the system's (9). At most 127.
	std::string requirePeer;
		/// Require Peer / requirepeer (PGREQUIREPEER): on a Unix-domain socket, the operating-system user
		/// the server must run as (SO_PEERCRED); a different one fails the open before anything is sent,
		/// like an authentication failure. Ignored for TCP, as in libpq. Empty: no check.

	// ---- TLS, protocol version and Kerberos keywords (doc/connection-strings.md, doc/transport.md) ----
	std::string sslCertificate;
		/// SSL Certificate / sslcert (PGSSLCERT): the client certificate file (PEM, the chain after the
		/// certificate); empty means ~/.postgresql/postgresql.crt, used only when that file exists.
	std::string sslKey;
		/// SSL Key / sslkey (PGSSLKEY): the client certificate's private key (PEM or DER, optionally
		/// encrypted); empty means ~/.postgresql/postgresql.key. Refused when group or world can read it
		/// (libpq's permission rule).
	std::string sslPassword;
		/// SSL Password / sslpassword: the passphrase of an encrypted SSL Key. A secret like Password:
		/// never printed (toString() shows SSL Password=***), logged or put in an exception.
	SslCertMode sslCertMode = SslCertMode::Allow;
		/// SSL Certificate Mode / sslcertmode (PGSSLCERTMODE): disable, allow, require (libpq 16).
	std::string sslCrl;
		/// SSL CRL / sslcrl (PGSSLCRL): a certificate revocation list file (PEM) checked when the server
		/// certificate is verified; with neither SSL CRL nor SSL CRL Directory, ~/.postgresql/root.crl when it
		/// exists.
	std::string sslCrlDirectory;
		/// SSL CRL Directory / sslcrldir (PGSSLCRLDIR): a directory of CRLs named by hash (openssl rehash).
	bool sslSni = true;
		/// SSL SNI / sslsni (PGSSLSNI): send the host name in the TLS handshake (never for an IP literal).
	TlsProtocolVersion sslMinProtocolVersion = TlsProtocolVersion::TLSv1_2;
		/// SSL Min Protocol Version / ssl_min_protocol_version (PGSSLMINPROTOCOLVERSION).
	TlsProtocolVersion sslMaxProtocolVersion = TlsProtocolVersion::None;
		/// SSL Max Protocol Version / ssl_max_protocol_version (PGSSLMAXPROTOCOLVERSION); None: no bound.
	std::string sslKeyLogFile;
		/// SSL Key Log File / sslkeylogfile (libpq 18): append the TLS session keys in NSS key log format
		/// (for Wireshark) to this file, created with mode 0600; empty: off.
	int minProtocolVersion = 0;
		/// Min Protocol Version / min_protocol_version (PGMINPROTOCOLVERSION, libpq 18): the lowest minor
		/// version of protocol 3 the session accepts: 0 ("3.0", the default) or 2 ("3.2"; "latest" = 2).
	int maxProtocolVersion = -1;
		/// Max Protocol Version / max_protocol_version (PGMAXPROTOCOLVERSION, libpq 18): the minor version
		/// requested in the StartupMessage: 0 ("3.0"), 2 ("3.2", "latest"); -1 (not given, printed as ""):
		/// 3.0, or Min Protocol Version when that is higher (requestedProtocolVersion()).

	SslNegotiation sslNegotiation = SslNegotiation::Postgres;
		/// SSL Negotiation / sslnegotiation (PGSSLNEGOTIATION, libpq 17): postgres (SSLRequest first) or
		/// direct (TLS at once, ALPN "postgresql"; PostgreSQL 17+). direct needs SSL Mode require or stronger.

	std::string kerberosServiceName = "postgres";
		/// Kerberos Service Name / krbsrvname (PGKRBSRVNAME): the service of the server's principal; GSSAPI
		/// authentication asks for "<name>@<host>" (the host as written).
	GssEncMode gssEncMode = GssEncMode::Prefer;
		/// GSS Encryption Mode / gssencmode (PGGSSENCMODE): disable or prefer (both: no GSSAPI encryption,
		/// which BlueTusk does not implement); require is refused by validate().
	bool gssDelegation = false;
		/// GSS Delegation / gssdelegation (PGGSSDELEGATION): forward the client's Kerberos credentials to the
		/// server (GSS_C_DELEG_FLAG), libpq 16; default off.

	// High availability (doc/high-availability.md)
	std::string topologySource;
		/// Topology Source / topology_source: "<source>:<location>" names a topology source plugin and where
		/// it reads the cluster's members, e.g. "patroni:http://10.0.0.1:8008,http://10.0.0.2:8008" (Patroni's
		/// REST API, GET /cluster) or "pg_auto_failover:host=monitor port=5432 dbname=pg_auto_failover ..."
		/// (the pg_auto_failover monitor). A data source then uses the members the source reports as its
		/// host list (the endpoints written here are the seed: used until the first successful read, and
		/// appended to the last members read while reads fail); empty: the host list as written. A direct
		/// open (BlueTuskConnection::open()) does not use it. Passwords in the location are secrets
		/// (redactor(), toString()).
	Poco::Timespan topologyRefresh = Poco::Timespan(1, 0);
		/// Topology Refresh Interval / topology_refresh_interval: seconds between two reads of the topology
		/// source (a source that pushes changes, like pg_auto_failover's LISTEN channel, is read at once on
		/// a push); at least 0.05. A member added or removed is used or dropped within one interval (plus
		/// the read's own time: at most Timeout, capped at 5 s).
	Poco::Timespan healthCheckInterval = Poco::Timespan(1, 0);
		/// Health Check Interval / health_check_interval: seconds between two rounds of the connector's background
		/// health monitor for a data source's endpoints (down ones re-probed, and kept DOWN past hostRecheck while
		/// watched; roles watched through idle sessions; an endpoint shared by data sources: their smallest interval,
		/// at least 10 ms; doc/high-availability.md); 0: off for this data source. Direct opens never use it.
	int maxConnecting = 2;
		/// Max Connecting / max_connecting: new sessions being opened at once per endpoint per data source (checkouts,
		/// races, warm-up, rebalancing: PoolStatistics::connecting; MongoDB's maxConnecting, default 2); further checkouts
		/// wait for one to end or a returned session, within Checkout Timeout (doc/high-availability.md). 0: no limit.

	int requestedProtocolVersion() const;
		/// The minor protocol version the StartupMessage asks for: Max Protocol Version, or when not given the
		/// higher of 3.0 and Min Protocol Version.

	ConnectionSettings();

	static ConnectionSettings parse(const std::string& connectionString);
		/// Parses any of the three forms, then the keywords of a named service (service / PGSERVICE, from
		/// the service files: doc/connection-strings.md) for what the string did not give, then environment
		/// fallbacks, then libpq's defaults (no host: defaultSocketDirectory(); no user: the operating-system
		/// user, LocalUser::name()) and the others, then validate(). A keyword given more than once (under any of its names) takes the last value, as
		/// in libpq and Npgsql. Throws BlueTuskConnectionStringException naming the keyword or position
		/// and what is wrong (never the value of Password). Reads the process environment; thread-safe.

	static ConnectionSettings parse(const std::string& connectionString, const std::map<std::string, std::string>& environment);
		/// As parse(), with the environment given explicitly (for tests); variables absent from the map
		/// are treated as unset.

	void set(const std::string& keyword, const std::string& value);
		/// Applies one keyword (any accepted spelling, case-insensitive) as if it were written last in
		/// the connection string; used for configuration overrides. Re-derives the endpoints when Host
		/// or Port changes (a Port given to settings whose endpoints a program filled in applies to their
		/// hosts); other keywords leave the endpoints alone. A database that was defaulted follows a new
		/// Username. Throws BlueTuskConnectionStringException like parse(), leaving the settings
		/// unchanged. Checks the value only: call validate() after applying several overrides (e.g. both
		/// pool sizes). Service and Service File are refused (a service only fills in what a connection
		/// string leaves out); hostaddr re-derives the endpoints like Host and Port.

	std::string toString() const;
		/// A canonical Npgsql-style connection string that parses back to equal settings, with
		/// "Password=***" in place of any password (omitted when there is none; the re-parsed password is
		/// then "***"). A password of 3 or more characters is masked as "***" inside any other free-text
		/// value too (malformed input can put it there); such a value does not round-trip. Host lists the
		/// hosts without ports and Port the ports (one when all are equal, else positional). Every keyword
		/// with an environment fallback is always written, so the text means the same whatever the
		/// environment; the others only when not at their default. Ends with ';' (always the Npgsql form).

	SecretRedactor redactor() const;
		/// The redaction point for every message about these settings: knows the password in force and
		/// every secret parse() and set() saw (each password value given, PGPASSWORD, and every text of the
		/// connection string or of a set() value that might be a password, wherever malformed input put
		/// it: a "password=" tail inside another value, the user info of a broken URL). Transport, Routing
		/// and Pooling pass their exceptions and log lines through it; toString() uses it too. A
		/// connection string with more possible password fragments than BlueTusk collects (over 1,024, or
		/// 1 MiB of them: thousands of ':' before an '@' in a URL's user info, thousands of "password=")
		/// gives a redactor that masks every message whole (SecretRedactor::complete() false), and
		/// toString() then prints every free-text value as "***" (doc/reliability.md, finding 12).

	void addSecret(const std::string& secret);
		/// Makes redactor() treat secret as a secret too (e.g. a password a program looked up itself).

	std::string hostList() const;
		/// The endpoints' display forms joined with ","; for messages.

	static std::string defaultSocketDirectory();
		/// The Unix-socket directory parse() uses when no host is given (libpq's rule): the first of
		/// /var/run/postgresql (where Debian's libpq and server put the socket) and /tmp (upstream
		/// PostgreSQL's default) that exists as a directory, else /var/run/postgresql. Looked up on each
		/// call, at parse time. Thread-safe.

	static std::string defaultSocketDirectory(const std::vector<std::string>& candidates);
		/// The first of candidates that exists as a directory, else the first candidate ("" for none).

	void validate() const;
		/// Checks what involves more than one keyword, as parse() does at the end: at least one host
		/// ("Host is required ..."), a user name ("Username is required ..."), Minimum Pool Size not
		/// above Maximum Pool Size, SSL Min Protocol Version not above SSL Max Protocol Version, Min Protocol
		/// Version not above Max Protocol Version, SSL Negotiation=direct only with SSL Mode require, verify-ca
		/// or verify-full, GSS Encryption Mode not require. Throws
		/// BlueTuskConnectionStringException.

	bool operator == (const ConnectionSettings& other) const;
		/// Compares every public member (the endpoints, not how Host and Port were written).
	bool operator != (const ConnectionSettings& other) const;

private:
	friend struct Detail::ConnectionKeywords;

	std::string _hostList;        /// the Host text in force (given or PGHOST); endpoints derive from it
	std::string _hostSource;      /// how the Host text in force was given ("host", "PGHOST (environment)"), for messages
	std::string _hostAddressList; /// the hostaddr text in force (given or PGHOSTADDR), or empty
	std::string _service;         /// the Service given (or PGSERVICE), read by parse()
	std::string _serviceFile;     /// the Service File given (or PGSERVICEFILE), or empty
	std::string _portList;        /// the Port text in force (given or PGPORT), or empty
	std::string _defaultDatabase; /// the user name that database was defaulted to, or empty
	std::vector<std::string> _secrets; /// what redactor() knows besides password; not compared by ==
	bool _secretsComplete = true;      /// false when _secrets lacks some candidates (too many to collect)
};

} // namespace BlueTusk

#endif // BlueTusk_ConnectionSettings_INCLUDED
