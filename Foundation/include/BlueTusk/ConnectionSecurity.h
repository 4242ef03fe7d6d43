//
// ConnectionSecurity.h
//
// Library: BlueTusk/Foundation
//
// The security modes of a connection (TLS, channel binding, client certificate, protocol versions, GSSAPI
// encryption) and the authentication methods a server may use, with their canonical names.
//

#ifndef BlueTusk_ConnectionSecurity_INCLUDED
#define BlueTusk_ConnectionSecurity_INCLUDED

#include "BlueTusk/Foundation.h"
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

} // namespace BlueTusk

#endif // BlueTusk_ConnectionSecurity_INCLUDED
