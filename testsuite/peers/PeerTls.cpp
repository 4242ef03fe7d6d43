//
// PeerTls.cpp
//
// Library: BlueTusk test peers
//

#include "PeerTls.h"
#include "Poco/Net/NetSSL.h"
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <map>
#include <memory>
#include <mutex>

namespace BlueTusk {
namespace Test {

namespace {

struct Identity
	/// The peers' key and self-signed certificate, made once per process.
{
	EVP_PKEY* key = nullptr;
	X509* certificate = nullptr;

	Identity()
	{
		key = EVP_EC_gen("P-256");
		certificate = selfSignedCertificate(key, "localhost", "IP:127.0.0.1,DNS:localhost");
	}
};


int selectAlpn(SSL*, const unsigned char** out, unsigned char* outLength, const unsigned char* in, unsigned int inLength, void* arg)
{
	const std::string& wanted = *static_cast<const std::string*>(arg);
	for (unsigned int i = 0; !wanted.empty() && i < inLength; i += 1u + in[i])
	{
		if (in[i] == wanted.size() && i + 1u + in[i] <= inLength && std::string(reinterpret_cast<const char*>(in + i + 1), in[i]) == wanted)
		{
			*out = in + i + 1;
			*outLength = in[i];
			return SSL_TLSEXT_ERR_OK;
		}
	}
	return SSL_TLSEXT_ERR_NOACK;
}

} // namespace


X509* selfSignedCertificate(EVP_PKEY* key, const std::string& commonName, const std::string& subjectAltName)
{
	X509* certificate = X509_new();
	ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1);
	X509_gmtime_adj(X509_getm_notBefore(certificate), 0);
	X509_gmtime_adj(X509_getm_notAfter(certificate), 86400);
	X509_set_pubkey(certificate, key);
	X509_NAME* name = X509_get_subject_name(certificate);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
	X509_set_issuer_name(certificate, name);
	if (!subjectAltName.empty())
	{
		X509V3_CTX v3;
		X509V3_set_ctx(&v3, certificate, certificate, nullptr, nullptr, 0);
		X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, subjectAltName.c_str());
		X509_add_ext(certificate, san, -1);
		X509_EXTENSION_free(san);
	}
	X509_sign(certificate, key, EVP_sha256());
	return certificate;
}


Poco::Net::Context::Ptr peerServerContext(const std::string& alpn)
{
	static std::mutex mutex;
	static std::map<std::string, std::pair<Poco::Net::Context::Ptr, std::unique_ptr<std::string>>> contexts;
	std::lock_guard<std::mutex> lock(mutex);
	auto found = contexts.find(alpn);
	if (found != contexts.end()) return found->second.first;
	Poco::Net::initializeSSL();
	static Identity identity;
	Poco::Net::Context::Params params;
	params.verificationMode = Poco::Net::Context::VERIFY_NONE;
	Poco::Net::Context::Ptr context = new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, params);
	SSL_CTX_use_certificate(context->sslContext(), identity.certificate);
	SSL_CTX_use_PrivateKey(context->sslContext(), identity.key);
	std::unique_ptr<std::string> wanted(new std::string(alpn));
	SSL_CTX_set_alpn_select_cb(context->sslContext(), selectAlpn, wanted.get());
	contexts[alpn] = std::make_pair(context, std::move(wanted));
	return context;
}

} } // namespace BlueTusk::Test
