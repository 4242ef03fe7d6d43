//
// TlsUpgrade.h
//
// Library: BlueTusk/Transport
//
// Turning a connected plain socket into a TLS socket per SSL Mode, and the TLS facts SCRAM needs.
//

#ifndef BlueTusk_TlsUpgrade_INCLUDED
#define BlueTusk_TlsUpgrade_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "Deadline.h"
#include "Poco/Net/Context.h"
#include "Poco/Net/SecureStreamSocket.h"
#include "Poco/Net/StreamSocket.h"
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API TlsUpgrade
	/// The TLS handshake after the server answered 'S' to SSLRequest (PostgreSQL docs 55.2.10), with
	/// libpq's verification per SSL Mode (PostgreSQL docs 34.19.3):
	///   prefer, allow, require: encryption only, no certificate check (require with a Root Certificate
	///                            verifies the chain, as libpq does when a root certificate exists);
	///   verify-ca:   the chain must verify against the Root Certificate;
	///   verify-full: as verify-ca, and the endpoint's host as written must match the certificate
	///                (subjectAltName DNS or IP entries, else the CN; OpenSSL X509_check_host /
	///                X509_check_ip_asc, RFC 6125).
	/// Root Certificate "system" uses the system's trusted roots; empty means ~/.postgresql/root.crt.
	/// TLS 1.2 is the minimum unless SSL Min Protocol Version says otherwise; SSL Max Protocol Version caps
	/// it. With verification, SSL CRL / SSL CRL Directory (or ~/.postgresql/root.crl) are checked for the
	/// whole chain (X509_V_FLAG_CRL_CHECK_ALL, as libpq). SSL Key Log File receives the session keys in NSS
	/// key log format (libpq 18). A client certificate (SSL Certificate, SSL Key, SSL Password, SSL Certificate
	/// Mode, or libpq's ~/.postgresql/postgresql.crt and .key) is presented when the server asks for one
	/// (PostgreSQL docs 34.19.2). All failures throw Poco::Net::SSLException (or a subclass) with a message
	/// that names what to change, never a passphrase. Thread-safe.
{
public:
	struct Options
		/// What a TLS session is built from (the TLS keywords of ConnectionSettings).
	{
		SslMode mode = SslMode::Prefer;
		std::string rootCertificate;   /// Root Certificate
		std::string certificate;       /// SSL Certificate ("": ~/.postgresql/postgresql.crt when it exists)
		std::string key;               /// SSL Key ("": ~/.postgresql/postgresql.key)
		std::string password;          /// SSL Password: a secret
		SslCertMode certificateMode = SslCertMode::Allow; /// SSL Certificate Mode
		std::string crl;               /// SSL CRL ("" with crlDirectory "": ~/.postgresql/root.crl when it exists)
		std::string crlDirectory;      /// SSL CRL Directory
		bool sni = true;               /// SSL SNI: send the host name (never an IP literal)
		TlsProtocolVersion minimumVersion = TlsProtocolVersion::TLSv1_2; /// SSL Min Protocol Version
		TlsProtocolVersion maximumVersion = TlsProtocolVersion::None;    /// SSL Max Protocol Version
		std::string keyLogFile;        /// SSL Key Log File ("": off)
		bool direct = false;           /// SSL Negotiation=direct: offer ALPN "postgresql" and require it back

		static Options from(const ConnectionSettings& settings, SslMode mode);
			/// The settings' TLS keywords, with mode in place of settings.sslMode.
	};

	static Poco::Net::Context::Ptr context(const Options& options);
		/// The client context for options: cached per mode and root certificate while no client
		/// certificate is used; a new one (the files read again, as libpq reads them for every
		/// connection) when one is. Throws Poco::Net::SSLContextException when a file cannot be used: a
		/// missing root certificate, a missing SSL Certificate, a certificate without its key, a key
		/// readable by group or world, an encrypted key without (or with a wrong) SSL Password, a key that
		/// does not match; with SSL Certificate Mode=require when there is no client certificate; an SSL CRL or
		/// SSL CRL Directory given that cannot be loaded.

	static Poco::Net::SecureStreamSocket handshake(const Poco::Net::StreamSocket& plain, const BlueTuskHostEndpoint& endpoint, const Options& options, Poco::Net::Context::Ptr context, const Deadline& deadline);
		/// Runs the TLS handshake on plain with context (from context(options)) within deadline (SNI = the
		/// host name, not for IP literals) and verifies per options.mode. Do not use plain afterwards.
		/// Throws Poco::Net::SSLException (handshake or verification failed; with direct, also when the
		/// server did not select ALPN "postgresql"), Poco::TimeoutException, Poco network exceptions.

	static void checkCertificateMode(const Options& options, Poco::Net::Context::Ptr context, const BlueTuskHostEndpoint& endpoint);
		/// After handshake(): with SSL Certificate Mode=require, throws Poco::Net::SSLException when the
		/// server did not ask for a client certificate (libpq 16: "server did not request an SSL
		/// certificate").

	static bool certificateRequested(Poco::Net::Context::Ptr context);
		/// Whether a server asked for a client certificate during a handshake with context (a context with
		/// a client certificate only; false otherwise).

	static void initialize();
		/// Poco::Net::initializeSSL(), once per process (called by the other functions).

	static Poco::Net::Context::Ptr context(SslMode mode, const std::string& rootCertificate);
		/// The client context for mode without a client certificate (cached per mode and root
		/// certificate path).
		/// Throws Poco::Net::SSLContextException when the root certificate cannot be loaded.

	static Poco::Net::SecureStreamSocket handshake(const Poco::Net::StreamSocket& plain, const BlueTuskHostEndpoint& endpoint, SslMode mode, const std::string& rootCertificate, const Deadline& deadline);
		/// As handshake() above with context(mode, rootCertificate), without a client certificate.

	static std::string tlsServerEndPoint(const Poco::Net::SecureStreamSocket& socket);
		/// The tls-server-end-point channel binding data (RFC 5929 section 4.1): the hash of the server
		/// certificate with its signature's hash algorithm, SHA-256 when that is MD5 or SHA-1. Empty when
		/// it cannot be determined (e.g. Ed25519 certificates; SCRAM-SHA-256-PLUS is then not used).

	static bool matchesHost(const Poco::Net::SecureStreamSocket& socket, const std::string& host);
		/// Whether the peer certificate covers host (an IP literal is compared with IP entries).

	static std::string defaultRootCertificate();
		/// "$HOME/.postgresql/root.crt" ("" when HOME is not set).
};

} // namespace BlueTusk

#endif // BlueTusk_TlsUpgrade_INCLUDED
