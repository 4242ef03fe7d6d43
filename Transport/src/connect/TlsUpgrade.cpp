//
// TlsUpgrade.cpp
//
// Library: BlueTusk/Transport
//

#include "TlsUpgrade.h"
#include "CancellationWatch.h"
#include "ClientCertificate.h"
#include "protocol/SigpipeGuard.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/Logger.h"
#include "Poco/Mutex.h"
#include "Poco/Net/NetSSL.h"
#include "Poco/Net/SSLException.h"
#include "Poco/Net/X509Certificate.h"
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
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
	options.crl = settings.sslCrl;
	options.crlDirectory = settings.sslCrlDirectory;
	options.sni = settings.sslSni;
	options.minimumVersion = settings.sslMinProtocolVersion;
	options.maximumVersion = settings.sslMaxProtocolVersion;
	options.keyLogFile = settings.sslKeyLogFile;
	options.direct = settings.sslNegotiation == SslNegotiation::Direct;
	return options;
}


namespace {

struct CertificateState
	/// Kept in every context's ex_data: whether a server asked for the client certificate (contexts with
	/// one only), and SSL Key Log File.
{
	std::atomic<bool> requested{false};
	std::string keyLogFile;
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


thread_local int verifyError = X509_V_OK;
	/// The first chain verification error of the handshake running in this thread (attach() and
	/// completeHandshake() run the handshake in the calling thread), for the message: "certificate revoked",
	/// "certificate has expired", "unable to get local issuer certificate".


thread_local std::string selectedAlpn;
	/// The ALPN protocol the server selected in the handshake running in this thread (set when it is done).


void recordHandshake(const SSL* ssl, int where, int)
	/// SSL_CTX_set_info_callback: at the end of a handshake, which ALPN protocol the server selected.
{
	if (!(where & SSL_CB_HANDSHAKE_DONE)) return;
	const unsigned char* protocol = nullptr;
	unsigned int length = 0;
	SSL_get0_alpn_selected(ssl, &protocol, &length);
	selectedAlpn.assign(reinterpret_cast<const char*>(protocol ? protocol : reinterpret_cast<const unsigned char*>("")), length);
}


const unsigned char postgresqlAlpn[] = {10, 'p', 'o', 's', 't', 'g', 'r', 'e', 's', 'q', 'l'};
	/// ALPN "postgresql" in wire form (length-prefixed), PostgreSQL docs 54.2.10 "SSL Session Encryption".


int recordVerifyError(int preverified, X509_STORE_CTX* store)
	/// SSL_CTX_set_verify callback: records the error, leaves the decision to OpenSSL.
{
	if (!preverified && verifyError == X509_V_OK) verifyError = X509_STORE_CTX_get_error(store);
	return preverified;
}


int protocolVersion(TlsProtocolVersion version)
	/// OpenSSL's version number; 0 (no bound) for None.
{
	switch (version)
	{
	case TlsProtocolVersion::TLSv1: return TLS1_VERSION;
	case TlsProtocolVersion::TLSv1_1: return TLS1_1_VERSION;
	case TlsProtocolVersion::TLSv1_2: return TLS1_2_VERSION;
	case TlsProtocolVersion::TLSv1_3: return TLS1_3_VERSION;
	default: return 0;
	}
}


void writeKeyLog(const SSL* ssl, const char* line)
	/// SSL_CTX_set_keylog_callback: appends one NSS key log line to SSL Key Log File (created 0600). A file
	/// that cannot be written is logged as a warning; the session goes on (libpq 18 does the same).
{
	const auto* state = static_cast<const CertificateState*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), certificateStateIndex()));
	if (!state || state->keyLogFile.empty()) return;
	const int fd = ::open(state->keyLogFile.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
	{
		Poco::Logger::get("BlueTusk.Transport").warning("could not open SSL key log file \"%s\" (SSL Key Log File): %s",
			state->keyLogFile, std::string(std::strerror(errno)));
		return;
	}
	const std::string text = std::string(line) + "\n";
	const ssize_t written = ::write(fd, text.data(), text.size());
	if (written != static_cast<ssize_t>(text.size()))
		Poco::Logger::get("BlueTusk.Transport").warning("could not write SSL key log file \"%s\" (SSL Key Log File)", state->keyLogFile);
	::close(fd);
}


std::pair<std::string, std::string> crlLocations(const TlsUpgrade::Options& options)
	/// The CRL file and directory to load: those given (each must exist), or ~/.postgresql/root.crl when it
	/// exists (libpq's default), or none.
{
	struct stat info;
	if (options.crl.empty() && options.crlDirectory.empty())
	{
		const std::string fallback = Detail::ClientCertificate::postgresqlFile("root.crl");
		if (!fallback.empty() && ::stat(fallback.c_str(), &info) == 0) return {fallback, std::string()};
		return {};
	}
	if (!options.crl.empty() && ::stat(options.crl.c_str(), &info) != 0)
		throw Poco::Net::SSLContextException("SSL CRL (sslcrl): certificate revocation list file \"" + options.crl + "\" cannot be read (" +
			std::strerror(errno) + ")");
	if (!options.crlDirectory.empty() && (::stat(options.crlDirectory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)))
		throw Poco::Net::SSLContextException("SSL CRL Directory (sslcrldir): \"" + options.crlDirectory + "\" is not a readable directory");
	return {options.crl, options.crlDirectory};
}


void loadCrls(SSL_CTX* context, const std::pair<std::string, std::string>& locations)
{
	if (locations.first.empty() && locations.second.empty()) return;
	X509_STORE* store = SSL_CTX_get_cert_store(context);
	ERR_clear_error();
	if (X509_STORE_load_locations(store, locations.first.empty() ? nullptr : locations.first.c_str(),
		locations.second.empty() ? nullptr : locations.second.c_str()) != 1)
	{
		const unsigned long code = ERR_peek_last_error();
		ERR_clear_error();
		const char* reason = code ? ERR_reason_error_string(code) : nullptr;
		throw Poco::Net::SSLContextException(std::string(locations.first.empty() ? "SSL CRL Directory (sslcrldir)" : "SSL CRL (sslcrl)") +
			": could not load certificate revocation list \"" + (locations.first.empty() ? locations.second : locations.first) + "\": " +
			(reason ? reason : "unknown OpenSSL error"));
	}
	X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
}


Poco::Net::Context::Ptr newContext(bool verify, const std::string& caLocation, bool useSystem, const TlsUpgrade::Options& options,
	const std::pair<std::string, std::string>& crls)
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
	// libpq's ssl_min_protocol_version (default TLSv1.2) and ssl_max_protocol_version
	SSL_CTX_set_min_proto_version(context->sslContext(), protocolVersion(options.minimumVersion));
	SSL_CTX_set_max_proto_version(context->sslContext(), protocolVersion(options.maximumVersion));
	if (verify) loadCrls(context->sslContext(), crls);
	auto* state = new CertificateState;
	state->keyLogFile = options.keyLogFile;
	SSL_CTX_set_ex_data(context->sslContext(), certificateStateIndex(), state);
	if (!options.keyLogFile.empty()) SSL_CTX_set_keylog_callback(context->sslContext(), writeKeyLog);
	if (options.direct)
	{
		// direct TLS (PostgreSQL 17): the server requires ALPN "postgresql" (the client must see it back)
		SSL_CTX_set_alpn_protos(context->sslContext(), postgresqlAlpn, sizeof(postgresqlAlpn));
		SSL_CTX_set_info_callback(context->sslContext(), recordHandshake);
	}
	// Host names are checked by matchesHost() (OpenSSL's RFC 6125 matching, IP entries included),
	// not by Poco's extended verification.
	context->enableExtendedCertificateVerification(false);
	// Poco's Context installs SSLManager::verifyClientCallback, which on any chain error asks the process-wide
	// invalid-certificate handler: in a Poco::Util::Application that is a console prompt ("Accept the
	// certificate (y,n)?") even when the SSL Mode does not verify. BlueTusk decides alone, as libpq does:
	// without verification chain errors are ignored; with verify-ca/verify-full they fail the handshake.
	SSL_CTX_set_verify(context->sslContext(), verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, verify ? recordVerifyError : nullptr);
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
					"that does not verify the certificate (it is " + modeText(mode) + "; require encrypts without verifying)");
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
	const std::pair<std::string, std::string> crls = verify ? crlLocations(options) : std::pair<std::string, std::string>();
	if (!files.empty())
	{
		// read for every connection (a renewed certificate is used at once), and never cached: the context
		// holds the private key and records whether the server asked for the certificate
		Poco::Net::Context::Ptr context = newContext(verify, caLocation, useSystem, options, crls);
		Detail::ClientCertificate::use(context->sslContext(), files, options.password);
		SSL_CTX_set_cert_cb(context->sslContext(), certificateRequestedCallback, nullptr);
		return context;
	}
	const std::string key = std::to_string(verify ? 1 : 0) + (useSystem ? "system:" : "file:") + caLocation + "\n" + crls.first + "\n" +
		crls.second + "\n" + toString(options.minimumVersion) + "-" + toString(options.maximumVersion) + "\n" + options.keyLogFile +
		(options.direct ? "\ndirect" : "");
	static Poco::FastMutex mutex;
	static std::map<std::string, Poco::Net::Context::Ptr> contexts;
	Poco::FastMutex::ScopedLock lock(mutex);
	auto it = contexts.find(key);
	if (it != contexts.end()) return it->second;
	Poco::Net::Context::Ptr context = newContext(verify, caLocation, useSystem, options, crls);
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
	// SNI (RFC 6066) carries the host name unless SSL SNI=0; never an IP literal (RFC 6066 section 3, libpq)
	const std::string sni = options.sni && endpoint.kind() == BlueTuskHostEndpoint::HOST_NAME ? endpoint.host() : std::string();
	Detail::SigpipeGuard guard; // the handshake writes through OpenSSL
	// Initialized from attach() directly: Poco's default constructor would build (once per process)
	// SSLManager's default client context, loading the whole system CA store, for nothing
	// (doc/performance.md, R7). BlueTusk's own contexts come from context() above.
	verifyError = X509_V_OK;
	selectedAlpn.clear();
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
			{
				const std::string reason = verifyError != X509_V_OK ? std::string(": ") + X509_verify_cert_error_string(verifyError) : std::string();
				throw Poco::Net::CertificateValidationException("server certificate verification failed" + reason + " (" + modeText(mode) +
					", Root Certificate " + (rootCertificate.empty() ? std::string("~/.postgresql/root.crt") : rootCertificate == "system" ?
					std::string("system") : "\"" + rootCertificate + "\"") + ")" + (reason.empty() ? ": " + text : std::string()));
			}
			throw;
		}
	}();
	if (options.direct && selectedAlpn != "postgresql")
	{
		// libpq 17: "direct SSL connection was established without ALPN protocol negotiation extension"
		if (deadline.watch()) deadline.watch()->remove(secure);
		try
		{
			secure.close();
		}
		catch (...)
		{
		}
		throw Poco::Net::SSLException("the direct TLS connection (SSL Negotiation=direct) was established without the ALPN protocol "
			"\"postgresql\" (the server selected " + (selectedAlpn.empty() ? std::string("none") : "\"" + selectedAlpn + "\"") +
			"): it is not a PostgreSQL 17 or later server; use sslnegotiation=postgres");
	}
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
