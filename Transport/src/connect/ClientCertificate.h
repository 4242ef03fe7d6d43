//
// ClientCertificate.h
//
// Library: BlueTusk/Transport
//
// The client certificate of a TLS session: which files (SSL Certificate, SSL Key or libpq's defaults),
// the private key's permission check, and loading an encrypted key with SSL Password (PostgreSQL docs
// 34.19.2 "Client Certificates", 34.1.2 sslcert, sslkey, sslpassword, sslcertmode).
//

#ifndef BlueTusk_Detail_ClientCertificate_INCLUDED
#define BlueTusk_Detail_ClientCertificate_INCLUDED

#include <openssl/ssl.h>
#include <string>

namespace BlueTusk {
namespace Detail {

struct ClientCertificateFiles
	/// The files a session presents, or none (both empty).
{
	std::string certificate; /// the certificate (chain) file
	std::string key;         /// its private key file

	bool empty() const
	{
		return certificate.empty();
	}
};


class ClientCertificate
	/// Stateless helpers; thread-safe. Every failure throws Poco::Net::SSLContextException whose message
	/// names the keyword (SSL Certificate (sslcert), SSL Key (sslkey), SSL Password (sslpassword)) and
	/// the file, never the passphrase.
{
public:
	static std::string postgresqlFile(const std::string& name);
		/// "$HOME/.postgresql/<name>", libpq's directory for root.crt, postgresql.crt and .key; "" when HOME
		/// is not set.

	static ClientCertificateFiles locate(const std::string& certificate, const std::string& key);
		/// The files to use. An empty certificate means ~/.postgresql/postgresql.crt, used only when it
		/// exists (libpq); a certificate given that does not exist is an error (BlueTusk is stricter than
		/// libpq, which silently sends none). An empty key means ~/.postgresql/postgresql.key; a
		/// certificate without its key file is an error (libpq: "certificate present, but not private
		/// key file").

	static void checkKeyPermissions(const std::string& keyFile);
		/// libpq's rule for private keys (fe-secure-openssl.c): a regular file; owned by the current user,
		/// no group or other permission bits (0600 or less); owned by another user (root, for keys shared
		/// system-wide), no group write or execute and no other bits (0640 or less).

	static void use(SSL_CTX* context, const ClientCertificateFiles& files, const std::string& password);
		/// Loads the certificate chain and the private key (PEM, encrypted PEM/PKCS#8 with password,
		/// or DER) into context and checks that they match.
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ClientCertificate_INCLUDED
