//
// TlsUpgrade.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/TlsUpgrade.h"
#include "BlueTusk/CancellationWatch.h"
#include "ClientCertificate.h"
#include "SigpipeGuard.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/Mutex.h"
#include "Poco/Net/NetSSL.h"
#include "Poco/Net/SSLException.h"
#include "Poco/Net/X509Certificate.h"
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <atomic>
#include <map>
#include <mutex>

namespace BlueTusk {

namespace {

std::once_flag sslInitialized;

std::string modeText(SslMode mode)
{
	return "SSL Mode=" + toString(mode);
}


bool verifiesChain(SslMode mode, const std::string& rootCertificate)
{
	return mode == SslMode::VerifyCa || mode == SslMode::VerifyFull || (mode == SslMode::Require && !rootCertificate.empty());
}

} // namespace


void TlsUpgrade::initialize()
{
	std::call_once(sslInitialized, []
	{
		Poco::Net::initializeSSL();
	});
}


std::string TlsUpgrade::defaultRootCertificate()
{
	return Detail::ClientCertificate::postgresqlFile("root.crt");
}


TlsUpgrade::Options TlsUpgrade::Options::from(const ConnectionSettings& settings, SslMode mode)
{
	Options options;
	options.mode = mode;
	options.rootCertificate = settings.rootCertificate;
	options.certificate = settings.sslCertificate;
	options.key = settings.sslKey;
	options.password = settings.sslPassword;
	options.certificateMode = settings.sslCertMode;
	return options;
}


namespace {

struct CertificateState
	/// Kept in a client-certificate context's ex_data: whether a server asked for the certificate.
{
	std::atomic<bool> requested{false};
};


void freeCertificateState(void*, void* state, CRYPTO_EX_DATA*, int, long, void*)
{
	delete static_cast<CertificateState*>(state);
}


int certificateStateIndex()
{
	static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, freeCertificateState);
	return index;
}


int certificateRequestedCallback(SSL* ssl, void*)
	/// SSL_CTX_set_cert_cb: on a client, called when the server sends a CertificateRequest.
{
	auto* state = static_cast<CertificateState*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), certificateStateIndex()));
	if (state) state->requested = true;
	return 1;
}


Poco::Net::Context::Ptr newContext(bool verify, const std::string& caLocation, bool useSystem)
{
	Poco::Net::Context::Params params;
	params.caLocation = caLocation;
	params.verificationMode = verify ? Poco::Net::Context::VERIFY_RELAXED : Poco::Net::Context::VERIFY_NONE;
	params.verificationDepth = 9;
	params.loadDefaultCAs = useSystem;
	params.cipherList = "HIGH:!aNULL:!MD5:@STRENGTH";
	Poco::Net::Context::Ptr context;
	try
	{
		context = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
	}
	catch (Poco::Net::SSLException&)
	{
		throw;
	}
	catch (Poco::Exception& exc)
	{
		throw Poco::Net::SSLContextException("could not load root certificate \"" + caLocation + "\"", exc.displayText());
	}
	context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
	// Host names are checked by matchesHost() (OpenSSL's RFC 6125 matching, IP entries included),
	// not by Poco's extended verification.
	context->enableExtendedCertificateVerification(false);
	// Poco's Context installs SSLManager::verifyClientCallback, which on any chain error asks the process-wide
	// invalid-certificate handler: in a Poco::Util::Application that is a console prompt ("Accept the
	// certificate (y,n)?") even when the SSL Mode does not verify. BlueTusk decides alone, as libpq does:
	// without verification chain errors are ignored; with verify-ca/verify-full they fail the handshake.
	SSL_CTX_set_verify(context->sslContext(), verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
	return context;
}

} // namespace


Poco::Net::Context::Ptr TlsUpgrade::context(SslMode mode, const std::string& rootCertificate)
{
	Options options;
	options.mode = mode;
	options.rootCertificate = rootCertificate;
	options.certificateMode = SslCertMode::Disable;
	return context(options);
}


Poco::Net::Context::Ptr TlsUpgrade::context(const Options& options)
{
	initialize();
	const SslMode mode = options.mode;
	const std::string& rootCertificate = options.rootCertificate;
	const bool verify = verifiesChain(mode, rootCertificate);
	std::string caLocation;
	bool useSystem = false;
	if (verify)
	{
		if (rootCertificate == "system")
		{
			useSystem = true;
		}
		else
		{
			caLocation = rootCertificate.empty() ? defaultRootCertificate() : rootCertificate;
			if (caLocation.empty() || !Poco::File(caLocation).exists())
			{
				throw Poco::Net::SSLContextException("root certificate file \"" + caLocation + "\" does not exist; set Root Certificate "
					"(sslrootcert) to the CA file, use Root Certificate=system for the system's trusted roots, or use an SSL Mode "
					"that does not verify the certificate (" + modeText(mode) + ")");
			}
		}
	}
	Detail::ClientCertificateFiles files;
	if (options.certificateMode != SslCertMode::Disable) files = Detail::ClientCertificate::locate(options.certificate, options.key);
	if (options.certificateMode == SslCertMode::Require && files.empty())
	{
		const std::string fallback = Detail::ClientCertificate::postgresqlFile("postgresql.crt");
		throw Poco::Net::SSLContextException("SSL Certificate Mode=require (sslcertmode) needs a client certificate, and there is none: "
			"set SSL Certificate (sslcert) and SSL Key (sslkey)" + (fallback.empty() ? std::string() : ", or create \"" + fallback + "\""));
	}
	if (!files.empty())
	{
		// read for every connection (a renewed certificate is used at once), and never cached: the context
		// holds the private key and records whether the server asked for the certificate
		Poco::Net::Context::Ptr context = newContext(verify, caLocation, useSystem);
		Detail::ClientCertificate::use(context->sslContext(), files, options.password);
		SSL_CTX_set_ex_data(context->sslContext(), certificateStateIndex(), new CertificateState);
		SSL_CTX_set_cert_cb(context->sslContext(), certificateRequestedCallback, nullptr);
		return context;
	}
	const std::string key = std::to_string(verify ? 1 : 0) + (useSystem ? "system:" : "file:") + caLocation;
	static Poco::FastMutex mutex;
	static std::map<std::string, Poco::Net::Context::Ptr> contexts;
	Poco::FastMutex::ScopedLock lock(mutex);
	auto it = contexts.find(key);
	if (it != contexts.end()) return it->second;
	Poco::Net::Context::Ptr context = newContext(verify, caLocation, useSystem);
	contexts[key] = context;
	return context;
}


bool TlsUpgrade::certificateRequested(Poco::Net::Context::Ptr context)
{
	auto* state = static_cast<CertificateState*>(SSL_CTX_get_ex_data(context->sslContext(), certificateStateIndex()));
	return state && state->requested;
}


void TlsUpgrade::checkCertificateMode(const Options& options, Poco::Net::Context::Ptr context, const BlueTuskHostEndpoint& endpoint)
{
	if (options.certificateMode != SslCertMode::Require || certificateRequested(context)) return;
	throw Poco::Net::SSLException("the server at " + endpoint.toString() + " did not request an SSL certificate, but SSL Certificate "
		"Mode=require (sslcertmode) requires that the client send one (set ssl_ca_file in the server, or use sslcertmode=allow)");
}


namespace {

void completeWithin(Poco::Net::SecureStreamSocket& secure, const Deadline& deadline)
	/// Poco's attach() returns with the handshake unfinished when the server stalls (OpenSSL wants to read
	/// after the socket timeout): later reads and writes would each wait a socket timeout again, and an
	/// orderly TLS close another, three times Timeout in all (doc/reliability.md). Finish it here within
	/// the deadline, or abort the connection (no TLS close) and throw Poco::TimeoutException.
{
	for (;;)
	{
		int rc = 0;
		try
		{
			secure.setReceiveTimeout(deadline.socketTimeout());
			secure.setSendTimeout(deadline.socketTimeout());
			rc = secure.completeHandshake();
		}
		catch (Poco::TimeoutException&)
		{
			rc = 0;
		}
		if (rc == 1) return;
		if (deadline.expired() || deadline.isCancelled())
		{
			if (deadline.watch()) deadline.watch()->remove(secure);
			try
			{
				secure.abort();
			}
			catch (...)
			{
			}
			if (deadline.isCancelled()) throw Poco::Net::NetException("connection attempt cancelled");
			throw Poco::TimeoutException("the TLS handshake did not complete within the connect timeout of " +
				std::to_string(deadline.timeout().totalMilliseconds()) + " ms (the server accepted the SSLRequest, then stopped answering)");
		}
		secure.poll(deadline.socketTimeout(), Poco::Net::Socket::SELECT_READ);
	}
}

} // namespace


Poco::Net::SecureStreamSocket TlsUpgrade::handshake(const Poco::Net::StreamSocket& plain, const BlueTuskHostEndpoint& endpoint, SslMode mode, const std::string& rootCertificate, const Deadline& deadline)
{
	Options options;
	options.mode = mode;
	options.rootCertificate = rootCertificate;
	options.certificateMode = SslCertMode::Disable;
	return handshake(plain, endpoint, options, context(options), deadline);
}


Poco::Net::SecureStreamSocket TlsUpgrade::handshake(const Poco::Net::StreamSocket& plain, const BlueTuskHostEndpoint& endpoint, const Options& options, Poco::Net::Context::Ptr ctx, const Deadline& deadline)
{
	const SslMode mode = options.mode;
	const std::string& rootCertificate = options.rootCertificate;
	Poco::Net::StreamSocket socket(plain);
	socket.setReceiveTimeout(deadline.socketTimeout());
	socket.setSendTimeout(deadline.socketTimeout());
	const std::string sni = endpoint.kind() == BlueTuskHostEndpoint::HOST_NAME ? endpoint.host() : std::string();
	Detail::SigpipeGuard guard; // the handshake writes through OpenSSL
	// Initialized from attach() directly: Poco's default constructor would build (once per process)
	// SSLManager's default client context, loading the whole system CA store, for nothing
	// (doc/performance.md, R7). BlueTusk's own contexts come from context() above.
	Poco::Net::SecureStreamSocket secure = [&]()
	{
		try
		{
			Poco::Net::SecureStreamSocket attached = Poco::Net::SecureStreamSocket::attach(socket, sni, ctx);
			completeWithin(attached, deadline);
			return attached;
		}
		catch (Poco::Net::SSLException& exc)
		{
			std::string text = exc.message();
			if (verifiesChain(mode, rootCertificate) && text.find("certificate verify failed") != std::string::npos)
				throw Poco::Net::CertificateValidationException("the server certificate does not verify against the root certificate (" +
					modeText(mode) + ")", text);
			throw;
		}
	}();
	if (mode == SslMode::VerifyFull && !matchesHost(secure, endpoint.host()))
	{
		if (deadline.watch()) deadline.watch()->remove(secure);
		try
		{
			secure.close();
		}
		catch (...)
		{
		}
		throw Poco::Net::CertificateValidationException("the server certificate does not match host name \"" + endpoint.host() +
			"\" (" + modeText(mode) + ")");
	}
	return secure;
}


std::string TlsUpgrade::tlsServerEndPoint(const Poco::Net::SecureStreamSocket& socket)
{
	if (!socket.havePeerCertificate()) return std::string();
	Poco::Net::X509Certificate certificate = socket.peerCertificate();
	X509* cert = const_cast<X509*>(certificate.certificate());
	int mdNid = NID_undef, keyNid = NID_undef;
	if (!OBJ_find_sigid_algs(X509_get_signature_nid(cert), &mdNid, &keyNid)) return std::string();
	const EVP_MD* md = nullptr;
	if (mdNid == NID_md5 || mdNid == NID_sha1) md = EVP_sha256();
	else if (mdNid != NID_undef) md = EVP_get_digestbynid(mdNid);
	if (!md) return std::string();
	unsigned char hash[EVP_MAX_MD_SIZE];
	unsigned int length = 0;
	if (!X509_digest(cert, md, hash, &length)) return std::string();
	return std::string(reinterpret_cast<const char*>(hash), length);
}


bool TlsUpgrade::matchesHost(const Poco::Net::SecureStreamSocket& socket, const std::string& host)
{
	if (!socket.havePeerCertificate()) return false;
	Poco::Net::X509Certificate certificate = socket.peerCertificate();
	X509* cert = const_cast<X509*>(certificate.certificate());
	const BlueTuskHostEndpoint::Kind kind = BlueTuskHostEndpoint::kindOf(host);
	if (kind == BlueTuskHostEndpoint::IPV4_LITERAL || kind == BlueTuskHostEndpoint::IPV6_LITERAL)
		return X509_check_ip_asc(cert, host.substr(0, host.find('%')).c_str(), 0) == 1;
	return X509_check_host(cert, host.data(), host.size(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr) == 1;
}

} // namespace BlueTusk
