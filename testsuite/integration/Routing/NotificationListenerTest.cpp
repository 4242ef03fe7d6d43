//
// NotificationListenerTest.cpp
//
// A NotificationListener on the local cluster through a failover: it receives a NOTIFY from node 1, node 1
// is stopped while the listener is blocked in wait(), node 2 is promoted; the listener reports the gap
// (Reconnected, node 1 -> node 2), has LISTENed again, and receives a NOTIFY sent on the new primary with
// its payload. The cluster is reset afterwards.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/NotificationListener.h"
#include "TestEnvironment.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <mutex>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class NotificationListenerTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(NotificationListenerTest);
	CPPUNIT_TEST(testListenerOfReadYourWritesDataSource);
	CPPUNIT_TEST(testListenerFollowsFailover);
	CPPUNIT_TEST_SUITE_END();

public:
	void testListenerOfReadYourWritesDataSource()
	{
		// A direct open refuses Read Your Writes; a listener made from such a data source takes
		// its settings without it, and listens on the primary.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString("127.0.0.2,127.0.0.1", "SSL Mode=disable;Read Your Writes=true"), connector);
		NotificationListener listener(*dataSource);
		listener.listen("ryw_channel");
		CPPUNIT_ASSERT_EQUAL("127.0.0.1:" + std::to_string(cluster().port), listener.endpoint().toString());
		BlueTuskConnection sender = dataSource->open(TargetSessionAttributes::ReadWrite);
		sender.query("SELECT pg_notify($1, $2)", {"ryw_channel", "hello"});
		ListenerEvent event;
		CPPUNIT_ASSERT(listener.wait(Poco::Timespan(5, 0), event));
		CPPUNIT_ASSERT_EQUAL(std::string("hello"), event.notification.payload);
	}

	void testListenerFollowsFailover()
	{
		struct Restore
		{
			~Restore()
			{
				cluster().runClusterCommand("reset");
			}
		} restore;
		const std::string port = std::to_string(cluster().port);
		const std::string channel = "Orders Placed";
		RoutingContext connector;
		NotificationListener listener(ConnectionSettings::parse(cluster().connectionString("127.0.0.1,127.0.0.2,127.0.0.3",
			"SSL Mode=disable;Timeout=2;Failover Timeout=30")), connector);
		listener.listen(channel);
		CPPUNIT_ASSERT_EQUAL("127.0.0.1:" + port, listener.endpoint().toString());

		auto notifyOn = [&](const std::string& host, const std::string& payload)
		{
			BlueTuskConnection sender = BlueTuskConnection::open(cluster().connectionString(host, "SSL Mode=disable"), connector);
			sender.query("SELECT pg_notify($1, $2)", {channel, payload});
		};
		notifyOn("127.0.0.1", "before");
		ListenerEvent event;
		CPPUNIT_ASSERT(listener.wait(Poco::Timespan(5, 0), event));
		CPPUNIT_ASSERT(event.kind == ListenerEvent::Kind::Notification);
		CPPUNIT_ASSERT_EQUAL(channel, event.notification.channel);
		CPPUNIT_ASSERT_EQUAL(std::string("before"), event.notification.payload);
		CPPUNIT_ASSERT(event.notification.processId > 0);

		// The listener blocks in wait() on its own thread while the primary goes away.
		std::mutex mutex;
		std::vector<ListenerEvent> events;
		std::atomic<bool> reconnected{false};
		std::atomic<bool> failed{false};
		std::string failure;   // written by the waiter before it sets failed, read after join
		std::thread waiter([&]
		{
			Poco::Clock clock;
			try
			{
				while (clock.elapsed() < 60000000)
				{
					ListenerEvent next;
					if (!listener.wait(Poco::Timespan(1, 0), next)) continue;
					std::lock_guard<std::mutex> lock(mutex);
					events.push_back(next);
					if (next.kind == ListenerEvent::Kind::Reconnected) reconnected = true;
					if (next.kind == ListenerEvent::Kind::Notification && next.notification.payload == "after") break;
				}
			}
			catch (Poco::Exception& exc)
			{
				failure = exc.displayText();
				failed = true;
			}
		});
		std::this_thread::sleep_for(std::chrono::milliseconds(300));
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 1"));
		std::this_thread::sleep_for(std::chrono::milliseconds(300));
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("promote 2"));
		Poco::Clock sincePromotion;
		while (!reconnected && !failed && sincePromotion.elapsed() < 10000000)
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		const long reconnectMs = static_cast<long>(sincePromotion.elapsed() / 1000);
		if (reconnected) notifyOn("127.0.0.2", "after");
		waiter.join();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(failure, std::string(), failure);
		std::cout << "\n  listener reconnected " << reconnectMs << " ms after the promotion finished" << std::endl;

		CPPUNIT_ASSERT_EQUAL(std::size_t(2), events.size());
		CPPUNIT_ASSERT(events[0].kind == ListenerEvent::Kind::Reconnected);
		CPPUNIT_ASSERT_EQUAL("127.0.0.1:" + port, events[0].previousEndpoint.toString());
		CPPUNIT_ASSERT_EQUAL("127.0.0.2:" + port, events[0].endpoint.toString());
		CPPUNIT_ASSERT_MESSAGE(events[0].reason, events[0].reason.find("57P01") != std::string::npos ||
			events[0].reason.find("lost") != std::string::npos);
		CPPUNIT_ASSERT(events[0].lostAt <= events[0].reconnectedAt);
		CPPUNIT_ASSERT(events[1].kind == ListenerEvent::Kind::Notification);
		CPPUNIT_ASSERT_EQUAL(channel, events[1].notification.channel);
		CPPUNIT_ASSERT_EQUAL(std::string("after"), events[1].notification.payload);
		CPPUNIT_ASSERT_EQUAL("127.0.0.2:" + port, events[1].endpoint.toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), listener.reconnects());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(NotificationListenerTest);
