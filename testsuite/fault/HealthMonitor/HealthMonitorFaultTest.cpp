//
// HealthMonitorFaultTest.cpp
//
// The connector's background health monitor (doc/high-availability.md, "The health monitor") over the
// project's peers: a black-holed endpoint costs its Timeout once, then never again while the monitor
// re-probes it, and is marked up by the monitor alone when it answers; endpoints shared by two data sources
// are probed once per round; a demotion seen through an idle session closes the idle sessions of every data
// source; the only idle session is never borrowed; the watcher threads end with the last data source.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include "ThreadCount.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

int monitorThreads()
	/// The threads of this process named "bt-health" (the monitor's watchers), read from /proc.
{
	int count = 0;
	DIR* tasks = opendir("/proc/self/task");
	if (!tasks) return -1;
	while (dirent* task = readdir(tasks))
	{
		if (task->d_name[0] == '.') continue;
		std::ifstream comm(std::string("/proc/self/task/") + task->d_name + "/comm");
		std::string name;
		std::getline(comm, name);
		if (name == "bt-health") ++count;
	}
	closedir(tasks);
	return count;
}


double msSince(const Poco::Clock& start)
{
	return static_cast<double>(start.elapsed()) / 1000.0;
}


bool attempted(const BlueTuskConnection& lease, const BlueTuskHostEndpoint& endpoint)
{
	for (const HostAttempt& attempt: lease.attemptLog())
	{
		if (attempt.endpoint == endpoint) return true;
	}
	return false;
}


std::string roleName(ServerRole role)
	/// "Primary", "Standby", "PrimaryReadOnly", "Unknown": the enumerator's name, for assertions.
{
	switch (role)
	{
	case ServerRole::Primary:         return "Primary";
	case ServerRole::PrimaryReadOnly: return "PrimaryReadOnly";
	case ServerRole::Standby:         return "Standby";
	case ServerRole::Unknown:         break;
	}
	return "Unknown";
}


const std::string LOGIN = ";Username=app;Password=monitor-secret;SSL Mode=disable";

} // namespace


class HealthMonitorFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HealthMonitorFaultTest);
	CPPUNIT_TEST(testDeadEndpointPaidOnce);
	CPPUNIT_TEST(testSharedEndpointOneProbePerRound);
	CPPUNIT_TEST(testDemotionClosesIdleSessionsEverywhere);
	CPPUNIT_TEST(testOnlyIdleSessionNotBorrowed);
	CPPUNIT_TEST(testThreadsEndWithLastDataSource);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDeadEndpointPaidOnce()
	{
		FakeBackend primary(BackendScript::primary(), "127.0.0.1");
		FakeBackend returning(BackendScript::primary(), "127.0.0.3");
		TcpProxy dead(returning.address(), "127.0.0.2", 0, TcpProxy::Mode::BlackHole);
		RoutingContext connector;
		auto app = BlueTuskDataSource::create("Host=" + hostList(dead, primary) + LOGIN +
			";Timeout=2;Host Recheck Seconds=1;Health Check Interval=1", connector);

		// The first checkout pays the black hole's Timeout once.
		Poco::Clock first;
		std::vector<BlueTuskConnection> leases;
		leases.push_back(app->open());
		CPPUNIT_ASSERT(msSince(first) >= 1500);
		CPPUNIT_ASSERT_EQUAL(primary.endpoint().toString(), leases.back().connectedEndpoint().toString());
		CPPUNIT_ASSERT(connector.hostState(dead.endpoint()).watched);

		// Three seconds later (Host Recheck Seconds=1 has long passed) new sessions do not wait on it.
		Poco::Thread::sleep(3000);
		for (int i = 0; i < 3; ++i)
		{
			Poco::Clock start;
			leases.push_back(app->open());   // the earlier leases stay out: every checkout opens a new session
			const double ms = msSince(start);
			CPPUNIT_ASSERT_MESSAGE("checkout took " + std::to_string(ms) + " ms", ms < 1000);
			CPPUNIT_ASSERT_EQUAL(primary.endpoint().toString(), leases.back().connectedEndpoint().toString());
			CPPUNIT_ASSERT(!attempted(leases.back(), dead.endpoint()));
		}
		CPPUNIT_ASSERT(HostCandidate::DOWN == connector.hostState(dead.endpoint()).state);

		// The peer comes back: the monitor marks it up by itself (within the probe in flight, Timeout=2, and
		// about two intervals) and keeps the probe's session idle in the pool.
		const int readyBefore = returning.sessionsReady();
		dead.setMode(TcpProxy::Mode::Forward);
		Poco::Clock back;
		CPPUNIT_ASSERT(waitUntil([&] { return connector.hostState(dead.endpoint()).state == HostCandidate::UP; }, Poco::Timespan(6, 0)));
		CPPUNIT_ASSERT(msSince(back) < 6000);
		CPPUNIT_ASSERT_EQUAL(std::string("Primary"), roleName(connector.hostState(dead.endpoint()).role));
		CPPUNIT_ASSERT(waitUntil([&] { return app->getHostPoolStatistics()[dead.endpoint()].idle == 1; }, Poco::Timespan(2, 0)));
		CPPUNIT_ASSERT_EQUAL(readyBefore + 1, returning.sessionsReady());
		const PoolStatistics stats = app->getHostPoolStatistics()[dead.endpoint()];
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.created);
		CPPUNIT_ASSERT_EQUAL(std::string("Primary"), roleName(stats.lastKnownRole));
	}

	void testSharedEndpointOneProbePerRound()
	{
		FakeBackend primary(BackendScript::primary(), "127.0.0.1");
		FakeBackend behind(BackendScript::primary(), "127.0.0.3");
		TcpProxy resetting(behind.address(), "127.0.0.2", 0, TcpProxy::Mode::Reset);   // accepts, counts, resets
		RoutingContext connector;
		const std::string hosts = "Host=" + hostList(resetting, primary) + LOGIN + ";Timeout=2;Health Check Interval=0.5";
		auto a = BlueTuskDataSource::create(hosts, connector);
		auto b = BlueTuskDataSource::create(hosts + ";Maximum Pool Size=7", connector);
		CPPUNIT_ASSERT(attempted(a->open(), resetting.endpoint()));   // marks the resetting one down
		BlueTuskConnection other = b->open();                         // tries it last: not at all
		CPPUNIT_ASSERT_EQUAL(primary.endpoint().toString(), other.connectedEndpoint().toString());
		CPPUNIT_ASSERT(!attempted(other, resetting.endpoint()));
		other.close();

		// Three seconds of rounds every 0.5 s: at most 7 probes in all (two data sources would make about 12).
		const int before = resetting.connectionsAccepted();
		Poco::Thread::sleep(3000);
		const int probes = resetting.connectionsAccepted() - before;
		CPPUNIT_ASSERT_MESSAGE(std::to_string(probes) + " probes", probes >= 2 && probes <= 7);
		CPPUNIT_ASSERT(HostCandidate::DOWN == connector.hostState(resetting.endpoint()).state);
	}

	void testDemotionClosesIdleSessionsEverywhere()
	{
		FakeBackend server(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		// No Reset On Close: no deferred reset for the pruning thread to send, so every session stays idle
		// (not briefly busy in the pruner's hands) until the monitor acts.
		const std::string hosts = "Host=" + server.hostAndPort() + LOGIN + ";Timeout=2;No Reset On Close=true;Health Check Interval=0.3";
		auto a = BlueTuskDataSource::create(hosts, connector);
		auto b = BlueTuskDataSource::create(hosts + ";Health Check Interval=0.5", connector);
		for (auto& source: {a, b})
		{
			std::vector<BlueTuskConnection> leases;
			for (int i = 0; i < 3; ++i) leases.push_back(source->open("primary"));
		}
		CPPUNIT_ASSERT_EQUAL(3, a->getPoolStatistics().idle);
		CPPUNIT_ASSERT_EQUAL(3, b->getPoolStatistics().idle);
		CPPUNIT_ASSERT_EQUAL(std::string("Primary"), roleName(a->getHostPoolStatistics()[server.endpoint()].lastKnownRole));

		// The server turns into a standby under the idle sessions (reported on their next Sync).
		server.setScript(BackendScript::standby());
		CPPUNIT_ASSERT(waitUntil([&] { return a->getPoolStatistics().total == 0 && b->getPoolStatistics().total == 0; }, Poco::Timespan(4, 0)));
		for (auto& source: {a, b})
		{
			const PoolStatistics stats = source->getHostPoolStatistics()[server.endpoint()];
			CPPUNIT_ASSERT_EQUAL(std::string("Standby"), roleName(stats.lastKnownRole));
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3), stats.closed);
			CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		}
		CPPUNIT_ASSERT_EQUAL(std::string("Standby"), roleName(connector.hostState(server.endpoint()).role));
		// The next primary checkout is told the server is a standby: no stale primary session is handed out.
		CPPUNIT_ASSERT_THROW(a->open("primary"), BlueTuskNoAcceptableHostException);
	}

	void testOnlyIdleSessionNotBorrowed()
	{
		FakeBackend server(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		auto app = BlueTuskDataSource::create("Host=" + server.hostAndPort() + LOGIN + ";Timeout=2;Health Check Interval=0.2", connector);
		app->open("primary").close();
		CPPUNIT_ASSERT_EQUAL(1, app->getPoolStatistics().idle);
		server.setScript(BackendScript::standby());
		// Five rounds later the monitor has not checked the pool's only idle session: the connector still
		// holds the role the checkout saw. (The pruning thread may send that session's deferred reset
		// meanwhile, counting it busy for that round trip: doc/pooling.md.)
		Poco::Thread::sleep(1000);
		const PoolStatistics stats = app->getHostPoolStatistics()[server.endpoint()];
		CPPUNIT_ASSERT_EQUAL(1, stats.total);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.closed);
		CPPUNIT_ASSERT_EQUAL(std::string("Primary"), roleName(connector.hostState(server.endpoint()).role));
		CPPUNIT_ASSERT_EQUAL(1, server.sessionsReady());
		// The checkout refreshes that session itself and sees the standby.
		CPPUNIT_ASSERT_EQUAL(std::string("Standby"), roleName(app->open("standby").role()));
	}

	void testThreadsEndWithLastDataSource()
	{
		FakeBackend one(BackendScript::primary(), "127.0.0.1");
		FakeBackend two(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		CPPUNIT_ASSERT_EQUAL(0, monitorThreads());
		{
			// Direct opens never start the monitor, nor does a data source with Health Check Interval=0.
			BlueTuskConnection direct = BlueTuskConnection::open("Host=" + hostList(one, two) + LOGIN, connector);
			auto off = BlueTuskDataSource::create("Host=" + hostList(one, two) + LOGIN + ";Health Check Interval=0", connector);
			off->open().close();
			CPPUNIT_ASSERT_EQUAL(0, monitorThreads());
		}
		auto a = BlueTuskDataSource::create("Host=" + one.hostAndPort() + LOGIN, connector);
		CPPUNIT_ASSERT_EQUAL(1, monitorThreads());
		auto b = BlueTuskDataSource::create("Host=" + hostList(one, two, one) + LOGIN, connector);
		CPPUNIT_ASSERT_EQUAL(2, monitorThreads());   // one per endpoint, shared
		BlueTuskConnection lease = a->open();        // a lease may outlive its data source
		a.reset();
		CPPUNIT_ASSERT_EQUAL(2, monitorThreads());
		CPPUNIT_ASSERT(connector.hostState(one.endpoint()).watched);
		b.reset();
		CPPUNIT_ASSERT_EQUAL(0, settledCount(monitorThreads, 0));   // joined by the last data source's destructor
		CPPUNIT_ASSERT(!connector.hostState(one.endpoint()).watched);
		lease.close();
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(HealthMonitorFaultTest);
