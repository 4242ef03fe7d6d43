//
// TlsSessionOptionsTest.cpp
//
// The TLS session keywords against the local cluster (scripts/cluster's CA, certs/root.crl, revoked.crl
// and crl-dir/ revoking the server certificate): SSL CRL, SSL CRL Directory and libpq's default
// ~/.postgresql/root.crl, SSL Min / Max Protocol Version (seen in pg_stat_ssl), SSL Key Log File, and
// SSL SNI (recorded by a TLS peer that answers the SSLRequest like a server).
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include "TestEnvironment.h"
#include "TlsTestSupport.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/Net/Context.h"
#include "Poco/Net/SecureStreamSocket.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/TemporaryFile.h"
#include "Poco/Thread.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <openssl/ssl.h>
#include <atomic>
#include <mutex>
#include <sys/stat.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

ConnectionSettings settingsFor(int node, const std::string& extra)
	/// Node N with the test login, verify-full against the test CA, then extra.
{
	const ClusterInfo& c = cluster();
	return ConnectionSettings::parse(c.connectionString(c.hosts.at(node - 1), "Timeout=5;SSL Mode=verify-full;Root Certificate=" + c.rootCertificate() + ";" + extra), {});
}


std::string tlsVersion(ProtocolSession& session)
{
	return scalar(session, "SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
}


BlueTuskTransportException transportFailure(const ConnectionSettings& settings)
{
	try
	{
		openSession(settings);
	}
	catch (BlueTuskTransportException& exc)
	{
		return exc;
	}
	CPPUNIT_FAIL("the open must fail with BlueTuskTransportException");
	return BlueTuskTransportException();
}


class SniPeer
	/// Accepts one connection on 127.0.0.1, answers the SSLRequest with 'S', completes a TLS handshake with
	/// the cluster's server certificate and records the server name the client sent (SNI), then closes.
{
public:
	SniPeer(): _listener(Poco::Net::SocketAddress("127.0.0.1", 0))
	{
		_context = new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, certs() + "server.key", certs() + "server.crt", "",
			Poco::Net::Context::VERIFY_NONE);
		SSL_CTX_set_tlsext_servername_callback(_context->sslContext(), &SniPeer::serverName);
		SSL_CTX_set_tlsext_servername_arg(_context->sslContext(), this);
		_thread = std::thread([this] { run(); });
	}

	~SniPeer()
	{
		_listener.close();
		_thread.join();
	}

	Poco::UInt16 port() const
	{
		return _listener.address().port();
	}

	bool handshakeSeen() const
	{
		return _handshakes > 0;
	}

	std::string sni() const
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _sni;
	}

private:
	static int serverName(SSL* ssl, int*, void* arg)
	{
		SniPeer* self = static_cast<SniPeer*>(arg);
		const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
		std::lock_guard<std::mutex> lock(self->_mutex);
		self->_sni = name ? name : "";
		return SSL_TLSEXT_ERR_OK;
	}

	void run()
	{
		try
		{
			if (!_listener.poll(Poco::Timespan(5, 0), Poco::Net::Socket::SELECT_READ)) return;
			Poco::Net::StreamSocket socket = _listener.acceptConnection();
			socket.setReceiveTimeout(Poco::Timespan(5, 0));
			char request[8];
			int got = 0;
			while (got < 8)
			{
				const int n = socket.receiveBytes(request + got, 8 - got);
				if (n <= 0) return;
				got += n;
			}
			socket.sendBytes("S", 1);
			Poco::Net::SecureStreamSocket secure = Poco::Net::SecureStreamSocket::attach(socket, _context);
			secure.completeHandshake();
			++_handshakes;
			secure.close();
		}
		catch (Poco::Exception&)
		{
		}
	}

	Poco::Net::ServerSocket _listener;
	Poco::Net::Context::Ptr _context;
	std::thread _thread;
	mutable std::mutex _mutex;
	std::string _sni = "(none seen)";
	std::atomic<int> _handshakes{0};
};


std::string sniSentTo(const std::string& host, const std::string& extra)
	/// What SNI the SniPeer saw from a client connecting to host (mapped to 127.0.0.1) with extra.
{
	SniPeer peer;
	auto resolver = std::make_shared<StaticResolver>();
	resolver->add("sni-peer.test", std::vector<std::string>{"127.0.0.1"});
	ProtocolSessionFactory factory(resolver);
	ConnectionSettings settings = ConnectionSettings::parse("Host=" + host + ";Port=" + std::to_string(peer.port()) +
		";Username=u;SSL Mode=require;Timeout=5;" + extra, {});
	try
	{
		factory.openSession(settings.endpoints.at(0), settings);
	}
	catch (Poco::Exception&)
	{
		// the peer closes after the handshake
	}
	CPPUNIT_ASSERT(peer.handshakeSeen());
	return peer.sni();
}

} // namespace


class TlsSessionOptionsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TlsSessionOptionsTest);
	CPPUNIT_TEST(testCrlThatRevokesNothing);
	CPPUNIT_TEST(testCrlThatRevokesTheServer);
	CPPUNIT_TEST(testCrlDirectory);
	CPPUNIT_TEST(testDefaultCrl);
	CPPUNIT_TEST(testMissingCrl);
	CPPUNIT_TEST(testProtocolVersions);
	CPPUNIT_TEST(testKeyLogFile);
	CPPUNIT_TEST(testSni);
	CPPUNIT_TEST(testDirectTlsAgainstPostgreSql15);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCrlThatRevokesNothing()
	{
		for (int node = 1; node <= 3; ++node)
		{
			ProtocolSession::Ptr session = openSession(settingsFor(node, "SSL CRL=" + certs() + "root.crl"));
			CPPUNIT_ASSERT(session->isTls());
		}
	}

	void testCrlThatRevokesTheServer()
	{
		BlueTuskTransportException exc = transportFailure(settingsFor(1, "sslcrl=" + certs() + "revoked.crl"));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("certificate revoked") != std::string::npos);
		// without verification (require, no root certificate) the CRL is not consulted, as in libpq
		const ClusterInfo& c = cluster();
		ProtocolSession::Ptr session = openSession(ConnectionSettings::parse(c.connectionString(c.hosts[0], "Timeout=5;SSL Mode=require;SSL CRL=" + certs() + "revoked.crl"), {}));
		CPPUNIT_ASSERT(session->isTls());
	}

	void testCrlDirectory()
	{
		BlueTuskTransportException exc = transportFailure(settingsFor(2, "SSL CRL Directory=" + certs() + "crl-dir"));
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("certificate revoked") != std::string::npos);
		ProtocolSession::Ptr session = openSession(settingsFor(2, "sslcrldir=" + certs() + "crl-dir-clean"));
		CPPUNIT_ASSERT(session->isTls());
		// a directory without the CA's CRL: OpenSSL (and so libpq) cannot check the chain
		HomeDirectory home;
		exc = transportFailure(settingsFor(2, "sslcrldir=" + home.path() + "/.postgresql"));
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("unable to get certificate CRL") != std::string::npos);
	}

	void testDefaultCrl()
	{
		HomeDirectory home;
		Poco::File(certs() + "revoked.crl").copyTo(home.path() + "/.postgresql/root.crl");
		BlueTuskTransportException exc = transportFailure(settingsFor(3, ""));
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("certificate revoked") != std::string::npos);
		// a CRL given replaces the default
		ProtocolSession::Ptr session = openSession(settingsFor(3, "SSL CRL=" + certs() + "root.crl"));
		CPPUNIT_ASSERT(session->isTls());
	}

	void testMissingCrl()
	{
		BlueTuskTransportException exc = transportFailure(settingsFor(1, "SSL CRL=" + certs() + "absent.crl"));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("SSL CRL (sslcrl): certificate revocation list file \"" + certs() + "absent.crl\" cannot be read") != std::string::npos);
		exc = transportFailure(settingsFor(1, "SSL CRL Directory=" + certs() + "absent"));
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("SSL CRL Directory (sslcrldir): \"" + certs() + "absent\" is not a readable directory") != std::string::npos);
	}

	void testProtocolVersions()
	{
		ProtocolSession::Ptr defaults = openSession(settingsFor(1, ""));
		CPPUNIT_ASSERT_EQUAL(std::string("TLSv1.3"), tlsVersion(*defaults));
		ProtocolSession::Ptr capped = openSession(settingsFor(1, "ssl_max_protocol_version=TLSv1.2"));
		CPPUNIT_ASSERT_EQUAL(std::string("TLSv1.2"), tlsVersion(*capped));
		ProtocolSession::Ptr exact = openSession(settingsFor(2, "SSL Min Protocol Version=tlsv1.2;SSL Max Protocol Version=TLSv1.2"));
		CPPUNIT_ASSERT_EQUAL(std::string("TLSv1.2"), tlsVersion(*exact));
		ProtocolSession::Ptr newest = openSession(settingsFor(2, "ssl_min_protocol_version=TLSv1.3"));
		CPPUNIT_ASSERT_EQUAL(std::string("TLSv1.3"), tlsVersion(*newest));
		// PostgreSQL 15's ssl_min_protocol_version is TLSv1.2: a client capped below it gets no session
		BlueTuskTransportException exc = transportFailure(settingsFor(1, "SSL Min Protocol Version=;SSL Max Protocol Version=TLSv1.1"));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
	}

	void testKeyLogFile()
	{
		HomeDirectory home;
		const std::string file = home.path() + "/keys.log";
		ProtocolSession::Ptr session = openSession(settingsFor(1, "sslkeylogfile=" + file));
		CPPUNIT_ASSERT(session->isTls());
		struct stat info;
		CPPUNIT_ASSERT_EQUAL(0, ::stat(file.c_str(), &info));
		CPPUNIT_ASSERT_EQUAL(static_cast<mode_t>(0600), static_cast<mode_t>(info.st_mode & 07777));
		Poco::FileInputStream in(file);
		std::string line;
		int lines = 0;
		bool clientTraffic = false;
		while (std::getline(in, line))
		{
			++lines;
			if (line.rfind("CLIENT_TRAFFIC_SECRET_0 ", 0) == 0) clientTraffic = true;
		}
		CPPUNIT_ASSERT(clientTraffic); // TLS 1.3: NSS key log labels, one line each
		CPPUNIT_ASSERT(lines >= 4);
		// TLS 1.2 sessions log CLIENT_RANDOM lines, appended
		ProtocolSession::Ptr older = openSession(settingsFor(1, "sslkeylogfile=" + file + ";ssl_max_protocol_version=TLSv1.2"));
		Poco::FileInputStream again(file);
		bool clientRandom = false;
		int total = 0;
		while (std::getline(again, line))
		{
			++total;
			if (line.rfind("CLIENT_RANDOM ", 0) == 0) clientRandom = true;
		}
		CPPUNIT_ASSERT(clientRandom);
		CPPUNIT_ASSERT(total > lines);
	}

	void testSni()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("sni-peer.test"), sniSentTo("sni-peer.test", ""));
		CPPUNIT_ASSERT_EQUAL(std::string(""), sniSentTo("sni-peer.test", "sslsni=0"));
		CPPUNIT_ASSERT_EQUAL(std::string("sni-peer.test"), sniSentTo("sni-peer.test", "SSL SNI=1"));
		CPPUNIT_ASSERT_EQUAL(std::string(""), sniSentTo("127.0.0.1", "")); // never for an IP literal
	}

	void testDirectTlsAgainstPostgreSql15()
	{
		// PostgreSQL 15 reads the ClientHello as a startup packet and closes: a clear failure, as with libpq 17
		BlueTuskTransportException exc = transportFailure(settingsFor(1, "sslnegotiation=direct"));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, exc.attempts().at(0).outcome);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("the direct TLS handshake (SSL Negotiation=direct) failed: ") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("needs PostgreSQL 17 or later (use sslnegotiation=postgres)") != std::string::npos);
		// the same server with the ordinary negotiation
		ProtocolSession::Ptr session = openSession(settingsFor(1, "SSL Negotiation=postgres"));
		CPPUNIT_ASSERT(session->isTls());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TlsSessionOptionsTest);
