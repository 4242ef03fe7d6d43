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
#include "BlueTusk/Deadline.h"
#include "BlueTusk/TargetSessionAttributes.h"
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
	/// TLS 1.2 is the minimum. All failures throw Poco::Net::SSLException (or a subclass) with a message
	/// that names what to change. Thread-safe.
{
public:
	static void initialize();
		/// Poco::Net::initializeSSL(), once per process (called by the other functions).

	static Poco::Net::Context::Ptr context(SslMode mode, const std::string& rootCertificate);
		/// The client context for mode (cached per mode and root certificate path).
		/// Throws Poco::Net::SSLContextException when the root certificate cannot be loaded.

	static Poco::Net::SecureStreamSocket handshake(const Poco::Net::StreamSocket& plain, const BlueTuskHostEndpoint& endpoint, SslMode mode, const std::string& rootCertificate, const Deadline& deadline);
		/// Runs the TLS handshake on plain within deadline (SNI = the host name, not for IP literals) and
		/// verifies per mode. Do not use plain afterwards. Throws Poco::Net::SSLException (handshake or
		/// verification failed), Poco::TimeoutException, Poco network exceptions.

	static std::string tlsServerEndPoint(const Poco::Net::SecureStreamSocket& socket);
		/// The tls-server-end-point channel binding data (RFC 5929 section 4.1): the hash of the server
		/// certificate with its signature's hash algorithm, SHA-256 when that is MD5 or SHA-1. Empty when
		/// it cannot be determined (e.g. Ed25519 certificates; SCRAM-SHA-256-PLUS is then not used).

	static bool matchesHost(const Poco::Net::SecureStreamSocket& socket, const std::string& host);
		/// Whether the peer certificate covers host (an IP literal is compared with IP entries).

	static std::string defaultRootCertificate();
		/// "$HOME/.postgresql/root.crt".
};

} // namespace BlueTusk

#endif // BlueTusk_TlsUpgrade_INCLUDED
