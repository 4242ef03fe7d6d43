//
// NotificationListenerFaultTest.cpp
//
// LISTEN sessions whose server goes away, over the project's fake backends: a blocked notification wait
// ends with a clear error when the socket closes; a NotificationListener reconnects through the router,
// LISTENs again on every channel (quoted), follows a standby that becomes primary during its Failover
// Timeout, and throws (staying usable) when no acceptable server comes in time.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/NotificationListener.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const PASSWORD = "listener-secret-9Z";


std::string connectionString(const std::string& hosts, const std::string& extra = "")
{
	return "Host=" + hosts + ";Username=app;Password=" + PASSWORD + ";SSL Mode=disable;Timeout=2;" + extra;
}


bool contains(const std::vector<std::string>& queries, const std::string& statement)
{
	return std::find(queries.begin(), queries.end(), statement) != queries.end();
}

} // namespace


class NotificationListenerFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(NotificationListenerFaultTest);
	CPPUNIT_TEST(testBlockedWaitEndsWhenServerClosesSocket);
	CPPUNIT_TEST(testListenerReconnectsAndListensAgain);
	CPPUNIT_TEST(testListenerFollowsPromotionWithinFailoverTimeout);
	CPPUNIT_TEST(testListenerThrowsWhenNoPrimaryAndStaysUsable);
	CPPUNIT_TEST(testChannelNamesChecked);
	CPPUNIT_TEST_SUITE_END();

public:
	void testBlockedWaitEndsWhenServerClosesSocket()
	{
		FakeBackend primary(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(connectionString(primary.hostAndPort()), connector);
		connection.executeSimple("LISTEN jobs");
		std::thread breaker([&]
		{
			std::this_thread::sleep_for(std::chrono::milliseconds(200));
			primary.closeAllConnections();
		});
		Poco::Clock clock;
		std::string failure;
		Notification notification;
		try
		{
			connection.session().waitForNotification(Poco::Timespan(10, 0), notification);
		}
		catch (BlueTuskSessionBrokenException& exc)
		{
			failure = exc.displayText();
		}
		breaker.join();
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("lost while waiting for a notification") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find(PASSWORD) == std::string::npos);
		CPPUNIT_ASSERT(clock.elapsed() < 3000000);   // the close, not the 10 s timeout, ended the wait
		CPPUNIT_ASSERT(connection.session().isBroken());
		connection.close();
		CPPUNIT_ASSERT(primary.waitForActiveConnections(0, Poco::Timespan(2, 0)));
	}

	void testListenerReconnectsAndListensAgain()
	{
		FakeBackend first(BackendScript::primary(), "127.0.0.1");
		FakeBackend second(BackendScript::primary(), "127.0.0.2");
		RoutingContext connector;
		NotificationListener listener(ConnectionSettings::parse(connectionString(first.hostAndPort() + "," + second.hostAndPort(), "Failover Timeout=5")), connector);
		listener.listen("orders");
		listener.listen("Mixed \"Case\"");
		CPPUNIT_ASSERT(contains(first.queries(), "LISTEN \"Mixed \"\"Case\"\"\""));
		CPPUNIT_ASSERT_EQUAL(first.endpoint().toString(), listener.endpoint().toString());

		first.setScript(BackendScript::closeOnAccept());   // the crashed server stays away
		first.closeAllConnections();
		ListenerEvent event;
		Poco::Clock clock;
		CPPUNIT_ASSERT(listener.wait(Poco::Timespan(10, 0), event));
		CPPUNIT_ASSERT(clock.elapsed() < 3000000);
		CPPUNIT_ASSERT(event.kind == ListenerEvent::Kind::Reconnected);
		CPPUNIT_ASSERT_EQUAL(second.endpoint().toString(), event.endpoint.toString());
		CPPUNIT_ASSERT_EQUAL(first.endpoint().toString(), event.previousEndpoint.toString());
		CPPUNIT_ASSERT_MESSAGE(event.reason, event.reason.find("lost while waiting for a notification") != std::string::npos);
		CPPUNIT_ASSERT(event.reason.find(PASSWORD) == std::string::npos);
		CPPUNIT_ASSERT(event.lostAt <= event.reconnectedAt);
		CPPUNIT_ASSERT(contains(second.queries(), "LISTEN \"orders\""));
		CPPUNIT_ASSERT(contains(second.queries(), "LISTEN \"Mixed \"\"Case\"\"\""));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), listener.reconnects());
		CPPUNIT_ASSERT(listener.isConnected());
		CPPUNIT_ASSERT_EQUAL(second.endpoint().toString(), listener.endpoint().toString());

		// Nothing more: an ordinary timeout on the new session.
		CPPUNIT_ASSERT(!listener.wait(Poco::Timespan(0, 100000), event));
		listener.unlisten("orders");
		CPPUNIT_ASSERT(contains(second.queries(), "UNLISTEN \"orders\""));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), listener.channels().size());
	}

	void testListenerFollowsPromotionWithinFailoverTimeout()
	{
		FakeBackend first(BackendScript::primary(), "127.0.0.1");
		FakeBackend second(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		NotificationListener listener(ConnectionSettings::parse(connectionString(first.hostAndPort() + "," + second.hostAndPort(), "Failover Timeout=10")), connector);
		listener.listen("orders");
		first.setScript(BackendScript::closeOnAccept());
		std::thread promote([&]
		{
			std::this_thread::sleep_for(std::chrono::milliseconds(400));
			second.setScript(BackendScript::primary());   // the standby's open sessions now answer as a primary
		});
		first.closeAllConnections();
		ListenerEvent event;
		Poco::Clock clock;
		const bool got = listener.wait(Poco::Timespan(1, 0), event);
		promote.join();
		CPPUNIT_ASSERT(got);
		CPPUNIT_ASSERT(event.kind == ListenerEvent::Kind::Reconnected);
		CPPUNIT_ASSERT_EQUAL(second.endpoint().toString(), event.endpoint.toString());
		CPPUNIT_ASSERT(clock.elapsed() >= 350000);    // it waited for the promotion ...
		CPPUNIT_ASSERT(clock.elapsed() < 3000000);    // ... and saw it within a few polls
		CPPUNIT_ASSERT(contains(second.queries(), "LISTEN \"orders\""));
	}

	void testListenerThrowsWhenNoPrimaryAndStaysUsable()
	{
		FakeBackend first(BackendScript::primary(), "127.0.0.1");
		FakeBackend second(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		NotificationListener listener(ConnectionSettings::parse(connectionString(first.hostAndPort() + "," + second.hostAndPort(), "Failover Timeout=1")), connector);
		listener.listen("orders");
		first.setScript(BackendScript::standby());   // demoted, and its session ended
		first.closeAllConnections();
		ListenerEvent event;
		Poco::Clock clock;
		std::string failure;
		try
		{
			listener.wait(Poco::Timespan(5, 0), event);
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			failure = exc.displayText();
		}
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("standby") != std::string::npos);
		CPPUNIT_ASSERT(failure.find(PASSWORD) == std::string::npos);
		CPPUNIT_ASSERT(clock.elapsed() < 4000000);   // Failover Timeout (1 s) plus a connect, not more
		CPPUNIT_ASSERT(!listener.isConnected());

		second.setScript(BackendScript::primary());
		CPPUNIT_ASSERT(listener.wait(Poco::Timespan(5, 0), event));
		CPPUNIT_ASSERT(event.kind == ListenerEvent::Kind::Reconnected);
		CPPUNIT_ASSERT_EQUAL(second.endpoint().toString(), event.endpoint.toString());
		CPPUNIT_ASSERT_EQUAL(first.endpoint().toString(), event.previousEndpoint.toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), listener.reconnects());
		CPPUNIT_ASSERT(contains(second.queries(), "LISTEN \"orders\""));
	}

	void testChannelNamesChecked()
	{
		FakeBackend primary(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		NotificationListener listener(ConnectionSettings::parse(connectionString(primary.hostAndPort())), connector);
		CPPUNIT_ASSERT_THROW(listener.listen(""), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(listener.listen(std::string(64, 'c')), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(listener.listen(std::string("a\0b", 3)), BlueTuskUsageException);
		CPPUNIT_ASSERT(listener.channels().empty());
		listener.listen(std::string(63, 'c'));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), listener.channels().size());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(NotificationListenerFaultTest);
