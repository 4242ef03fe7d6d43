//
// PeerTls.h
//
// Library: BlueTusk test peers
//
// The TLS side of the test peers: a server context with a certificate made in memory (EC P-256, self-signed,
// CN localhost, SAN 127.0.0.1) that selects a given ALPN protocol, for FakeBackend's direct TLS.
//

#ifndef BlueTusk_PeerTls_INCLUDED
#define BlueTusk_PeerTls_INCLUDED

#include "Poco/Net/Context.h"
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <string>

namespace BlueTusk {
namespace Test {

Poco::Net::Context::Ptr peerServerContext(const std::string& alpn);
	/// A TLS server context (cached per alpn; thread-safe) whose ALPN callback selects alpn when the client
	/// offers it ("" selects nothing: a server that ignores ALPN). No client certificate is requested.

X509* selfSignedCertificate(EVP_PKEY* key, const std::string& commonName, const std::string& subjectAltName = "");
	/// A certificate for key signed by itself, valid for a day, CN commonName, with the subjectAltName
	/// extension when given ("IP:127.0.0.1,DNS:localhost"). The caller frees it (X509_free).

} } // namespace BlueTusk::Test

#endif // BlueTusk_PeerTls_INCLUDED
