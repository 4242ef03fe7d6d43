//
// PeerLifecycleTest.cpp
//
// Every peer leaves no thread and no socket behind, and shuts down promptly even with clients still
// connected, hanging or waiting (the Routing tests rely on this to check their own clean-up).
//

#include "Peers.h"
#include "RawClient.h"
#include "Poco/DirectoryIterator.h"
#include "Poco/Stopwatch.h"
#include <cppunit/extensions/HelperMacros.h>
#include <memory>

using namespace BlueTusk::Test;

namespace {

int countEntries(const std::string& directory)
{
	int count = 0;
	for (Poco::DirectoryIterator it(directory), end; it != end; ++it) ++count;
	return count;
}

int openDescriptors()
{
	return countEntries("/proc/self/fd");
}

int threads()
{
	return countEntries("/proc/self/task");
}

}


class PeerLifecycleTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PeerLifecycleTest);
	CPPUNIT_TEST(testNothingLeftBehind);
	CPPUNIT_TEST(testHostListAndIPv6);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNothingLeftBehind()
	{
		int fdsBefore = openDescriptors();
		int threadsBefore = threads();
		Poco::Stopwatch shutdown;
		{
			std::vector<std::unique_ptr<RawClient>> clients;
			FakeBackend primary(BackendScript::primary(), "127.0.0.2");
			FakeBackend hanging(BackendScript::hang(), "127.0.0.3");
			FakeBackend slow(BackendScript::primary().delayStartup(10000), "127.0.0.4");
			FakeBackend sleeping(BackendScript::primary().answer("SELECT pg_sleep(60)", QueryAnswer::value("").delay(60000)), "127.0.0.5");
			BlackHoleListener hole("127.0.0.6");
			RefusedPort refused("127.0.0.7");
			TcpProxy proxy(primary.address(), "127.0.0.8");
			TcpProxy delaying(primary.address(), "127.0.0.9", 0, TcpProxy::Mode::Delay);
			delaying.setMode(TcpProxy::Mode::Delay, 10000);

			for (auto* backend: {&primary, &hanging, &slow})
			{
				clients.emplace_back(new RawClient(backend->address()));
				clients.back()->send(Wire::startupMessage({{"user", "alice"}}));
			}
			clients.emplace_back(new RawClient(sleeping.address()));
			clients.back()->startup();
			clients.back()->send(Wire::query("SELECT pg_sleep(60)"));
			clients.emplace_back(new RawClient(proxy.address()));
			CPPUNIT_ASSERT_EQUAL('I', clients.back()->startup().status);
			clients.emplace_back(new RawClient(delaying.address()));
			clients.back()->send(Wire::startupMessage({{"user", "alice"}}));
			CPPUNIT_ASSERT(hanging.waitForConnectionsAccepted(1, Poco::Timespan(1, 0)));
			CPPUNIT_ASSERT(slow.waitForConnectionsAccepted(1, Poco::Timespan(1, 0)));
			CPPUNIT_ASSERT(waitUntil([&] { return sleeping.queryCount() == 1; }, Poco::Timespan(1, 0)));
			CPPUNIT_ASSERT(delaying.waitForActiveConnections(1, Poco::Timespan(1, 0)));
			CPPUNIT_ASSERT(threads() > threadsBefore + 8);

			shutdown.start();
			// peers are destroyed here, clients (declared first) after them
		}
		shutdown.stop();
		CPPUNIT_ASSERT_MESSAGE(std::to_string(shutdown.elapsed() / 1000) + " ms", shutdown.elapsed() < 1000000);
		CPPUNIT_ASSERT(waitUntil([&] { return threads() == threadsBefore; }, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT_EQUAL(threadsBefore, threads());
		CPPUNIT_ASSERT_EQUAL(fdsBefore, openDescriptors());
	}

	void testHostListAndIPv6()
	{
		FakeBackend v6(BackendScript::standby(), "::1");
		RefusedPort refused("127.0.0.2");
		BlackHoleListener hole("127.0.0.3");
		CPPUNIT_ASSERT_EQUAL("[::1]:" + std::to_string(v6.port()), v6.hostAndPort());
		CPPUNIT_ASSERT_EQUAL(std::string("::1"), v6.endpoint().host());
		CPPUNIT_ASSERT_EQUAL(v6.hostAndPort() + "," + refused.hostAndPort() + "," + hole.hostAndPort(), hostList(v6, refused, hole));
		CPPUNIT_ASSERT_EQUAL(refused.hostAndPort(), hostList(refused));
		RawClient client(v6.address());
		CPPUNIT_ASSERT_EQUAL(std::string("on"), client.startup().parameters["in_hot_standby"]);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PeerLifecycleTest);
