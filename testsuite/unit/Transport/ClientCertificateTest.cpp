//
// ClientCertificateTest.cpp
//
// The client certificate of TlsUpgrade::context(): libpq's default files (~/.postgresql/postgresql.crt
// and .key, used only when present), the private key's permission rule, encrypted keys with SSL Password
// (none, wrong, right), DER keys, a key that does not match, a missing file, and SSL Certificate Mode.
// Every failure names the keyword and the file, never the passphrase. Keys and certificates are made
// here with OpenSSL.
//

#include "connect/TlsUpgrade.h"
#include "PeerTls.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/Net/SSLException.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <cstdio>
#include <memory>
#include <sys/stat.h>

using namespace BlueTusk;

namespace {

const std::string passphrase = "unit-key-passphrase";


EVP_PKEY* newKey()
{
	return EVP_EC_gen("P-256");
}


void writeCertificate(EVP_PKEY* key, const std::string& path)
	/// A self-signed certificate for key (CN=bluetusk-unit).
{
	X509* cert = Test::selfSignedCertificate(key, "bluetusk-unit");
	FILE* file = std::fopen(path.c_str(), "w");
	PEM_write_X509(file, cert);
	std::fclose(file);
	X509_free(cert);
}


void writeKey(EVP_PKEY* key, const std::string& path, const std::string& password = "", bool der = false)
	/// The key as PEM (PKCS#8, AES-256 encrypted when password is given) or DER, mode 0600.
{
	FILE* file = std::fopen(path.c_str(), "w");
	if (der)
		i2d_PrivateKey_fp(file, key);
	else if (password.empty())
		PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr);
	else
		PEM_write_PKCS8PrivateKey(file, key, EVP_aes_256_cbc(), const_cast<char*>(password.c_str()), static_cast<int>(password.size()), nullptr, nullptr);
	std::fclose(file);
	::chmod(path.c_str(), 0600);
}


class Files
	/// A temporary HOME with a key pair: client.crt, client.key (plain), encrypted.key, client.der, and
	/// other.key (a key of another pair).
{
public:
	Files(): _home(Poco::Environment::get("HOME", ""))
	{
		_directory.createDirectories();
		Poco::Environment::set("HOME", _directory.path());
		EVP_PKEY* key = newKey();
		EVP_PKEY* other = newKey();
		writeCertificate(key, path("client.crt"));
		writeKey(key, path("client.key"));
		writeKey(key, path("encrypted.key"), passphrase);
		writeKey(key, path("client.der"), "", true);
		writeKey(other, path("other.key"));
		EVP_PKEY_free(key);
		EVP_PKEY_free(other);
	}

	~Files()
	{
		Poco::Environment::set("HOME", _home);
	}

	std::string path(const std::string& name) const
	{
		return _directory.path() + "/" + name;
	}

	void installDefaults(const std::string& keyName) const
		/// Copies client.crt and keyName to ~/.postgresql/postgresql.crt and .key.
	{
		Poco::File(path(".postgresql")).createDirectories();
		Poco::File(path("client.crt")).copyTo(path(".postgresql/postgresql.crt"));
		Poco::File(path(keyName)).copyTo(path(".postgresql/postgresql.key"));
		::chmod(path(".postgresql/postgresql.key").c_str(), 0600);
	}

private:
	std::string _home;
	Poco::TemporaryFile _directory;
};


TlsUpgrade::Options options(const std::string& certificate, const std::string& key, const std::string& password = "",
	SslCertMode mode = SslCertMode::Allow)
{
	TlsUpgrade::Options result;
	result.mode = SslMode::Require;
	result.certificate = certificate;
	result.key = key;
	result.password = password;
	result.certificateMode = mode;
	return result;
}


bool hasCertificate(Poco::Net::Context::Ptr context)
{
	return SSL_CTX_get0_certificate(context->sslContext()) != nullptr;
}


std::string contextError(const TlsUpgrade::Options& options)
	/// The message of the SSLContextException context(options) throws; fails the test otherwise.
{
	try
	{
		TlsUpgrade::context(options);
	}
	catch (Poco::Net::SSLContextException& exc)
	{
		return exc.message();
	}
	CPPUNIT_FAIL("TlsUpgrade::context() must throw SSLContextException");
	return std::string();
}

} // namespace


class ClientCertificateTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ClientCertificateTest);
	CPPUNIT_TEST(testNoCertificateByDefault);
	CPPUNIT_TEST(testDefaultFiles);
	CPPUNIT_TEST(testGivenFiles);
	CPPUNIT_TEST(testKeyPermissions);
	CPPUNIT_TEST(testEncryptedKey);
	CPPUNIT_TEST(testMissingFiles);
	CPPUNIT_TEST(testMismatchAndGarbage);
	CPPUNIT_TEST(testCertificateMode);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNoCertificateByDefault()
	{
		Files files; // HOME without .postgresql
		Poco::Net::Context::Ptr context = TlsUpgrade::context(options("", ""));
		CPPUNIT_ASSERT(!hasCertificate(context));
		CPPUNIT_ASSERT(context == TlsUpgrade::context(options("", ""))); // shared while no certificate is used
	}

	void testDefaultFiles()
	{
		Files files;
		files.installDefaults("client.key");
		Poco::Net::Context::Ptr context = TlsUpgrade::context(options("", ""));
		CPPUNIT_ASSERT(hasCertificate(context));
		CPPUNIT_ASSERT(!TlsUpgrade::certificateRequested(context));
		CPPUNIT_ASSERT(context != TlsUpgrade::context(options("", ""))); // read again for every connection
		// a default certificate without its key
		Poco::File(files.path(".postgresql/postgresql.key")).remove();
		const std::string message = contextError(options("", ""));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Key (sslkey): certificate \"" + files.path(".postgresql/postgresql.crt") +
			"\" is present, but not its private key file \"" + files.path(".postgresql/postgresql.key") + "\" (set SSL Key)"), message);
	}

	void testGivenFiles()
	{
		Files files;
		CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), files.path("client.key")))));
		CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), files.path("client.der")))));
		// a given certificate with the default key
		files.installDefaults("client.key");
		CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), ""))));
	}

	void testKeyPermissions()
	{
		Files files;
		const std::string key = files.path("client.key");
		for (mode_t mode: {0644, 0640, 0604, 0660, 0700 | 0010})
		{
			::chmod(key.c_str(), mode);
			const std::string message = contextError(options(files.path("client.crt"), key));
			CPPUNIT_ASSERT_EQUAL(std::string("SSL Key (sslkey): private key file \"" + key + "\" has group or world access; it must have "
				"permissions u=rw (0600) or less if owned by the current user, or u=rw,g=r (0640) or less if owned by root (chmod 600 the file)"), message);
		}
		for (mode_t mode: {0600, 0400})
		{
			::chmod(key.c_str(), mode);
			CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), key))));
		}
		const std::string directory = contextError(options(files.path("client.crt"), files.path(".")));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Key (sslkey): private key file \"" + files.path(".") + "\" is not a regular file"), directory);
	}

	void testEncryptedKey()
	{
		Files files;
		const std::string key = files.path("encrypted.key");
		CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), key, passphrase))));
		std::string message = contextError(options(files.path("client.crt"), key));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Key (sslkey): private key file \"" + key + "\" is encrypted; give its passphrase with SSL Password (sslpassword)"), message);
		const std::string wrong = "wrong-passphrase-123";
		message = contextError(options(files.path("client.crt"), key, wrong));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Key (sslkey): could not decrypt private key file \"" + key +
			"\" with the SSL Password (sslpassword) given (wrong passphrase?)"), message);
		CPPUNIT_ASSERT(message.find(wrong) == std::string::npos);
		// a password for a key that is not encrypted is not used (libpq)
		CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), files.path("client.key"), "unused"))));
	}

	void testMissingFiles()
	{
		Files files;
		std::string message = contextError(options(files.path("absent.crt"), files.path("client.key")));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Certificate (sslcert): certificate file \"" + files.path("absent.crt") + "\" cannot be read (No such file or directory)"), message);
		message = contextError(options(files.path("client.crt"), files.path("absent.key")));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Key (sslkey): certificate \"" + files.path("client.crt") + "\" is present, but not its private key file \"" +
			files.path("absent.key") + "\" (set SSL Key)"), message);
	}

	void testMismatchAndGarbage()
	{
		Files files;
		std::string message = contextError(options(files.path("client.crt"), files.path("other.key")));
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Key (sslkey): private key file \"" + files.path("other.key") + "\" does not match certificate \"" +
			files.path("client.crt") + "\"") == 0);
		// a certificate file that is no certificate, a key file that is no key
		message = contextError(options(files.path("client.key"), files.path("client.key")));
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Certificate (sslcert): could not load certificate file \"" + files.path("client.key") + "\": ") == 0);
		::chmod(files.path("client.crt").c_str(), 0600);
		message = contextError(options(files.path("client.crt"), files.path("client.crt")));
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Key (sslkey): could not load private key file \"" + files.path("client.crt") +
			"\" (neither a PEM nor a DER private key: ") == 0);
	}

	void testCertificateMode()
	{
		Files files;
		// disable: no certificate, and the files are not even looked at
		Poco::Net::Context::Ptr context = TlsUpgrade::context(options(files.path("absent.crt"), files.path("absent.key"), "", SslCertMode::Disable));
		CPPUNIT_ASSERT(!hasCertificate(context));
		// require without any certificate
		const std::string message = contextError(options("", "", "", SslCertMode::Require));
		CPPUNIT_ASSERT_EQUAL(std::string("SSL Certificate Mode=require (sslcertmode) needs a client certificate, and there is none: set SSL Certificate "
			"(sslcert) and SSL Key (sslkey), or create \"" + files.path(".postgresql/postgresql.crt") + "\""), message);
		CPPUNIT_ASSERT(hasCertificate(TlsUpgrade::context(options(files.path("client.crt"), files.path("client.key"), "", SslCertMode::Require))));
		// after a handshake in which the server asked for none, require fails
		TlsUpgrade::Options required = options(files.path("client.crt"), files.path("client.key"), "", SslCertMode::Require);
		Poco::Net::Context::Ptr withCertificate = TlsUpgrade::context(required);
		try
		{
			TlsUpgrade::checkCertificateMode(required, withCertificate, BlueTuskHostEndpoint("db-a", 5432));
			CPPUNIT_FAIL("the server did not ask for a certificate: require must fail");
		}
		catch (Poco::Net::SSLException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("the server at db-a:5432 did not request an SSL certificate, but SSL Certificate Mode=require (sslcertmode) "
				"requires that the client send one (set ssl_ca_file in the server, or use sslcertmode=allow)"), exc.message());
		}
		TlsUpgrade::checkCertificateMode(options("", "", "", SslCertMode::Allow), withCertificate, BlueTuskHostEndpoint("db-a", 5432));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ClientCertificateTest);
