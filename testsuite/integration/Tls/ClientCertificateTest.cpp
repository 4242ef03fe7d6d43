//
// ClientCertificateTest.cpp
//
// Client-certificate login against the local cluster (scripts/cluster: role bluetusk_cert, pg_hba
// "hostssl ... cert clientcert=verify-full", certificates signed by certs/root.crt): SSL Certificate and
// SSL Key in all three forms, the encrypted key with SSL Password, libpq's default files under
// ~/.postgresql, SSL Certificate Mode (disable, require), and the failures: no certificate, a wrong
// passphrase, a key readable by others.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "TestEnvironment.h"
#include "TlsTestSupport.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sys/stat.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string certificateRole = "bluetusk_cert";
const std::string keyPassphrase = "tusk-key-passphrase";


ConnectionSettings certificateSettings(int node, const std::string& extra)
	/// Node N, role bluetusk_cert, no password, verify-full against the test CA, then extra.
{
	const ClusterInfo& c = cluster();
	return ConnectionSettings::parse("Host=" + c.hosts.at(node - 1) + ";Port=" + std::to_string(c.port) + ";Username=" + certificateRole +
		";Database=" + c.database + ";Timeout=5;SSL Mode=verify-full;Root Certificate=" + c.rootCertificate() + ";" + extra, {});
}


void assertCertificateLogin(ProtocolSession& session)
	/// The session is bluetusk_cert's, over TLS, and the server saw the cluster's client certificate.
{
	CPPUNIT_ASSERT(session.isTls());
	CPPUNIT_ASSERT_EQUAL(certificateRole, scalar(session, "SELECT current_user"));
	CPPUNIT_ASSERT_EQUAL(std::string("/CN=bluetusk_cert/O=BlueTusk test cluster"),
		scalar(session, "SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
}


std::string openFailure(const ConnectionSettings& settings)
	/// The message of the exception the open throws (any BlueTusk exception); fails when it succeeds.
{
	try
	{
		openSession(settings);
	}
	catch (BlueTuskException& exc)
	{
		return exc.displayText();
	}
	CPPUNIT_FAIL("the open must fail");
	return std::string();
}


void copyFile(const std::string& from, const std::string& to, mode_t mode)
{
	Poco::File(from).copyTo(to);
	::chmod(to.c_str(), mode);
}

} // namespace


class ClientCertificateTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ClientCertificateTest);
	CPPUNIT_TEST(testCertificateLoginOnEachNode);
	CPPUNIT_TEST(testLibpqAndUrlForms);
	CPPUNIT_TEST(testEncryptedKey);
	CPPUNIT_TEST(testWrongPassphrase);
	CPPUNIT_TEST(testDefaultFiles);
	CPPUNIT_TEST(testNoCertificateIsRejectedByServer);
	CPPUNIT_TEST(testCertificateModeDisable);
	CPPUNIT_TEST(testCertificateModeRequire);
	CPPUNIT_TEST(testKeyReadableByOthers);
	CPPUNIT_TEST(testPasswordLoginUnaffected);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCertificateLoginOnEachNode()
	{
		for (int node = 1; node <= 3; ++node)
		{
			ProtocolSession::Ptr session = openSession(certificateSettings(node, "SSL Certificate=" + certs() + "client.crt;SSL Key=" + certs() + "client.key"));
			assertCertificateLogin(*session);
		}
	}

	void testLibpqAndUrlForms()
	{
		const ClusterInfo& c = cluster();
		const std::string common = "host=" + c.hosts[0] + " port=" + std::to_string(c.port) + " user=" + certificateRole + " dbname=" + c.database +
			" sslmode=verify-full sslrootcert=" + c.rootCertificate();
		ProtocolSession::Ptr libpq = openSession(ConnectionSettings::parse(common + " sslcert=" + certs() + "client.crt sslkey=" + certs() + "client.key", {}));
		assertCertificateLogin(*libpq);
		ProtocolSession::Ptr url = openSession(ConnectionSettings::parse("postgresql://" + certificateRole + "@" + c.hosts[0] + ":" + std::to_string(c.port) + "/" +
			c.database + "?sslmode=verify-full&sslrootcert=" + c.rootCertificate() + "&sslcert=" + certs() + "client.crt&sslkey=" + certs() +
			"client-encrypted.key&sslpassword=" + keyPassphrase, {}));
		assertCertificateLogin(*url);
	}

	void testEncryptedKey()
	{
		ProtocolSession::Ptr session = openSession(certificateSettings(2, "SSL Certificate=" + certs() + "client.crt;SSL Key=" + certs() +
			"client-encrypted.key;SSL Password=" + keyPassphrase));
		assertCertificateLogin(*session);
	}

	void testWrongPassphrase()
	{
		const std::string wrong = "not-the-passphrase-42";
		const std::string message = openFailure(certificateSettings(1, "SSL Certificate=" + certs() + "client.crt;SSL Key=" + certs() +
			"client-encrypted.key;SSL Password=" + wrong));
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Key (sslkey): could not decrypt private key file \"" + certs() + "client-encrypted.key\"") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Password (sslpassword)") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(message, message.find(wrong) == std::string::npos);
		const std::string none = openFailure(certificateSettings(1, "SSL Certificate=" + certs() + "client.crt;SSL Key=" + certs() + "client-encrypted.key"));
		CPPUNIT_ASSERT_MESSAGE(none, none.find("is encrypted; give its passphrase with SSL Password (sslpassword)") != std::string::npos);
	}

	void testDefaultFiles()
	{
		HomeDirectory home;
		Poco::File(home.path() + "/.postgresql").createDirectories();
		copyFile(certs() + "client.crt", home.path() + "/.postgresql/postgresql.crt", 0644);
		copyFile(certs() + "client.key", home.path() + "/.postgresql/postgresql.key", 0600);
		ProtocolSession::Ptr session = openSession(certificateSettings(1, ""));
		assertCertificateLogin(*session);
		// the default key is checked like a given one: readable by the group, it is refused
		::chmod((home.path() + "/.postgresql/postgresql.key").c_str(), 0640);
		const std::string message = openFailure(certificateSettings(1, ""));
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Key (sslkey): private key file \"" + home.path() + "/.postgresql/postgresql.key\" has group or world access") != std::string::npos);
	}

	void testNoCertificateIsRejectedByServer()
	{
		HomeDirectory home; // no ~/.postgresql/postgresql.crt
		try
		{
			openSession(certificateSettings(1, ""));
			CPPUNIT_FAIL("the server must refuse bluetusk_cert without a certificate");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("connection requires a valid client certificate") != std::string::npos);
			const BlueTuskServerException* server = dynamic_cast<const BlueTuskServerException*>(exc.nested());
			CPPUNIT_ASSERT(server);
			CPPUNIT_ASSERT_EQUAL(std::string("28000"), server->sqlState());
		}
	}

	void testCertificateModeDisable()
	{
		try
		{
			openSession(certificateSettings(1, "SSL Certificate=" + certs() + "client.crt;SSL Key=" + certs() + "client.key;SSL Certificate Mode=disable"));
			CPPUNIT_FAIL("with sslcertmode=disable no certificate is sent: the server must refuse");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("connection requires a valid client certificate") != std::string::npos);
		}
	}

	void testCertificateModeRequire()
	{
		// the cluster's servers ask for a certificate (ssl_ca_file): require is satisfied
		ProtocolSession::Ptr session = openSession(certificateSettings(3, "sslcert=" + certs() + "client.crt;sslkey=" + certs() + "client.key;sslcertmode=require"));
		assertCertificateLogin(*session);
		HomeDirectory home;
		const std::string none = openFailure(certificateSettings(1, "sslcertmode=require"));
		CPPUNIT_ASSERT_MESSAGE(none, none.find("SSL Certificate Mode=require (sslcertmode) needs a client certificate, and there is none") != std::string::npos);
		const std::string plain = openFailure(certificateSettings(1, "SSL Mode=disable;SSL Certificate=" + certs() + "client.crt;SSL Key=" + certs() +
			"client.key;SSL Certificate Mode=require"));
		CPPUNIT_ASSERT_MESSAGE(plain, plain.find("does not use TLS (SSL Mode=disable)") != std::string::npos);
	}

	void testKeyReadableByOthers()
	{
		HomeDirectory home;
		const std::string key = home.path() + "/world-readable.key";
		copyFile(certs() + "client.key", key, 0644);
		const std::string message = openFailure(certificateSettings(1, "SSL Mode=prefer;SSL Certificate=" + certs() + "client.crt;SSL Key=" + key));
		CPPUNIT_ASSERT_MESSAGE(message, message.find("SSL Key (sslkey): private key file \"" + key + "\" has group or world access") != std::string::npos);
	}

	void testPasswordLoginUnaffected()
	{
		// the servers ask every TLS client for a certificate now; one without stays a password login
		const ClusterInfo& c = cluster();
		HomeDirectory home;
		ConnectionSettings settings = ConnectionSettings::parse(c.connectionString(c.hosts[0], "SSL Mode=verify-full;Root Certificate=" + c.rootCertificate() + ";Timeout=5"), {});
		ProtocolSession::Ptr session = openSession(settings);
		CPPUNIT_ASSERT(session->isTls());
		CPPUNIT_ASSERT_EQUAL(c.user, scalar(*session, "SELECT current_user"));
		CPPUNIT_ASSERT_EQUAL(std::string(), scalar(*session, "SELECT coalesce(client_dn, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ClientCertificateTest);
