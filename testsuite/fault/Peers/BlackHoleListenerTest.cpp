//
// BlackHoleListenerTest.cpp
//
// Self-tests of BlackHoleListener and RefusedPort: the two network faults every connect test relies on.
//

#include "BlackHoleListener.h"
#include "RefusedPort.h"
#include "Poco/Exception.h"
#include "Poco/Net/NetException.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Stopwatch.h"
#include <cppunit/extensions/HelperMacros.h>
#include <memory>
#include <thread>
#include <vector>

using namespace BlueTusk::Test;
using Poco::Net::SocketAddress;
using Poco::Net::StreamSocket;

namespace {

long elapsedMs(const Poco::Stopwatch& watch)
{
	return static_cast<long>(watch.elapsed() / 1000);
}

}


class BlackHoleListenerTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(BlackHoleListenerTest);
	CPPUNIT_TEST(testConnectTimesOutAtTheDeadline);
	CPPUNIT_TEST(testSeveralClientsAllTimeOut);
	CPPUNIT_TEST(testOtherLoopbackAddresses);
	CPPUNIT_TEST(testRefusedAfterDestruction);
	CPPUNIT_TEST(testRefusedPortRefusesAtOnce);
	CPPUNIT_TEST(testRefusedPortKeepsThePortReserved);
	CPPUNIT_TEST_SUITE_END();

public:
	void testConnectTimesOutAtTheDeadline()
	{
		BlackHoleListener hole;
		CPPUNIT_ASSERT(hole.port() != 0);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), hole.host());
		CPPUNIT_ASSERT(hole.fillerConnections() >= 1);
		for (int timeoutMs: {300, 700})
		{
			StreamSocket socket;
			Poco::Stopwatch watch;
			watch.start();
			CPPUNIT_ASSERT_THROW(socket.connect(hole.address(), Poco::Timespan(0, timeoutMs * 1000)), Poco::TimeoutException);
			long elapsed = elapsedMs(watch);
			CPPUNIT_ASSERT(elapsed >= timeoutMs - 10);
			CPPUNIT_ASSERT(elapsed < timeoutMs + 250);
		}
	}

	void testSeveralClientsAllTimeOut()
	{
		BlackHoleListener hole;
		std::vector<std::thread> threads;
		std::vector<int> outcomes(4, 0);
		for (std::size_t i = 0; i < outcomes.size(); ++i)
		{
			threads.emplace_back([&, i]
			{
				StreamSocket socket;
				try
				{
					socket.connect(hole.address(), Poco::Timespan(0, 300000));
					outcomes[i] = 1;
				}
				catch (Poco::TimeoutException&)
				{
					outcomes[i] = 2;
				}
				catch (Poco::Exception&)
				{
					outcomes[i] = 3;
				}
			});
		}
		for (auto& thread: threads) thread.join();
		for (int outcome: outcomes) CPPUNIT_ASSERT_EQUAL(2, outcome);
	}

	void testOtherLoopbackAddresses()
	{
		BlackHoleListener a("127.0.0.2");
		BlackHoleListener b("127.0.0.3", a.port());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2:" + std::to_string(a.port())), a.hostAndPort());
		CPPUNIT_ASSERT_EQUAL(a.port(), b.port());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.3"), b.endpoint().host());
		StreamSocket socket;
		CPPUNIT_ASSERT_THROW(socket.connect(b.address(), Poco::Timespan(0, 200000)), Poco::TimeoutException);
	}

	void testRefusedAfterDestruction()
	{
		SocketAddress address;
		{
			BlackHoleListener hole;
			address = hole.address();
		}
		StreamSocket socket;
		CPPUNIT_ASSERT_THROW(socket.connect(address, Poco::Timespan(1, 0)), Poco::Net::ConnectionRefusedException);
	}

	void testRefusedPortRefusesAtOnce()
	{
		RefusedPort refused("127.0.0.2");
		CPPUNIT_ASSERT(refused.port() != 0);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2"), refused.host());
		CPPUNIT_ASSERT_EQUAL("127.0.0.2:" + std::to_string(refused.port()), refused.hostAndPort());
		for (int i = 0; i < 3; ++i)
		{
			StreamSocket socket;
			Poco::Stopwatch watch;
			watch.start();
			CPPUNIT_ASSERT_THROW(socket.connect(refused.address(), Poco::Timespan(1, 0)), Poco::Net::ConnectionRefusedException);
			CPPUNIT_ASSERT(elapsedMs(watch) < 100);
		}
	}

	void testRefusedPortKeepsThePortReserved()
	{
		RefusedPort refused;
		Poco::Net::ServerSocket other;
		CPPUNIT_ASSERT_THROW(other.bind(refused.address(), false), Poco::Net::NetException);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(BlackHoleListenerTest);
