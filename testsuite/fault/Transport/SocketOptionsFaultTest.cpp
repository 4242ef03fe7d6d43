//
// SocketOptionsFaultTest.cpp
//
// Keepalive and Tcp User Timeout reach the kernel (doc/high-availability.md, hung servers): the options are
// read back with getsockopt from the sockets the Dialer and the session factory open to a fake backend.
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "connect/Deadline.h"
#include "connect/Dialer.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include "Poco/Net/SocketAddress.h"
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

int intOption(int fd, int level, int name)
{
	int value = -1;
	socklen_t length = sizeof(value);
	CPPUNIT_ASSERT_EQUAL_MESSAGE("getsockopt", 0, ::getsockopt(fd, level, name, &value, &length));
	return value;
}


struct TcpOptions
	/// What getsockopt reports for one socket.
{
	int keepalive = -1;
	int idle = -1;
	int interval = -1;
	int userTimeout = -1;
};


TcpOptions optionsOf(int fd)
{
	TcpOptions options;
	options.keepalive = intOption(fd, SOL_SOCKET, SO_KEEPALIVE);
	options.idle = intOption(fd, IPPROTO_TCP, TCP_KEEPIDLE);
	options.interval = intOption(fd, IPPROTO_TCP, TCP_KEEPINTVL);
	options.userTimeout = intOption(fd, IPPROTO_TCP, TCP_USER_TIMEOUT);
	return options;
}


int socketConnectedTo(const Poco::Net::SocketAddress& peer)
	/// The descriptor of this process's TCP socket connected to peer (a session does not expose its
	/// socket): the one whose getpeername is peer. Fails the test when there is not exactly one.
{
	int found = -1;
	int count = 0;
	for (int fd = 0; fd < 4096; ++fd)
	{
		sockaddr_storage address{};
		socklen_t length = sizeof(address);
		if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) continue;
		if (address.ss_family != AF_INET) continue;
		Poco::Net::SocketAddress other(reinterpret_cast<const sockaddr*>(&address), length);
		if (other == peer)
		{
			found = fd;
			++count;
		}
	}
	CPPUNIT_ASSERT_EQUAL_MESSAGE("sockets connected to " + peer.toString(), 1, count);
	return found;
}


int systemKeepaliveTime()
{
	std::ifstream file("/proc/sys/net/ipv4/tcp_keepalive_time");
	int seconds = -1;
	file >> seconds;
	return seconds;
}

} // namespace


class SocketOptionsFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SocketOptionsFaultTest);
	CPPUNIT_TEST(testDialerSetsTheOptions);
	CPPUNIT_TEST(testOptionsAreSetBeforeSetup);
	CPPUNIT_TEST(testNoOptionsLeaveTheDefaults);
	CPPUNIT_TEST(testSessionSocketsCarryTheConnectionStringValues);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDialerSetsTheOptions()
	{
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		Dialer::SocketOptions options;
		options.keepalive = Poco::Timespan(7, 0);
		options.tcpUserTimeout = Poco::Timespan(0, 2500 * 1000);
		Dialer dialer;
		Dialer::Result result = dialer.dial(backend.endpoint(), Deadline(Poco::Timespan(2, 0)), options);
		const TcpOptions read = optionsOf(result.socket.impl()->sockfd());
		CPPUNIT_ASSERT_EQUAL(1, read.keepalive);
		CPPUNIT_ASSERT_EQUAL(7, read.idle);
		CPPUNIT_ASSERT_EQUAL(7, read.interval);
		CPPUNIT_ASSERT_EQUAL(2500, read.userTimeout);
		result.socket.close();
	}

	void testOptionsAreSetBeforeSetup()
	{
		// TLS, startup and authentication run on a socket that already has the options.
		FakeBackend backend(BackendScript::primary(), "127.0.0.3");
		Dialer::SocketOptions options;
		options.keepalive = Poco::Timespan(3, 0);
		options.tcpUserTimeout = Poco::Timespan(0, 800 * 1000);
		TcpOptions during;
		Dialer dialer;
		Dialer::Result result = dialer.dial(backend.endpoint(), Deadline(Poco::Timespan(2, 0)), options,
			[&during](Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress&)
			{
				during = optionsOf(socket.impl()->sockfd());
			});
		CPPUNIT_ASSERT_EQUAL(1, during.keepalive);
		CPPUNIT_ASSERT_EQUAL(3, during.idle);
		CPPUNIT_ASSERT_EQUAL(3, during.interval);
		CPPUNIT_ASSERT_EQUAL(800, during.userTimeout);
		result.socket.close();
	}

	void testNoOptionsLeaveTheDefaults()
	{
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		Dialer dialer;
		Dialer::Result result = dialer.dial(backend.endpoint(), Poco::Timespan(2, 0));
		const TcpOptions read = optionsOf(result.socket.impl()->sockfd());
		CPPUNIT_ASSERT_EQUAL(0, read.keepalive);
		CPPUNIT_ASSERT_EQUAL(systemKeepaliveTime(), read.idle);
		CPPUNIT_ASSERT_EQUAL(0, read.userTimeout);
		result.socket.close();
	}

	void testSessionSocketsCarryTheConnectionStringValues()
	{
		// Two sessions from two connection strings: each socket has its own string's values.
		FakeBackend backend(BackendScript::primary(), "127.0.0.2");
		ProtocolSessionFactory factory;
		ConnectionSettings first = fastSettings(2000);
		first.set("Keepalive", "5");
		first.set("Tcp User Timeout", "1500");
		auto one = factory.openSession(backend.endpoint(), first);
		CPPUNIT_ASSERT(!one->isBroken());
		const TcpOptions readOne = optionsOf(socketConnectedTo(backend.address()));
		CPPUNIT_ASSERT_EQUAL(1, readOne.keepalive);
		CPPUNIT_ASSERT_EQUAL(5, readOne.idle);
		CPPUNIT_ASSERT_EQUAL(5, readOne.interval);
		CPPUNIT_ASSERT_EQUAL(1500, readOne.userTimeout);
		one->close();

		ConnectionSettings second = fastSettings(2000);
		second.set("keepalives_idle", "11");
		second.set("tcp_user_timeout", "4000");
		auto two = factory.openSession(backend.endpoint(), second);
		const TcpOptions readTwo = optionsOf(socketConnectedTo(backend.address()));
		CPPUNIT_ASSERT_EQUAL(1, readTwo.keepalive);
		CPPUNIT_ASSERT_EQUAL(11, readTwo.idle);
		CPPUNIT_ASSERT_EQUAL(11, readTwo.interval);
		CPPUNIT_ASSERT_EQUAL(4000, readTwo.userTimeout);
		two->close();
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(SocketOptionsFaultTest);
