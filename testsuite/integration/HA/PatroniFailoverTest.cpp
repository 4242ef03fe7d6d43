//
// PatroniFailoverTest.cpp
//
// BlueTusk under load while Patroni fails the cluster over (DESIGN.md section 11, issue 12). Needs the
// cluster of scripts/patroni (BLUETUSK_PATRONI_PORT); scripts/test starts it for label "ha".
//
// Each scenario: a pooled data source (Failover Timeout covering Patroni's window), 8 writer threads
// through read-write checkouts and 4 readers through prefer-standby; once writes flow on the leader, a
// fault; a watch polls the other members every 5 ms to see when one accepts writes. Asserted: Patroni's
// new leader is the member the watch saw promoted; no read-write checkout was handed a standby; the
// application saw no failed checkout; writes reach the new primary; every lease came back (busy 0, idle ==
// total, created - closed == total per endpoint). Printed: fault -> new primary accepting writes, and
// new primary accepting writes -> first BlueTusk write (doc/high-availability.md collects the numbers).
//

#include "FailoverLoad.h"
#include "PatroniCluster.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Connector.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const int writers = 8;
const int readers = 4;
const char* const dataSourceSettings = "Failover Timeout=30;Timeout=3;Maximum Pool Size=20;Checkout Timeout=40;"
	"SSL Mode=disable;Keepalive=5;Tcp User Timeout=5000";


bool waitFor(const std::function<bool()>& condition, int milliseconds)
	/// Polls condition every 5 ms until it holds (true) or milliseconds pass (false).
{
	const std::int64_t deadline = nowMicros() + static_cast<std::int64_t>(milliseconds) * 1000;
	while (!condition())
	{
		if (nowMicros() >= deadline) return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	return true;
}


double millis(std::int64_t micros)
{
	return static_cast<double>(micros) / 1000.0;
}


void prepareTable(int leader)
{
	const PatroniCluster& patroni = PatroniCluster::instance();
	auto connection = BlueTuskConnection::open(patroni.nodeConnectionString(leader, "Timeout=5;SSL Mode=disable;Target Session Attributes=read-write"));
	connection.executeSimple("CREATE TABLE IF NOT EXISTS bt_ha_writes(id bigserial PRIMARY KEY, run text NOT NULL, "
		"writer int NOT NULL, seq bigint NOT NULL, node text NOT NULL, written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
}


struct Restore
	/// Runs a scripts/patroni command when the scenario ends, passed or failed, then waits for a healthy
	/// cluster (without asserting: the next scenario asserts it).
{
	std::string command;
	~Restore()
	{
		const PatroniCluster& patroni = PatroniCluster::instance();
		if (!command.empty()) patroni.run(command + " >&2");
		patroni.run("wait 120 >/dev/null 2>&1");
	}
};


struct Outcome
{
	int oldLeader = 0;
	int newLeader = 0;
	double faultToPromotionMs = 0;
	double promotionToFirstWriteMs = 0;
};


Outcome runScenario(const std::string& name, const std::function<void(int leader)>& fault, const std::function<std::string(int leader)>& restore)
{
	const PatroniCluster& patroni = PatroniCluster::instance();
	patroni.waitHealthy(120);
	Outcome outcome;
	outcome.oldLeader = patroni.leader();
	CPPUNIT_ASSERT_MESSAGE("scripts/patroni leader named no member", outcome.oldLeader != 0);
	prepareTable(outcome.oldLeader);

	Restore guard;
	guard.command = restore(outcome.oldLeader);
	Connector connector;
	auto dataSource = BlueTuskDataSource::create(patroni.connectionString(dataSourceSettings), connector);
	const std::string oldHost = patroni.host(outcome.oldLeader);
	std::int64_t faultAt = 0;
	std::int64_t promotedAt = 0;
	std::int64_t firstWrite = 0;
	long writes = 0;
	long writeErrors = 0;
	long reads = 0;
	long readsOnStandby = 0;
	{
		FailoverLoad load(dataSource, writers, readers, name + "-" + std::to_string(nowMicros()));
		load.start();
		CPPUNIT_ASSERT_MESSAGE("no steady writes on the leader " + oldHost + " within 15 s:\n" + load.failures(),
			waitFor([&] { return load.writesOn(oldHost, 0) >= 50; }, 15000));
		std::vector<int> others;
		for (int node = 1; node <= 3; ++node)
		{
			if (node != outcome.oldLeader) others.push_back(node);
		}
		PromotionWatch watch(others, 5);
		std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the watch's sessions open
		CPPUNIT_ASSERT_EQUAL_MESSAGE("a member other than the leader is already out of recovery", 0, watch.promoted());

		faultAt = nowMicros();
		fault(outcome.oldLeader);
		CPPUNIT_ASSERT_MESSAGE(name + ": no member accepted writes within 60 s",
			waitFor([&] { return watch.promoted() != 0; }, 60000));
		outcome.newLeader = watch.promoted();
		promotedAt = watch.promotedAt();
		const std::string newHost = patroni.host(outcome.newLeader);
		CPPUNIT_ASSERT_MESSAGE(name + ": no BlueTusk write on the new primary " + newHost + " within 40 s:\n" + load.failures(),
			waitFor([&] { return load.firstWriteOn(newHost, faultAt) != 0; }, 40000));
		firstWrite = load.firstWriteOn(newHost, faultAt);
		std::this_thread::sleep_for(std::chrono::milliseconds(1500)); // the load goes on after the failover
		load.stop();

		CPPUNIT_ASSERT_EQUAL_MESSAGE(name + ": read-write checkouts handed a standby:\n" + load.failures(), 0L, load.standbyWriteSessions.load());
		CPPUNIT_ASSERT_EQUAL_MESSAGE(name + ": checkouts the application saw fail:\n" + load.failures(), 0L, load.checkoutFailures.load());
		CPPUNIT_ASSERT_MESSAGE(name + ": writes on the new primary", load.writesOn(newHost, faultAt) >= 20);
		CPPUNIT_ASSERT_MESSAGE(name + ": reads", load.reads.load() >= 50);
		writes = load.writes;
		writeErrors = load.writeErrors;
		reads = load.reads;
		readsOnStandby = load.readsOnStandby;
		if (writeErrors > 0) std::cout << "    " << name << ": writes lost in flight:\n" << load.failures();
	}
	CPPUNIT_ASSERT_EQUAL_MESSAGE(name + ": Patroni's leader is the member seen promoted", outcome.newLeader, patroni.leader());
	CPPUNIT_ASSERT_MESSAGE(name + ": a member other than the old leader was promoted", outcome.newLeader != outcome.oldLeader);

	// Every lease came back; the counters balance.
	const PoolStatistics all = dataSource->getPoolStatistics();
	CPPUNIT_ASSERT_EQUAL_MESSAGE(all.toString(), 0, all.busy);
	CPPUNIT_ASSERT_EQUAL_MESSAGE(all.toString(), 0, all.pending);
	CPPUNIT_ASSERT_EQUAL_MESSAGE(all.toString(), all.total, all.idle);
	CPPUNIT_ASSERT_EQUAL_MESSAGE(all.toString(), Poco::UInt64(0), all.checkoutTimeouts);
	for (const auto& entry: dataSource->getHostPoolStatistics())
	{
		const PoolStatistics& s = entry.second;
		CPPUNIT_ASSERT_EQUAL_MESSAGE(entry.first.toString() + ": " + s.toString(), 0, s.busy);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(entry.first.toString() + ": " + s.toString(), Poco::UInt64(s.total), s.created - s.closed);
	}

	outcome.faultToPromotionMs = millis(promotedAt - faultAt);
	outcome.promotionToFirstWriteMs = millis(firstWrite - promotedAt);
	char line[512];
	std::snprintf(line, sizeof(line), "HA %-12s node%d -> node%d: fault -> new primary accepts writes %.0f ms; "
		"-> first BlueTusk write %+.1f ms; writes %ld (lost in flight %ld), reads %ld (%ld on standbys), failed checkouts 0; %s",
		name.c_str(), outcome.oldLeader, outcome.newLeader, outcome.faultToPromotionMs, outcome.promotionToFirstWriteMs,
		writes, writeErrors, reads, readsOnStandby, all.toString().c_str());
	std::cout << "\n" << line << std::endl;
	return outcome;
}

} // namespace


class PatroniFailoverTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PatroniFailoverTest);
	CPPUNIT_TEST(testKilledPostmaster);
	CPPUNIT_TEST(testPlannedSwitchover);
	CPPUNIT_TEST(testLostLeaderNode);
	CPPUNIT_TEST_SUITE_END();

public:
	void testKilledPostmaster()
	{
		// (a) kill -9 of the leader's postmaster: Patroni (primary_start_timeout 0) promotes a replica.
		const Outcome outcome = runScenario("kill-primary",
			[](int) { CPPUNIT_ASSERT_EQUAL(0, PatroniCluster::instance().run("kill-primary")); },
			[](int) { return std::string(); });
		CPPUNIT_ASSERT_MESSAGE("promotion within 30 s", outcome.faultToPromotionMs < 30000);
		CPPUNIT_ASSERT_MESSAGE("first write within 3 s of the promotion", outcome.promotionToFirstWriteMs < 3000);
	}

	void testPlannedSwitchover()
	{
		// (c) patronictl switchover to the first replica: the old leader shuts down, the candidate promotes.
		const Outcome outcome = runScenario("switchover",
			[](int) { CPPUNIT_ASSERT_EQUAL(0, PatroniCluster::instance().run("switchover")); },
			[](int) { return std::string(); });
		CPPUNIT_ASSERT_MESSAGE("first write within 3 s of the promotion", outcome.promotionToFirstWriteMs < 3000);
	}

	void testLostLeaderNode()
	{
		// (b) the leader's machine dies: Patroni and PostgreSQL killed; the leader key expires after ttl.
		const Outcome outcome = runScenario("node-loss",
			[](int leader) { CPPUNIT_ASSERT_EQUAL(0, PatroniCluster::instance().run("stop-node " + std::to_string(leader))); },
			[](int leader) { return "start-node " + std::to_string(leader); });
		CPPUNIT_ASSERT_MESSAGE("promotion after the leader key expired (ttl 10 s)", outcome.faultToPromotionMs > 3000);
		CPPUNIT_ASSERT_MESSAGE("first write within 3 s of the promotion", outcome.promotionToFirstWriteMs < 3000);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(PatroniFailoverTest);
