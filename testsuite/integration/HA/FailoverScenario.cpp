//
// FailoverScenario.cpp
//

#include "FailoverScenario.h"
#include "FailoverLoad.h"
#include "HaCluster.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstdio>
#include <iostream>

namespace BlueTusk {
namespace Test {

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


void prepareTable(const HaCluster& cluster, int leader)
{
	auto connection = BlueTuskConnection::open(cluster.nodeConnectionString(leader, "Timeout=5;SSL Mode=disable;Target Session Attributes=read-write"));
	connection.executeSimple("CREATE TABLE IF NOT EXISTS bt_ha_writes(id bigserial PRIMARY KEY, run text NOT NULL, "
		"writer int NOT NULL, seq bigint NOT NULL, node text NOT NULL, written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
}


struct Restore
	/// Runs a command of the cluster's script when the scenario ends, passed or failed, then waits for a
	/// healthy cluster (without asserting: the next scenario asserts it).
{
	const HaCluster& cluster;
	std::string command;
	~Restore()
	{
		if (!command.empty()) cluster.run(command + " >&2");
		cluster.run("wait 120 >/dev/null 2>&1");
	}
};


} // namespace


Outcome runScenario(const Scenario& scenario)
{
	const HaCluster& cluster = scenario.cluster ? *scenario.cluster : HaCluster::patroni();
	const std::string& name = scenario.name;
	cluster.waitHealthy(120);
	Outcome outcome;
	outcome.oldLeader = cluster.leader();
	CPPUNIT_ASSERT_MESSAGE("scripts/" + cluster.script + " leader named no member", outcome.oldLeader != 0);
	prepareTable(cluster, outcome.oldLeader);

	Restore guard{cluster, ""};
	guard.command = scenario.restore;
	const std::string::size_type mark = guard.command.find('%');
	if (mark != std::string::npos) guard.command.replace(mark, 1, std::to_string(outcome.oldLeader));
	RoutingContext connector;
	auto dataSource = BlueTuskDataSource::create(cluster.connectionString(std::string(dataSourceSettings) + scenario.settings), connector);
	const std::string oldHost = cluster.host(outcome.oldLeader);
	std::int64_t faultAt = 0;
	std::int64_t promotedAt = 0;
	std::int64_t leftRecoveryAt = 0;
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
		PromotionWatch watch(cluster, others, 5);
		std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the watch's sessions open
		CPPUNIT_ASSERT_EQUAL_MESSAGE("a member other than the leader is already out of recovery", 0, watch.promoted());

		const long readsBefore = load.reads;
		faultAt = nowMicros();
		scenario.fault(outcome.oldLeader);
		CPPUNIT_ASSERT_MESSAGE(name + ": no member accepted writes within 60 s",
			waitFor([&] { return watch.promoted() != 0; }, 60000));
		outcome.readsDuringFailover = load.reads - readsBefore;
		outcome.newLeader = watch.promoted();
		promotedAt = watch.promotedAt();
		leftRecoveryAt = watch.leftRecoveryAt();
		const std::string newHost = cluster.host(outcome.newLeader);
		CPPUNIT_ASSERT_MESSAGE(name + ": no BlueTusk write on the new primary " + newHost + " within 40 s:\n" + load.failures(),
			waitFor([&] { return load.firstWriteOn(newHost, faultAt) != 0; }, 40000));
		firstWrite = load.firstWriteOn(newHost, faultAt);
		if (scenario.afterFailover) scenario.afterFailover(outcome.oldLeader);
		std::this_thread::sleep_for(std::chrono::milliseconds(1500)); // the load goes on after the failover
		load.stop();
		outcome.writesOnDeposed = load.writesOn(oldHost, promotedAt);
		outcome.writeErrors = load.writeErrors;

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
	CPPUNIT_ASSERT_EQUAL_MESSAGE(name + ": " + cluster.manager + "'s primary is the member seen promoted", outcome.newLeader, cluster.leader());
	CPPUNIT_ASSERT_MESSAGE(name + ": a member other than the old leader was promoted", outcome.newLeader != outcome.oldLeader);

	// Every lease came back; the counters balance. The pool itself may hold an idle session out for a round
	// trip (a deferred reset flushed 1 s after its return, the health monitor's role check: busy=1 with
	// busy + idle == total was seen right after load.stop()), so busy gets up to 5 s to reach 0 first; a
	// lease that never came back stays busy and still fails below.
	waitFor([&] { return dataSource->getPoolStatistics().busy == 0; }, 5000);
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
	outcome.faultToRecoveryEndMs = millis(leftRecoveryAt - faultAt);
	outcome.promotionToFirstWriteMs = millis(firstWrite - promotedAt);
	char held[96] = "";
	if (cluster.holdsCommitsAfterPromotion)
		std::snprintf(held, sizeof(held), " (out of recovery, read-only, at %.0f ms)", outcome.faultToRecoveryEndMs);
	char line[640];
	std::snprintf(line, sizeof(line), "HA %-12s node%d -> node%d: fault -> new primary accepts writes %.0f ms%s; "
		"-> first BlueTusk write %+.1f ms; writes %ld (lost in flight %ld, on the deposed leader %ld), reads %ld (%ld on standbys), "
		"failed checkouts 0; %s",
		name.c_str(), outcome.oldLeader, outcome.newLeader, outcome.faultToPromotionMs, held, outcome.promotionToFirstWriteMs,
		writes, writeErrors, outcome.writesOnDeposed, reads, readsOnStandby, all.toString().c_str());
	std::cout << "\n" << line << std::endl;
	return outcome;
}

} } // namespace BlueTusk::Test
