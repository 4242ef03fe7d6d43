//
// LibpqKeywordFaultTest.cpp
//
// The libpq keywords of libpq on the wire, against the fake backend: options, Search Path and
// fallback_application_name in the StartupMessage; hostaddr connects to the address and keeps the host
// name; the keepalive family reaches the kernel; requirepeer reads the peer of a Unix-domain socket.
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "connect/Deadline.h"
#include "connect/Dialer.h"
#include "BlueTusk/LocalUser.h"
#include "connect/PeerCredentials.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

int intOption(const Poco::Net::StreamSocket& socket, int level, int name)
{
	int value = -1;
	socklen_t length = sizeof(value);
	CPPUNIT_ASSERT_EQUAL_MESSAGE("getsockopt", 0, ::getsockopt(socket.impl()->sockfd(), level, name, &value, &length));
	return value;
}


int systemValue(const char* file)
{
	std::ifstream in(file);
	int value = -1;
	in >> value;
	return value;
}


Poco::Net::StreamSocket dialWith(const FakeBackend& backend, const std::string& keywords)
{
	ConnectionSettings settings = ConnectionSettings::parse("Host=" + backend.host() + ";Username=u;" + keywords, {});
	Dialer dialer;
	return dialer.dial(backend.endpoint(), Deadline(Poco::Timespan(2, 0)), Dialer::SocketOptions::from(settings)).socket;
}

} // namespace


class LibpqKeywordFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqKeywordFaultTest);
	CPPUNIT_TEST(testOptionsInTheStartupMessage);
	CPPUNIT_TEST(testFallbackApplicationName);
	CPPUNIT_TEST(testHostAddressConnectsToTheAddress);
	CPPUNIT_TEST(testKeepaliveFamily);
	CPPUNIT_TEST(testRequirePeer);
	CPPUNIT_TEST_SUITE_END();

public:
	void testOptionsInTheStartupMessage()
	{
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		ProtocolSessionFactory factory;
		ConnectionSettings settings = fastSettings(2000);
		settings.set("options", "-c statement_timeout=5s");
		settings.set("Search Path", "my schema,public");
		auto session = factory.openSession(backend.endpoint(), settings);
		auto startup = backend.lastStartupParameters();
		// the server splits options at white space; '\' keeps the space of the search path in its word
		CPPUNIT_ASSERT_EQUAL(std::string("-c statement_timeout=5s -c search_path=my\\ schema,public"), startup["options"]);
		CPPUNIT_ASSERT_EQUAL(std::string("UTF8"), startup["client_encoding"]);
		session->close();

		ConnectionSettings plain = fastSettings(2000);
		auto second = factory.openSession(backend.endpoint(), plain);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), backend.lastStartupParameters().count("options"));
		second->close();
	}

	void testFallbackApplicationName()
	{
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		ProtocolSessionFactory factory;
		ConnectionSettings settings = fastSettings(2000);
		settings.set("fallback_application_name", "fallback-tool");
		auto named = factory.openSession(backend.endpoint(), settings);
		CPPUNIT_ASSERT_EQUAL(std::string("fault-test"), backend.lastStartupParameters()["application_name"]);
		named->close();
		settings.set("application_name", "");
		auto fallback = factory.openSession(backend.endpoint(), settings);
		CPPUNIT_ASSERT_EQUAL(std::string("fallback-tool"), backend.lastStartupParameters()["application_name"]);
		fallback->close();
	}

	void testHostAddressConnectsToTheAddress()
	{
		// a name that cannot resolve reaches the backend at its hostaddr; the endpoint keeps the name
		FakeBackend backend(BackendScript::primary(), "127.0.0.3");
		ConnectionSettings settings = fastSettings(2000);
		settings.set("host", "no-such-host.invalid");
		settings.set("port", std::to_string(backend.port()));
		settings.set("hostaddr", "127.0.0.3");
		ProtocolSessionFactory factory;
		auto session = factory.openSession(settings.endpoints.at(0), settings);
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::string("no-such-host.invalid:" + std::to_string(backend.port())), session->endpoint().toString());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.3:" + std::to_string(backend.port())), session->addressAttempts().at(0).address);
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
		session->close();
		// without the hostaddr the same name fails to resolve
		ConnectionSettings unresolved = fastSettings(2000);
		unresolved.set("host", "no-such-host.invalid");
		try
		{
			factory.openSession(unresolved.endpoints.at(0), unresolved);
			CPPUNIT_FAIL("no-such-host.invalid resolved");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("could not translate host name \"no-such-host.invalid\" to address: ") != std::string::npos);
		}
	}

	void testKeepaliveFamily()
	{
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		Poco::Net::StreamSocket all = dialWith(backend, "keepalives=1;keepalives_idle=9;keepalives_interval=4;keepalives_count=3");
		CPPUNIT_ASSERT_EQUAL(1, intOption(all, SOL_SOCKET, SO_KEEPALIVE));
		CPPUNIT_ASSERT_EQUAL(9, intOption(all, IPPROTO_TCP, TCP_KEEPIDLE));
		CPPUNIT_ASSERT_EQUAL(4, intOption(all, IPPROTO_TCP, TCP_KEEPINTVL));
		CPPUNIT_ASSERT_EQUAL(3, intOption(all, IPPROTO_TCP, TCP_KEEPCNT));
		all.close();
		// keepalives=1 alone: on, with the system's timing (libpq's default)
		Poco::Net::StreamSocket on = dialWith(backend, "keepalives=1");
		CPPUNIT_ASSERT_EQUAL(1, intOption(on, SOL_SOCKET, SO_KEEPALIVE));
		CPPUNIT_ASSERT_EQUAL(systemValue("/proc/sys/net/ipv4/tcp_keepalive_time"), intOption(on, IPPROTO_TCP, TCP_KEEPIDLE));
		CPPUNIT_ASSERT_EQUAL(systemValue("/proc/sys/net/ipv4/tcp_keepalive_probes"), intOption(on, IPPROTO_TCP, TCP_KEEPCNT));
		on.close();
		// keepalives=0 wins over the timing keywords
		Poco::Net::StreamSocket off = dialWith(backend, "keepalives=0;keepalives_idle=9;keepalives_count=3");
		CPPUNIT_ASSERT_EQUAL(0, intOption(off, SOL_SOCKET, SO_KEEPALIVE));
		CPPUNIT_ASSERT_EQUAL(systemValue("/proc/sys/net/ipv4/tcp_keepalive_time"), intOption(off, IPPROTO_TCP, TCP_KEEPIDLE));
		off.close();
		// not given: on as soon as one timing keyword is (the count alone keeps the system's times)
		Poco::Net::StreamSocket count = dialWith(backend, "keepalives_count=5");
		CPPUNIT_ASSERT_EQUAL(1, intOption(count, SOL_SOCKET, SO_KEEPALIVE));
		CPPUNIT_ASSERT_EQUAL(5, intOption(count, IPPROTO_TCP, TCP_KEEPCNT));
		CPPUNIT_ASSERT_EQUAL(systemValue("/proc/sys/net/ipv4/tcp_keepalive_intvl"), intOption(count, IPPROTO_TCP, TCP_KEEPINTVL));
		count.close();
		Poco::Net::StreamSocket none = dialWith(backend, "");
		CPPUNIT_ASSERT_EQUAL(0, intOption(none, SOL_SOCKET, SO_KEEPALIVE));
		none.close();
	}

	void testRequirePeer()
	{
		// a Unix-domain listener of this process: its peer is this process's user
		Poco::TemporaryFile directory;
		directory.createDirectories();
		const BlueTuskHostEndpoint endpoint(directory.path(), 5999);
		Poco::Net::ServerSocket listener(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, endpoint.unixSocketPath()));
		Poco::Net::StreamSocket client(Poco::Net::SocketAddress::UNIX_LOCAL);
		client.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, endpoint.unixSocketPath()));
		Poco::Net::StreamSocket server = listener.acceptConnection();
		const std::string me = LocalUser::name();
		CPPUNIT_ASSERT_EQUAL(me, PeerCredentials::peerUserName(client));
		CPPUNIT_ASSERT_NO_THROW(PeerCredentials::check(client, me, endpoint));
		CPPUNIT_ASSERT_NO_THROW(PeerCredentials::check(client, "", endpoint));
		try
		{
			PeerCredentials::check(client, "nobody-else", endpoint);
			CPPUNIT_FAIL("requirepeer accepted the wrong user");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT_EQUAL("requirepeer specifies \"nobody-else\", but the server at " + endpoint.unixSocketPath() + " runs as \"" + me + "\"",
				exc.message());
		}
		// TCP sockets are not checked, as in libpq
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		Poco::Net::StreamSocket tcp = dialWith(backend, "");
		CPPUNIT_ASSERT_NO_THROW(PeerCredentials::check(tcp, "nobody-else", backend.endpoint()));
		tcp.close();
		server.close();
		client.close();
		listener.close();
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(LibpqKeywordFaultTest);
