//
// TopologyDataSourceTest.cpp
//
// A BlueTuskDataSource with a Topology Source (doc/high-availability.md, "Topology sources") over the scripted
// fake SessionFactory and the test plugin "scripted" (testsuite/plugins/ScriptedTopology.cpp: members read
// from a file the test rewrites): the seed until the first read, members becoming the host list, a member
// added and one removed while leases are out, failing reads, role hints ordering (never deciding), and the
// topology thread's end.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "CapturingChannel.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/Clock.h"
#include "Poco/File.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"
#include "router/HostStateRegistry.h"
#include "Poco/Thread.h"
#include "datasource/RoutingContextAccess.h"
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <atomic>
#include <functional>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct TopologyFixture: FakeRoutingContext
{
	std::string file = Poco::TemporaryFile::tempName();

	TopologyFixture()
	{
		context.loadPlugin(std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestScriptedTopology.so");
		world->script("a:5432", FakeHost::primary());
		world->script("b:5432", FakeHost::standby());
		world->script("c:5432", FakeHost::standby());
	}

	~TopologyFixture()
	{
		try
		{
			Poco::File(file).remove();
		}
		catch (...)
		{
		}
	}

	void members(const std::string& lines)
		/// Rewrites the member file atomically (the source never reads half a file).
	{
		const std::string part = file + ".part";
		{
			std::ofstream out(part);
			out << lines;
		}
		Poco::File(part).renameTo(file);
	}

	BlueTuskDataSource::Ptr create(const std::string& hosts, const std::string& extra = "")
	{
		return BlueTuskDataSource::create(fakeConnectionString(hosts,
			"Topology Source=scripted:" + file + ";Topology Refresh Interval=0.05" + (extra.empty() ? "" : ";" + extra)), context);
	}
};


std::string hostNames(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::string text;
	for (const BlueTuskHostEndpoint& endpoint: endpoints) text += (text.empty() ? "" : ",") + endpoint.host();
	return text;
}

} // namespace


class TopologyDataSourceTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TopologyDataSourceTest);
	CPPUNIT_TEST(testSeedUntilFirstRead);
	CPPUNIT_TEST(testMembersBecomeHostList);
	CPPUNIT_TEST(testMemberAddedIsUsed);
	CPPUNIT_TEST(testMemberRemovedIsDrained);
	CPPUNIT_TEST(testMemberReturnsAfterRemoval);
	CPPUNIT_TEST(testFailingReadsKeepMembersAndSeed);
	CPPUNIT_TEST(testReadsThrowingAnythingKeepMembersAndSeed);
	CPPUNIT_TEST(testHintOrdersCandidates);
	CPPUNIT_TEST(testWrongHintIsNotTrusted);
	CPPUNIT_TEST(testNewerHintBeatsLearnedRole);
	CPPUNIT_TEST(testDrainKnowsMembers);
	CPPUNIT_TEST(testUnknownSource);
	CPPUNIT_TEST(testCheckoutsWhileMembersChange);
	CPPUNIT_TEST(testFastPathLeaseOutlivesHostList);
	CPPUNIT_TEST(testNoThreadLeftBehind);
	CPPUNIT_TEST(testSourceIgnoringCloseIsAbandoned);
	CPPUNIT_TEST(testConfigureThrowingIntIsPluginException);
	CPPUNIT_TEST(testDirectOpenReadsTheSourceOnce);
	CPPUNIT_TEST(testHealthMonitorFollowsMembers);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSeedUntilFirstRead()
	{
		// The source takes 4 s to answer: checkouts go to the written host at once, and the data source
		// ends without waiting for the read (close() wakes it).
		TopologyFixture f;
		f.members("delay 4000\nb:5432 standby\n");
		Poco::Clock start;
		auto dataSource = f.create("a", "Timeout=5");
		CPPUNIT_ASSERT_EQUAL(std::string("a"), hostNames(dataSource->hostList()));
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
		CPPUNIT_ASSERT(start.elapsed() < 2000000);
		CPPUNIT_ASSERT(dataSource->topology().members.empty());
		lease.close();
		Poco::Clock stop;
		dataSource.reset();
		CPPUNIT_ASSERT(stop.elapsed() < 2000000);
	}

	void testHealthMonitorFollowsMembers()
	{
		// The health monitor watches the members a topology adds and releases those it drops.
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\nc:5432 standby\n");
		auto dataSource = f.create("a");
		HostStateRegistry& states = BlueTusk::Detail::hostStatesOf(f.context);
		const BlueTuskHostEndpoint a("a", 5432), b("b", 5432), c("c", 5432);
		CPPUNIT_ASSERT(states.isWatched(a));   // the seed, from the start
		CPPUNIT_ASSERT(within([&] { return states.isWatched(b) && states.isWatched(c); }));
		f.members("a:5432 primary\nb:5432 standby\n");
		CPPUNIT_ASSERT(within([&] { return !states.isWatched(c); }));
		CPPUNIT_ASSERT(states.isWatched(a) && states.isWatched(b));
		dataSource.reset();
		CPPUNIT_ASSERT(!states.isWatched(a) && !states.isWatched(b));
		// Health Check Interval=0: no member is watched
		auto unwatched = f.create("a", "Health Check Interval=0");
		CPPUNIT_ASSERT(within([&] { return hostNames(unwatched->hostList()) == "a,b"; }));
		CPPUNIT_ASSERT(!states.isWatched(a) && !states.isWatched(b));
	}

	void testDirectOpenReadsTheSourceOnce()
	{
		// A direct open has no background thread: it reads the source once, then routes over the members
		// and the written hosts the source did not list.
		TopologyFixture f;
		f.members("b:5432 standby\nc:5432 standby\n");
		const std::string text = fakeConnectionString("a", "Topology Source=scripted:" + f.file);
		BlueTuskConnection standby = BlueTuskConnection::open(text + ";Target Session Attributes=standby", f.context);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), standby.connectedEndpoint().host());
		BlueTuskConnection primary = BlueTuskConnection::open(text + ";Target Session Attributes=primary", f.context);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), primary.connectedEndpoint().host());   // the seed, after the members
		// A source that cannot be read: the written hosts alone, and the open still succeeds
		f.members("fail monitor away\n");
		BlueTuskConnection any = BlueTuskConnection::open(text, f.context);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), any.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(0, f.world->opens("c:5432"));
		// A source no plugin provides is an error naming it, on a direct open too
		try
		{
			BlueTuskConnection::open(fakeConnectionString("a", "Topology Source=nosuch:somewhere"), f.context);
			CPPUNIT_FAIL("an unknown topology source was accepted");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("nosuch") != std::string::npos);
		}
	}

	void testMembersBecomeHostList()
	{
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\nc:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b,c"; }));
		const TopologySnapshot snapshot = dataSource->topology();
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), snapshot.members.size());
		CPPUNIT_ASSERT(snapshot.members[0].role == ServerRole::Primary);
		BlueTuskConnection standby = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), standby.connectedEndpoint().host());
		auto statistics = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), statistics.size());
		CPPUNIT_ASSERT_EQUAL(1, statistics.at(BlueTuskHostEndpoint("b", 5432)).busy);
		CPPUNIT_ASSERT_EQUAL(0, f.world->opens("c:5432"));
	}

	void testMemberAddedIsUsed()
	{
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\n");
		auto dataSource = f.create("a", "Maximum Pool Size=1");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
		BlueTuskConnection first = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), first.connectedEndpoint().host());
		f.members("a:5432 primary\nb:5432 standby\nc:5432 standby\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b,c"; }));
		// b is full (Maximum Pool Size=1): the new member takes the next standby checkout.
		BlueTuskConnection second = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("c"), second.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(1, dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("c", 5432)).busy);
	}

	void testMemberRemovedIsDrained()
	{
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\nc:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b,c"; }));
		BlueTuskConnection held = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), held.connectedEndpoint().host());
		dataSource->open(TargetSessionAttributes::Standby).close(); // b gets a second session, idle now
		CPPUNIT_ASSERT_EQUAL(2, f.world->live("b:5432") + f.world->live("c:5432"));

		f.members("a:5432 primary\nc:5432 standby\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,c"; }));
		// The watcher publishes the new list, then drains the dropped member's pool: wait for the drain.
		CPPUNIT_ASSERT(within([&] { return dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("b", 5432)).draining; }));
		// The idle session closed at once, the leased one is still out (no lease lost) and still listed.
		auto statistics = dataSource->getHostPoolStatistics();
		const PoolStatistics b = statistics.at(BlueTuskHostEndpoint("b", 5432));
		CPPUNIT_ASSERT(b.draining);
		CPPUNIT_ASSERT_EQUAL(0, b.idle);
		CPPUNIT_ASSERT_EQUAL(1, b.busy);
		for (int i = 0; i < 5; ++i)
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Standby);
			CPPUNIT_ASSERT_EQUAL(std::string("c"), lease.connectedEndpoint().host());
		}
		held.close();
		CPPUNIT_ASSERT_EQUAL(0, f.world->live("b:5432"));
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().count(BlueTuskHostEndpoint("b", 5432)) == 0);
	}

	void testMemberReturnsAfterRemoval()
	{
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
		f.members("a:5432 primary\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a"; }));
		CPPUNIT_ASSERT_EQUAL(std::string("a"), dataSource->open(TargetSessionAttributes::PreferStandby).connectedEndpoint().host());
		f.members("a:5432 primary\nb:5432 standby\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
		// Its pool was drained by the topology thread and is resumed with the member.
		CPPUNIT_ASSERT(!dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("b", 5432)).draining);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), dataSource->open(TargetSessionAttributes::Standby).connectedEndpoint().host());
	}

	void testFailingReadsKeepMembersAndSeed()
	{
		TopologyFixture f;
		f.world->script("x:5432", FakeHost::refused());
		f.members("a:5432 primary\nb:5432 standby\n");
		auto dataSource = f.create("x");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
		f.members("fail the manager is down\n");
		// The last members read, then the written host (the seed), while reads fail.
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b,x"; }));
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), dataSource->topology().members.size());
		CPPUNIT_ASSERT_EQUAL(std::string("a"), dataSource->open(TargetSessionAttributes::ReadWrite).connectedEndpoint().host());
		f.members("a:5432 primary\nb:5432 standby\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
	}

	void testReadsThrowingAnythingKeepMembersAndSeed()
	{
		// A source throwing a std::exception or something that is no exception class at all (an int) fails
		// that read like any other: the process goes on, the host list falls back, the next good read counts.
		TopologyFixture f;
		f.world->script("x:5432", FakeHost::refused());
		f.members("a:5432 primary\nb:5432 standby\n");
		auto dataSource = f.create("x");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
		for (const std::string& failure: {std::string("throw-int\n"), std::string("throw-std the manager is down\n")})
		{
			f.members(failure);
			CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b,x"; }));
			CPPUNIT_ASSERT_EQUAL(std::string("a"), dataSource->open(TargetSessionAttributes::ReadWrite).connectedEndpoint().host());
			f.members("a:5432 primary\nb:5432 standby\n");
			CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,b"; }));
		}
	}

	void testHintOrdersCandidates()
	{
		// Written "c,b,a", the source says a is the primary: a read-write checkout tries a first.
		TopologyFixture f;
		f.members("c:5432 standby\nb:5432 standby\na:5432 primary\n");
		auto dataSource = f.create("c,b,a");
		CPPUNIT_ASSERT(within([&] { return dataSource->topology().members.size() == 3; }));
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("a:5432=accepted"), describeLog(lease.attemptLog()));
		CPPUNIT_ASSERT_EQUAL(0, f.world->opens("c:5432"));
		CPPUNIT_ASSERT_EQUAL(0, f.world->opens("b:5432"));
	}

	void testWrongHintIsNotTrusted()
	{
		// The source calls b the primary, but b's server is a standby: the role is confirmed, b rejected.
		TopologyFixture f;
		f.members("b:5432 primary\na:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return dataSource->topology().members.size() == 2; }));
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("a"), lease.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("b:5432=rejected,a:5432=accepted"), describeLog(lease.attemptLog()));
		lease.close();
		BlueTuskConnection standby = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), standby.connectedEndpoint().host());
	}

	void testNewerHintBeatsLearnedRole()
	{
		// a was learned primary; then the cluster fails over and the source says so: the next read-write
		// checkout goes to b first, not to a's idle session.
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return dataSource->topology().members.size() == 2; }));
		dataSource->open(TargetSessionAttributes::ReadWrite).close();
		f.world->setRole("a:5432", ServerRole::Standby);
		f.world->setRole("b:5432", ServerRole::Primary);
		f.members("a:5432 standby\nb:5432 primary\n");
		CPPUNIT_ASSERT(within([&] { return dataSource->topology().members.at(1).role == ServerRole::Primary; }));
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT_EQUAL(std::string("b:5432=accepted"), describeLog(lease.attemptLog()));
	}

	void testDrainKnowsMembers()
	{
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\nc:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return dataSource->hostList().size() == 3; }));
		dataSource->drain(BlueTuskHostEndpoint("b", 5432));
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("b", 5432)).draining);
		CPPUNIT_ASSERT_EQUAL(std::string("c"), dataSource->open(TargetSessionAttributes::Standby).connectedEndpoint().host());
		dataSource->resume(BlueTuskHostEndpoint("b", 5432));
		CPPUNIT_ASSERT(!dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint("b", 5432)).draining);
		try
		{
			dataSource->drain(BlueTuskHostEndpoint("z", 5432));
			CPPUNIT_FAIL("z is no member");
		}
		catch (const Poco::NotFoundException& e)
		{
			CPPUNIT_ASSERT(e.message().find("z:5432") != std::string::npos);
			CPPUNIT_ASSERT(e.message().find("Topology Source") != std::string::npos);
			CPPUNIT_ASSERT(e.message().find("b:5432") != std::string::npos);
		}
	}

	void testUnknownSource()
	{
		TopologyFixture f;
		try
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Topology Source=nosuch:somewhere"), f.context);
			CPPUNIT_FAIL("an unknown topology source must be refused");
		}
		catch (const BlueTuskPluginException& e)
		{
			CPPUNIT_ASSERT(e.message().find("nosuch") != std::string::npos);
			CPPUNIT_ASSERT(e.message().find("scripted") != std::string::npos);
			CPPUNIT_ASSERT(e.message().find(testPassword()) == std::string::npos);
		}
	}

	void testCheckoutsWhileMembersChange()
	{
		// Four threads check out (the idle fast path for any, the router for standby) while b joins and
		// leaves every 20 ms: no checkout fails, no lease is lost, every session is accounted for.
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\nc:5432 standby\n");
		auto dataSource = f.create("a", "Topology Refresh Interval=0.05");
		CPPUNIT_ASSERT(within([&] { return dataSource->hostList().size() == 3; }));
		std::atomic<bool> stop{false};
		std::atomic<int> checkouts{0};
		std::atomic<int> failures{0};
		std::vector<std::thread> threads;
		for (int t = 0; t < 4; ++t)
		{
			threads.emplace_back([&, t]
			{
				while (!stop)
				{
					try
					{
						BlueTuskConnection lease = dataSource->open(t % 2 ? TargetSessionAttributes::Standby : TargetSessionAttributes::Any);
						if (t % 2 && lease.connectedEndpoint().host() == "a") ++failures;
						++checkouts;
					}
					catch (...)
					{
						++failures;
					}
				}
			});
		}
		for (int i = 0; i < 30; ++i)
		{
			f.members(i % 2 ? "a:5432 primary\nb:5432 standby\nc:5432 standby\n" : "a:5432 primary\nc:5432 standby\n");
			Poco::Thread::sleep(20);
		}
		stop = true;
		for (std::thread& thread: threads) thread.join();
		CPPUNIT_ASSERT_EQUAL(0, failures.load());
		CPPUNIT_ASSERT(checkouts.load() > 100);
		const PoolStatistics total = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, total.busy);
		CPPUNIT_ASSERT_EQUAL(f.world->totalLive(), total.total);
	}

	void testFastPathLeaseOutlivesHostList()
	{
		// A lease from the idle fast path keeps its attempt log valid while the host list it came from is
		// replaced twice (scripts/asan would report a use after free).
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return dataSource->hostList().size() == 2; }));
		dataSource->open(TargetSessionAttributes::Any).close();
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Any);
		CPPUNIT_ASSERT(lease.attemptLog().at(0).reused);
		f.members("a:5432 primary\nc:5432 standby\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a,c"; }));
		f.members("a:5432 primary\n");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a"; }));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lease.attemptLog().size());
		CPPUNIT_ASSERT_EQUAL(std::string("a:5432=accepted"), describeLog(lease.attemptLog()));
		CPPUNIT_ASSERT(lease.attemptLog().at(0).reused);
	}

	void testNoThreadLeftBehind()
	{
		TopologyFixture f;
		f.members("a:5432 primary\nb:5432 standby\n");
		const int before = threadCount();
		for (int i = 0; i < 5; ++i)
		{
			auto dataSource = f.create("a");
			dataSource->open(TargetSessionAttributes::PreferStandby).close();
		}
		// At most as many as before: a late site-policy call of an earlier test (PolicyCallTest's sleeping
		// calls run on after their callers gave up) may end meanwhile, and then the count falls below
		// `before` (it failed so under ThreadSanitizer, whose timing stretches those calls).
		CPPUNIT_ASSERT(within([&] { return threadCount() <= before; }, 5000));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(threadCount()) + " threads, " + std::to_string(before) + " before", threadCount() <= before);
	}

	void testSourceIgnoringCloseIsAbandoned()
	{
		// A read() that ignores close() ("stall 3000": a sleep close() does not end): destroying the data
		// source waits 1 s for its thread (TopologyWatcher::CLOSE_BOUND), not 3 s, and says so once; no lease
		// is lost; the abandoned thread ends by itself when the read returns, touching nothing of the data source.
		const int before = threadCount();
		LogCapture capture;
		TopologyFixture f;
		f.members("a:5432 primary\n");
		auto dataSource = f.create("a");
		CPPUNIT_ASSERT(within([&] { return hostNames(dataSource->hostList()) == "a"; }));
		dataSource->open(TargetSessionAttributes::Any).close();
		f.members("stall 3000\na:5432 primary\n");
		std::this_thread::sleep_for(std::chrono::milliseconds(300));   // the next read (every 50 ms) is stalled
		PoolStatistics stats = dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(0, stats.busy);
		CPPUNIT_ASSERT_EQUAL(1, stats.idle);
		Poco::Clock started;
		dataSource.reset();
		const Poco::Clock::ClockDiff elapsedMs = started.elapsed() / 1000;
		CPPUNIT_ASSERT_MESSAGE(std::to_string(elapsedMs), elapsedMs >= 900 && elapsedMs < 2000);
		int logged = 0;
		for (const std::string& line: capture.channel().lines())
		{
			if (line.find("topology policy \"scripted\" (libBlueTuskTestScriptedTopology.so) did not return from read() or waitForChange() within 1000 ms of close()") != std::string::npos) ++logged;
		}
		CPPUNIT_ASSERT_EQUAL(1, logged);
		CPPUNIT_ASSERT_EQUAL(0, f.world->destroyedUnclosed.load());
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
		CPPUNIT_ASSERT(within([&] { return threadCount() == before; }, 6000));
	}

	void testConfigureThrowingIntIsPluginException()
	{
		// configure() throwing an int escaped BlueTuskDataSource::create() as an int; now a
		// BlueTuskPluginException naming the source and its library, logged once.
		LogCapture capture;
		TopologyFixture f;
		const std::string expected = "topology policy \"scripted\" (libBlueTuskTestScriptedTopology.so) failed in configure(): "
			"an exception that is neither a Poco::Exception nor a std::exception";
		std::string message = "(no exception)";
		try
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Topology Source=scripted:configure-throw-int"), f.context);
		}
		catch (BlueTuskPluginException& exc)
		{
			message = exc.message();
		}
		catch (...)
		{
			message = "another exception";
		}
		CPPUNIT_ASSERT_EQUAL(expected, message);
		int logged = 0;
		for (const std::string& line: capture.channel().lines()) logged += line.find(expected) != std::string::npos ? 1 : 0;
		CPPUNIT_ASSERT_EQUAL(1, logged);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TopologyDataSourceTest);
