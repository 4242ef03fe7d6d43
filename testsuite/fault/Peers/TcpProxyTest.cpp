//
// TcpProxyTest.cpp
//
// Self-tests of TcpProxy: every mode, switched at run time on one port.
//

#include "FakeBackend.h"
#include "RawClient.h"
#include "RefusedPort.h"
#include "TcpProxy.h"
#include "Poco/Exception.h"
#include "Poco/Net/NetException.h"
#include "Poco/Stopwatch.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk::Test;
using Poco::Net::StreamSocket;

namespace {

bool isReset(const Poco::Net::SocketAddress& address)
	/// Connects and reads: true when the connect or the read fails with "connection reset by peer".
{
	try
	{
		RawClient client(address);
		char buffer[8];
		client.socket().receiveBytes(buffer, sizeof(buffer));
	}
	catch (Poco::Net::ConnectionResetException&)
	{
		return true;
	}
	return false;
}

long elapsedMs(const Poco::Stopwatch& watch)
{
	return static_cast<long>(watch.elapsed() / 1000);
}

}


class TcpProxyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TcpProxyTest);
	CPPUNIT_TEST(testForward);
	CPPUNIT_TEST(testRefuseAndBack);
	CPPUNIT_TEST(testReset);
	CPPUNIT_TEST(testBlackHoleAndBack);
	CPPUNIT_TEST(testDelay);
	CPPUNIT_TEST(testCloseAllConnections);
	CPPUNIT_TEST(testRefusedTarget);
	CPPUNIT_TEST(testStartsRefusing);
	CPPUNIT_TEST_SUITE_END();

public:
	void testForward()
	{
		FakeBackend backend(BackendScript::standby(), "127.0.0.2");
		TcpProxy proxy(backend.address(), "127.0.0.5");
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.5"), proxy.host());
		CPPUNIT_ASSERT(proxy.port() != 0);
		CPPUNIT_ASSERT(TcpProxy::Mode::Forward == proxy.mode());
		{
			RawClient client(proxy.address());
			RawResult result = client.startup();
			CPPUNIT_ASSERT_EQUAL(std::string("on"), result.parameters["in_hot_standby"]);
			CPPUNIT_ASSERT_EQUAL(std::string("1"), *client.query("SELECT 1").rows.at(0).at(0));
			CPPUNIT_ASSERT_EQUAL(1, proxy.activeConnections());
		}
		CPPUNIT_ASSERT(proxy.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT_EQUAL(1, proxy.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(1, backend.connectionsAccepted());
	}

	void testRefuseAndBack()
	{
		FakeBackend backend;
		TcpProxy proxy(backend.address());
		Poco::UInt16 port = proxy.port();
		proxy.setMode(TcpProxy::Mode::Refuse);
		StreamSocket socket;
		CPPUNIT_ASSERT_THROW(socket.connect(proxy.address(), Poco::Timespan(1, 0)), Poco::Net::ConnectionRefusedException);
		proxy.setMode(TcpProxy::Mode::Forward);
		CPPUNIT_ASSERT_EQUAL(port, proxy.port());
		RawClient client(proxy.address());
		CPPUNIT_ASSERT_EQUAL('I', client.startup().status);
		CPPUNIT_ASSERT_EQUAL(1, proxy.connectionsAccepted());
	}

	void testReset()
	{
		FakeBackend backend;
		TcpProxy proxy(backend.address());
		proxy.setMode(TcpProxy::Mode::Reset);
		CPPUNIT_ASSERT(isReset(proxy.address()));
		CPPUNIT_ASSERT(proxy.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT_EQUAL(1, proxy.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(0, backend.connectionsAccepted());
	}

	void testBlackHoleAndBack()
	{
		FakeBackend backend;
		TcpProxy proxy(backend.address());
		proxy.setMode(TcpProxy::Mode::BlackHole);
		CPPUNIT_ASSERT(TcpProxy::Mode::BlackHole == proxy.mode());
		StreamSocket socket;
		Poco::Stopwatch watch;
		watch.start();
		CPPUNIT_ASSERT_THROW(socket.connect(proxy.address(), Poco::Timespan(0, 300000)), Poco::TimeoutException);
		CPPUNIT_ASSERT(elapsedMs(watch) >= 290);
		proxy.setMode(TcpProxy::Mode::Forward);
		RawClient client(proxy.address());
		CPPUNIT_ASSERT_EQUAL('I', client.startup().status);
	}

	void testDelay()
	{
		FakeBackend backend;
		TcpProxy proxy(backend.address());
		proxy.setMode(TcpProxy::Mode::Delay, 300);
		Poco::Stopwatch watch;
		watch.start();
		RawClient client(proxy.address());
		CPPUNIT_ASSERT(elapsedMs(watch) < 100); // the TCP connect itself is immediate
		CPPUNIT_ASSERT_EQUAL('I', client.startup().status);
		CPPUNIT_ASSERT(elapsedMs(watch) >= 290);
		CPPUNIT_ASSERT(elapsedMs(watch) < 1000);
	}

	void testCloseAllConnections()
	{
		FakeBackend backend;
		TcpProxy proxy(backend.address());
		RawClient first(proxy.address());
		first.startup();
		RawClient second(proxy.address());
		second.startup();
		CPPUNIT_ASSERT_EQUAL(2, proxy.activeConnections());
		proxy.closeAllConnections(true);
		CPPUNIT_ASSERT(proxy.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		char buffer[8];
		CPPUNIT_ASSERT_THROW(first.socket().receiveBytes(buffer, sizeof(buffer)), Poco::Net::ConnectionResetException);

		RawClient third(proxy.address());
		third.startup();
		proxy.closeAllConnections(false);
		CPPUNIT_ASSERT(third.query("SELECT 1").eof);
	}

	void testRefusedTarget()
	{
		RefusedPort refused;
		TcpProxy proxy(refused.address());
		CPPUNIT_ASSERT(isReset(proxy.address()));

		FakeBackend backend;
		proxy.setTarget(backend.address());
		RawClient second(proxy.address());
		CPPUNIT_ASSERT_EQUAL('I', second.startup().status);
	}

	void testStartsRefusing()
	{
		FakeBackend backend;
		TcpProxy proxy(backend.address(), "127.0.0.3", 0, TcpProxy::Mode::Refuse);
		CPPUNIT_ASSERT(proxy.port() != 0);
		StreamSocket socket;
		CPPUNIT_ASSERT_THROW(socket.connect(proxy.address(), Poco::Timespan(1, 0)), Poco::Net::ConnectionRefusedException);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TcpProxyTest);
