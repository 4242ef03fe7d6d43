//
// ConnectionKeywords.h
//
// Library: BlueTusk/Foundation
//
// The keyword table of doc/connection-strings.md: every accepted spelling of every keyword, its environment
// variable, and how its value is applied to ConnectionSettings.
//

#ifndef BlueTusk_Detail_ConnectionKeywords_INCLUDED
#define BlueTusk_Detail_ConnectionKeywords_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

enum class Setting
	/// What a keyword sets. Keywords sharing a Setting are the same keyword for the "last one wins" rule
	/// and for the environment fallback (Host Order and Load Balance Hosts; Target Session Attributes and
	/// readonly).
{
	Host, Port, Database, Username, Password, ApplicationName, TargetSessionAttributes, HostOrder,
	Timeout, FailoverTimeout, HostRecheck, SslMode, Pooling, MinPoolSize, MaxPoolSize, IdleLifetime,
	Lifetime, CheckoutTimeout, NoResetOnClose, EvictionPolicy, PluginPath, Passfile, RootCertificate,
	CommandTimeout, MaxAutoPrepare, AutoPrepareMinUsages, Keepalive, TcpUserTimeout, RequireAuth, ChannelBinding,
	FailoverPoll, ReadYourWrites, ReadYourWritesTimeout, MaxStandbyLag, RoleRecheck,
	// libpq keywords
	HostAddress, Service, ServiceFile, Options, SearchPath, ClientEncoding, FallbackApplicationName, Keepalives,
	KeepalivesInterval, KeepalivesCount, RequirePeer, SslCompression, Replication, GssLibrary, Refused,
	// TLS, protocol version and Kerberos keywords
	SslCertificate, SslKey, SslPassword, SslCertMode, SslCrl, SslCrlDirectory, SslSni, SslMinProtocolVersion,
	SslMaxProtocolVersion, SslKeyLogFile, MinProtocolVersion, MaxProtocolVersion, SslNegotiation,
	KerberosServiceName, GssEncMode, GssDelegation,
	// high availability: topology sources, the health monitor, storm control (doc/high-availability.md)
	TopologySource, TopologyRefresh, HealthCheckInterval, MaxConnecting
};


struct ConnectionKeywords
	/// Friend of ConnectionSettings: applies keyword values to it.
{
	using Apply = void (*)(ConnectionSettings& settings, const std::string& value, const std::string& source);

	struct Keyword
	{
		const char* name;        /// canonical (Npgsql style) name, e.g. "Target Session Attributes"
		const char* libpqName;   /// libpq synonym (or the 2016 proposal's name), e.g. "target_session_attrs", or nullptr
		const char* environment; /// the environment variable used when the Setting is not given, or nullptr
		Setting setting;
		Apply apply;
	};

	static const std::vector<Keyword>& all();
		/// Every keyword, in the order of doc/connection-strings.md's table, then readonly, Command Timeout,
		/// the statement cache's Max Auto Prepare and Auto Prepare Min Usages, Keepalive, Tcp User Timeout,
		/// Require Auth, Channel Binding, Failover Poll Milliseconds and the freshness rules (Read Your Writes,
		/// Read Your Writes Timeout, Max Standby Lag), then Role Recheck Milliseconds, then the libpq
		/// libpq keywords (hostaddr, service, options, ..., and those refused with a reason), then the TLS,
		/// protocol version and Kerberos keywords (SSL Certificate, SSL Key, SSL Password, SSL Certificate Mode,
		/// SSL CRL, SSL CRL Directory, SSL SNI, SSL Min and Max Protocol Version, SSL Key Log File, Min and Max
		/// Protocol Version, SSL Negotiation, Kerberos Service Name, GSS Encryption Mode, GSS Delegation), then the
		/// high-availability keywords (Topology Source, Topology Refresh Interval, Health Check Interval,
		/// Max Connecting).

	static const Keyword* find(const std::string& written);
		/// The keyword written (trimmed, any letter case) as its canonical name, the canonical name without
		/// spaces ("TargetSessionAttributes") or its libpq name; nullptr if none.

	static void apply(ConnectionSettings& settings, const Keyword& keyword, const std::string& value, const std::string& source);
		/// Parses value and stores it; source (the keyword as written, or "PGPORT (environment)") names the
		/// value in messages. Throws BlueTuskConnectionStringException for an invalid value. Host and
		/// Port are validated and kept as text; finish() derives the endpoints.

	static void finish(ConnectionSettings& settings, bool deriveEndpoints, bool libpqDefaults = false);
		/// When deriveEndpoints, derives the endpoints from the Host, hostaddr and Port text in force (or,
		/// without Host text, from the hosts of the endpoints already there; with libpqDefaults and neither,
		/// the default Unix-socket directory). With libpqDefaults an empty user name becomes the operating
		/// system user's (LocalUser::name()), as in libpq. Then defaults the database to the user name.
		/// Throws BlueTuskConnectionStringException for a port or hostaddr count mismatch.

	static std::string serviceOf(const ConnectionSettings& settings);
		/// The Service given to settings (trimmed), or "".

	static std::string serviceFileOf(const ConnectionSettings& settings);
		/// The Service File given to settings, or "".

	static const Keyword* nearest(const std::string& written);
		/// The keyword whose spelling (libpq name, canonical name, or canonical name without spaces) is the
		/// fewest edits away from written (case-insensitive); for "did you mean" hints. Never nullptr.

};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ConnectionKeywords_INCLUDED
