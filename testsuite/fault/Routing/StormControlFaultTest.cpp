//
// StormControlFaultTest.cpp
//
// SQLSTATE 53300 (too many connections) on the wire, from the project's scripted backend, through the real
// ProtocolSessionFactory: a data source treats it as capacity (it waits for its sessions, backs off, never
// marks the endpoint down, and fails only at Checkout Timeout with a message naming 53300); a direct open
// moves on to the next host without marking the refusing one down; Max Connecting holds on the wire.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const PASSWORD = "storm-secret-4K";


std::string connectionString(const std::string& hosts, const std::string& extra)
{
	return "Host=" + hosts + ";Username=app;Password=" + PASSWORD + ";Database=app;SSL Mode=disable;Timeout=2;" + extra;
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class StormControlFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(StormControlFaultTest);
	CPPUNIT_TEST(testDataSourceReusesSessionsThroughRefusals);
	CPPUNIT_TEST(testRefusingEndpointTimesOutNaming53300);
	CPPUNIT_TEST(testOtherEndpointServesWhileOneRefuses);
	CPPUNIT_TEST(testDirectOpenMovesOnWithoutMarkingDown);
	CPPUNIT_TEST(testMaxConnectingOnTheWire);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDataSourceReusesSessionsThroughRefusals()
	{
		// Three sessions are open when the server starts refusing: ten threads share them, none sees 53300.
		FakeBackend server(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(
			connectionString(server.hostAndPort(), "Maximum Pool Size=10;Checkout Timeout=20"), connector);
		{
			std::vector<BlueTuskConnection> leases;
			for (int i = 0; i < 3; ++i) leases.push_back(dataSource->open());
		}
		CPPUNIT_ASSERT_EQUAL(3, server.sessionsReady());
		server.setScript(BackendScript::tooManyClients());

		std::atomic<int> failures{0};
		std::atomic<int> done{0};
		std::string firstError;
		std::mutex errorMutex;
		std::vector<std::thread> threads;
		for (int t = 0; t < 10; ++t)
		{
			threads.emplace_back([&]
			{
				for (int i = 0; i < 5; ++i)
				{
					try
					{
						BlueTuskConnection db = dataSource->open();
						db.executeSimple("SELECT 1");
						Poco::Thread::sleep(10);
						++done;
					}
					catch (Poco::Exception& exc)
					{
						std::lock_guard<std::mutex> lock(errorMutex);
						if (firstError.empty()) firstError = exc.displayText();
						++failures;
					}
				}
			});
		}
		for (auto& thread: threads) thread.join();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(firstError, 0, failures.load());
		CPPUNIT_ASSERT_EQUAL(50, done.load());
		CPPUNIT_ASSERT_EQUAL(3, server.sessionsReady());   // no new session was ever admitted
		const PoolStatistics stats = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT(stats.refusals >= 1);
		CPPUNIT_ASSERT(stats.total <= 3);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.checkoutTimeouts);
		CPPUNIT_ASSERT(connector.hostState(server.endpoint()).state != HostCandidate::DOWN);
	}

	void testRefusingEndpointTimesOutNaming53300()
	{
		FakeBackend server(BackendScript::tooManyClients(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(
			connectionString(server.hostAndPort(), "Maximum Pool Size=10;Checkout Timeout=1"), connector);
		Poco::Clock start;
		try
		{
			dataSource->open();
			CPPUNIT_FAIL("BlueTuskPoolTimeoutException expected");
		}
		catch (BlueTuskPoolTimeoutException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), contains(exc.message(), "53300"));
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), contains(exc.message(), "sorry, too many clients already"));
			CPPUNIT_ASSERT(!contains(exc.displayText(), PASSWORD));
		}
		CPPUNIT_ASSERT(start.elapsed() >= 900000);   // waited for the Checkout Timeout, not failed at once
		// Backoff 50 ms doubling: about five attempts in a second, not one per wake-up.
		CPPUNIT_ASSERT(server.startupMessages() >= 3);
		CPPUNIT_ASSERT(server.startupMessages() <= 10);
		CPPUNIT_ASSERT(connector.hostState(server.endpoint()).state != HostCandidate::DOWN);
		const PoolStatistics stats = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(server.startupMessages()), stats.refusals);
		CPPUNIT_ASSERT_EQUAL(0, stats.total);
	}

	void testOtherEndpointServesWhileOneRefuses()
	{
		FakeBackend full(BackendScript::tooManyClients(), "127.0.0.1");
		FakeBackend other(BackendScript::primary(), "127.0.0.2");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(
			connectionString(full.hostAndPort() + "," + other.hostAndPort(), "Maximum Pool Size=10;Checkout Timeout=10"), connector);
		Poco::Clock start;
		BlueTuskConnection db = dataSource->open();
		CPPUNIT_ASSERT(db.connectedEndpoint() == other.endpoint());
		CPPUNIT_ASSERT(start.elapsed() < 5000000);   // not the Checkout Timeout
		CPPUNIT_ASSERT_EQUAL(1, full.startupMessages());
		CPPUNIT_ASSERT(connector.hostState(full.endpoint()).state != HostCandidate::DOWN);
		const auto hosts = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), hosts.at(full.endpoint()).refusals);
		CPPUNIT_ASSERT_EQUAL(1, hosts.at(other.endpoint()).total);
	}

	void testDirectOpenMovesOnWithoutMarkingDown()
	{
		FakeBackend full(BackendScript::tooManyClients(), "127.0.0.1");
		FakeBackend other(BackendScript::primary(), "127.0.0.2");
		RoutingContext connector;
		BlueTuskConnection db = BlueTuskConnection::open(connectionString(full.hostAndPort() + "," + other.hostAndPort(), ""), connector);
		CPPUNIT_ASSERT(db.connectedEndpoint() == other.endpoint());
		const HostAttemptList& log = db.attemptLog();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), log.size());
		CPPUNIT_ASSERT_EQUAL(HostAttempt::FAILED, log[0].outcome);
		CPPUNIT_ASSERT_MESSAGE(log[0].detail, contains(log[0].detail, "53300"));
		CPPUNIT_ASSERT(connector.hostState(full.endpoint()).state != HostCandidate::DOWN);

		// Alone, the refusing host fails the direct open with its 53300 (no pool to wait for).
		try
		{
			BlueTuskConnection::open(connectionString(full.hostAndPort(), ""), connector);
			CPPUNIT_FAIL("BlueTuskNoAcceptableHostException expected");
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), contains(exc.message(), "53300"));
		}
		CPPUNIT_ASSERT(connector.hostState(full.endpoint()).state != HostCandidate::DOWN);
	}

	void testMaxConnectingOnTheWire()
	{
		// Startups answered 300 ms late: with Max Connecting=2 never more than two are under way at once.
		FakeBackend server(BackendScript::primary().delayStartup(300), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(
			connectionString(server.hostAndPort(), "Maximum Pool Size=10;Max Connecting=2;Checkout Timeout=20"), connector);
		std::atomic<bool> stop{false};
		std::atomic<int> peak{0};
		std::thread watcher([&]
		{
			while (!stop)
			{
				const int active = server.activeConnections() - server.sessionsReady() + server.terminates();
				if (active > peak) peak = active;
				const PoolStatistics stats = dataSource->getPoolStatistics();
				if (stats.connecting > peak) peak = stats.connecting;
				Poco::Thread::sleep(2);
			}
		});
		std::atomic<int> failures{0};
		std::vector<std::thread> threads;
		for (int t = 0; t < 6; ++t)
		{
			threads.emplace_back([&]
			{
				try
				{
					BlueTuskConnection db = dataSource->open();
					Poco::Thread::sleep(700);   // held: the others must open their own
				}
				catch (...)
				{
					++failures;
				}
			});
		}
		for (auto& thread: threads) thread.join();
		stop = true;
		watcher.join();
		CPPUNIT_ASSERT_EQUAL(0, failures.load());
		CPPUNIT_ASSERT(peak.load() <= 2);
		CPPUNIT_ASSERT(peak.load() >= 1);
		CPPUNIT_ASSERT(server.sessionsReady() >= 3);
		CPPUNIT_ASSERT_EQUAL(0, dataSource->getPoolStatistics().connecting);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(StormControlFaultTest);
