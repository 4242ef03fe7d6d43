//
// ClientCertificate.cpp
//
// Library: BlueTusk/Transport
//

#include "ClientCertificate.h"
#include "Poco/Environment.h"
#include "Poco/Net/SSLException.h"
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace BlueTusk {
namespace Detail {

namespace {

const char* const certificateKeyword = "SSL Certificate (sslcert)";
const char* const keyKeyword = "SSL Key (sslkey)";
const char* const passwordKeyword = "SSL Password (sslpassword)";


std::string quotedFile(const std::string& path)
{
	return "\"" + path + "\"";
}


std::string openSslReason()
	/// The reason of the most recent OpenSSL error ("bad decrypt", "no start line"), then a clean queue.
{
	const unsigned long code = ERR_peek_last_error();
	ERR_clear_error();
	if (code == 0) return "unknown OpenSSL error";
	const char* reason = ERR_reason_error_string(code);
	if (reason) return reason;
	char text[256];
	ERR_error_string_n(code, text, sizeof(text));
	return text;
}


struct Passphrase
	/// What the OpenSSL passphrase callback hands out, and whether it was asked (the key is encrypted).
{
	const std::string& password;
	bool asked = false;
};


int passphraseCallback(char* buffer, int size, int, void* data)
	/// OpenSSL's pem_password_cb: SSL Password, or -1 without one (libpq never prompts on a terminal).
{
	Passphrase& passphrase = *static_cast<Passphrase*>(data);
	passphrase.asked = true;
	if (passphrase.password.empty() || size <= 0) return -1;
	const int length = static_cast<int>(std::min<std::size_t>(passphrase.password.size(), static_cast<std::size_t>(size)));
	std::memcpy(buffer, passphrase.password.data(), static_cast<std::size_t>(length));
	return length;
}


using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;


Key readKey(const std::string& path, const std::string& password)
{
	ERR_clear_error();
	Bio bio(BIO_new_file(path.c_str(), "rb"), &BIO_free);
	if (!bio)
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": could not open private key file " + quotedFile(path) + ": " + openSslReason());
	Passphrase passphrase{password};
	Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, passphraseCallback, &passphrase), &EVP_PKEY_free);
	if (key)
	{
		ERR_clear_error();
		return key;
	}
	if (passphrase.asked)
	{
		ERR_clear_error();
		if (password.empty())
			throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": private key file " + quotedFile(path) +
				" is encrypted; give its passphrase with " + passwordKeyword);
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": could not decrypt private key file " + quotedFile(path) +
			" with the " + passwordKeyword + " given (wrong passphrase?)");
	}
	const std::string pemReason = openSslReason();
	// not PEM: DER (PKCS#8 or traditional), as libpq also accepts (SSL_FILETYPE_ASN1)
	if (BIO_reset(bio.get()) == 0)
	{
		key.reset(d2i_PrivateKey_bio(bio.get(), nullptr));
		if (key)
		{
			ERR_clear_error();
			return key;
		}
	}
	ERR_clear_error();
	throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": could not load private key file " + quotedFile(path) +
		" (neither a PEM nor a DER private key: " + pemReason + ")");
}

} // namespace


std::string ClientCertificate::postgresqlFile(const std::string& name)
{
	std::string home = Poco::Environment::get("HOME", "");
	if (home.empty()) return std::string();
	if (home.back() != '/') home += '/';
	return home + ".postgresql/" + name;
}


ClientCertificateFiles ClientCertificate::locate(const std::string& certificate, const std::string& key)
{
	ClientCertificateFiles files;
	struct stat info;
	if (certificate.empty())
	{
		const std::string fallback = postgresqlFile("postgresql.crt");
		if (fallback.empty() || ::stat(fallback.c_str(), &info) != 0) return files; // no default certificate: none is sent
		files.certificate = fallback;
	}
	else
	{
		if (::stat(certificate.c_str(), &info) != 0)
			throw Poco::Net::SSLContextException(std::string(certificateKeyword) + ": certificate file " + quotedFile(certificate) +
				" cannot be read (" + std::strerror(errno) + ")");
		files.certificate = certificate;
	}
	files.key = key.empty() ? postgresqlFile("postgresql.key") : key;
	if (files.key.empty() || ::stat(files.key.c_str(), &info) != 0)
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": certificate " + quotedFile(files.certificate) +
			" is present, but not its private key file " + quotedFile(files.key) + " (set SSL Key)");
	return files;
}


void ClientCertificate::checkKeyPermissions(const std::string& keyFile)
{
	struct stat info;
	if (::stat(keyFile.c_str(), &info) != 0)
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": private key file " + quotedFile(keyFile) +
			" cannot be read (" + std::strerror(errno) + ")");
	if (!S_ISREG(info.st_mode))
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": private key file " + quotedFile(keyFile) + " is not a regular file");
	const bool ownFile = info.st_uid == ::geteuid();
	const mode_t forbidden = ownFile ? (S_IRWXG | S_IRWXO) : (S_IWGRP | S_IXGRP | S_IRWXO);
	if (info.st_mode & forbidden)
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": private key file " + quotedFile(keyFile) +
			" has group or world access; it must have permissions u=rw (0600) or less if owned by the current user, "
			"or u=rw,g=r (0640) or less if owned by root (chmod 600 the file)");
}


void ClientCertificate::use(SSL_CTX* context, const ClientCertificateFiles& files, const std::string& password)
{
	ERR_clear_error();
	if (SSL_CTX_use_certificate_chain_file(context, files.certificate.c_str()) != 1)
		throw Poco::Net::SSLContextException(std::string(certificateKeyword) + ": could not load certificate file " +
			quotedFile(files.certificate) + ": " + openSslReason());
	checkKeyPermissions(files.key);
	Key key = readKey(files.key, password);
	if (SSL_CTX_use_PrivateKey(context, key.get()) != 1 || SSL_CTX_check_private_key(context) != 1)
	{
		const std::string reason = openSslReason();
		throw Poco::Net::SSLContextException(std::string(keyKeyword) + ": private key file " + quotedFile(files.key) +
			" does not match certificate " + quotedFile(files.certificate) + " (" + reason + ")");
	}
	ERR_clear_error();
}

} } // namespace BlueTusk::Detail
