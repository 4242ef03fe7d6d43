//
// FailoverBench.cpp
//
// bluetusk-failover-bench: one run of the failover benchmark against the Patroni cluster of
// scripts/patroni. Three clients write side by side through the same failover:
//   bluetusk   a pooled BlueTuskDataSource (the HA suite's FailoverLoad, one writer: read-write checkout,
//              INSERT, return), Target Session Attributes=read-write with Failover Timeout
//   libpq      one libpq connection, multi-host string, target_session_attrs=read-write, reconnect every 50 ms
//   haproxy    one libpq connection to HAProxy (Patroni's GET /primary check), reconnect every 50 ms
// Once every client writes steadily on the leader, the leader's postmaster is killed (SIGKILL, from here,
// so that the kill and every measurement share one clock). The HA suite's PromotionWatch asks the other
// members pg_is_in_recovery() every 2 ms on their own sessions: the first "f" is "the new primary accepts
// writes", measured independently of the clients. Per client: the first write on the new primary (relative
// to the kill and to the promotion), failed connects or checkouts, failed writes, writes acknowledged by
// another member after the promotion (non-leader), writes the killed leader's backends still acknowledged
// after the kill, and sessions on a standby. Prints one line per client and appends one JSON line
// (the run) to --json FILE, which testsuite/ha-bench/report.py turns into the tables of doc/failover-benchmark.md.
//
// Usage: bluetusk-failover-bench --haproxy-port PORT [--run N] [--json FILE] [--failover-timeout S]
//        [--pause-ms MS] [--after-ms MS]
// Environment: BLUETUSK_PATRONI_PORT (default 55462), BLUETUSK_PATRONI_DIR (default /tmp/bluetusk-patroni-<port>).
// Exit status 0 when the run completed (its numbers are the report's to judge), 1 when it could not.
//

#include "FailoverLoad.h"
#include "LibpqWriter.h"
#include "HaCluster.h"
#include "TestEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/Environment.h"
#include "Poco/Exception.h"
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Options
{
	int run = 1;
	int haproxyPort = 0;
	std::string json;
	int failoverTimeout = 20;  // seconds: ttl 10 + 2 x loop_wait 1 + Timeout 3 + margin (doc/high-availability.md)
	int pauseMs = 10;          // between two writes of one client (all three alike)
	int afterMs = 1000;        // load after the last client's first write on the new primary
};


Options parse(int argc, char** argv)
{
	Options options;
	for (int i = 1; i < argc; ++i)
	{
		const std::string arg = argv[i];
		auto value = [&]() -> int
		{
			if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
			return std::stoi(argv[++i]);
		};
		if (arg == "--run") options.run = value();
		else if (arg == "--haproxy-port") options.haproxyPort = value();
		else if (arg == "--failover-timeout") options.failoverTimeout = value();
		else if (arg == "--pause-ms") options.pauseMs = value();
		else if (arg == "--after-ms") options.afterMs = value();
		else if (arg == "--json")
		{
			if (i + 1 >= argc) throw std::invalid_argument("--json needs a file");
			options.json = argv[++i];
		}
		else throw std::invalid_argument("unknown argument " + arg + " (see the header of testsuite/ha-bench/FailoverBench.cpp)");
	}
	if (options.haproxyPort <= 0) throw std::invalid_argument("--haproxy-port is required (scripts/failover-bench starts HAProxy)");
	return options;
}


bool waitFor(const std::function<bool()>& condition, int milliseconds)
{
	const std::int64_t deadline = nowMicros() + static_cast<std::int64_t>(milliseconds) * 1000;
	while (!condition())
	{
		if (nowMicros() >= deadline) return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	}
	return true;
}


pid_t postmasterPid(int node)
	/// The first line of node's postmaster.pid (scripts/patroni's layout).
{
	const HaCluster& patroni = HaCluster::patroni();
	const std::string dir = Poco::Environment::get("BLUETUSK_PATRONI_DIR", "/tmp/bluetusk-patroni-" + std::to_string(patroni.port));
	std::ifstream file(dir + "/node" + std::to_string(node) + "/data/postmaster.pid");
	long pid = 0;
	if (!(file >> pid) || pid <= 1) throw std::runtime_error("no postmaster.pid for node" + std::to_string(node) + " under " + dir);
	return static_cast<pid_t>(pid);
}


std::string libpqConninfo(const std::string& hosts, int port, const std::string& extra)
{
	const ClusterInfo& info = cluster();
	return "host=" + hosts + " port=" + std::to_string(port) + " user=" + info.user + " password=" + info.password +
		" dbname=" + info.database + " sslmode=disable connect_timeout=3 " + extra;
}


void prepareTables(int leader)
{
	const HaCluster& patroni = HaCluster::patroni();
	auto connection = BlueTuskConnection::open(patroni.nodeConnectionString(leader, "Timeout=5;SSL Mode=disable;Target Session Attributes=read-write"));
	connection.executeSimple("CREATE TABLE IF NOT EXISTS bt_ha_writes(id bigserial PRIMARY KEY, run text NOT NULL, "
		"writer int NOT NULL, seq bigint NOT NULL, node text NOT NULL, written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
	connection.executeSimple("CREATE TABLE IF NOT EXISTS bt_failover_bench(id bigserial PRIMARY KEY, client text NOT NULL, "
		"seq bigint NOT NULL, written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
}


struct ClientResult
{
	std::string name;
	std::int64_t firstWrite = 0;  // completion of the first write on the new primary (nowMicros), 0 = none
	long writes = 0;
	long connectFailures = 0;     // failed connects (libpq) or failed checkouts (BlueTusk) seen by the application
	long writeFailures = 0;       // writes that failed on an open connection / a checked-out session
	long nonLeaderWrites = 0;     // acknowledged after the new primary accepted writes by another member
	long oldLeaderAfterKill = 0;  // acknowledged by the killed leader's backends after the kill (it still held the key)
	long wrongNode = 0;           // BlueTusk: read-write checkouts on a standby; libpq: 25006 refusals
	std::string failures;
};


double ms(std::int64_t micros)
{
	return static_cast<double>(micros) / 1000.0;
}


std::string number(double value)
{
	char text[32];
	std::snprintf(text, sizeof(text), "%.1f", value);
	return text;
}

} // namespace


int main(int argc, char** argv)
{
	try
	{
		const Options options = parse(argc, argv);
		const HaCluster& patroni = HaCluster::patroni();
		const int oldLeader = patroni.leader();
		if (oldLeader == 0) throw std::runtime_error("scripts/patroni leader named no member (is the cluster up?)");
		const std::string oldHost = patroni.host(oldLeader);
		prepareTables(oldLeader);

		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(patroni.connectionString(
			"Target Session Attributes=read-write;Failover Timeout=" + std::to_string(options.failoverTimeout) +
			";Timeout=3;Maximum Pool Size=4;Checkout Timeout=" + std::to_string(options.failoverTimeout + 10) +
			";SSL Mode=disable;Keepalive=5;Tcp User Timeout=5000"), connector);
		const std::string hosts = patroni.host(1) + "," + patroni.host(2) + "," + patroni.host(3);
		FailoverLoad bluetusk(dataSource, 1, 0, "bench-" + std::to_string(options.run) + "-" + std::to_string(nowMicros()));
		LibpqWriter libpq("libpq", libpqConninfo(hosts, patroni.port, "target_session_attrs=read-write"), options.pauseMs, 50);
		LibpqWriter haproxy("haproxy", libpqConninfo("127.0.0.1", options.haproxyPort, ""), options.pauseMs, 50);
		bluetusk.start();
		libpq.start();
		haproxy.start();
		const bool steady = waitFor([&]
		{
			return bluetusk.writesOn(oldHost, 0) >= 20 && libpq.writesOn(oldHost, 0) >= 20 && haproxy.writesOn(oldHost, 0) >= 20;
		}, 15000);
		if (!steady)
		{
			throw std::runtime_error("the clients do not all write steadily on the leader " + oldHost + ":\n" +
				bluetusk.failures() + libpq.failures() + haproxy.failures());
		}
		std::vector<int> others;
		for (int node = 1; node <= 3; ++node)
		{
			if (node != oldLeader) others.push_back(node);
		}
		PromotionWatch watch(patroni, others, 2);
		std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the watch's sessions open
		if (watch.promoted() != 0) throw std::runtime_error("a member other than the leader is already out of recovery");

		const pid_t pid = postmasterPid(oldLeader);
		const std::int64_t killAt = nowMicros();
		if (::kill(pid, SIGKILL) != 0) throw std::runtime_error("kill -9 " + std::to_string(pid) + " (node" + std::to_string(oldLeader) + "'s postmaster) failed");
		if (!waitFor([&] { return watch.promoted() != 0; }, 60000)) throw std::runtime_error("no member accepted writes within 60 s of the kill");
		const int newLeader = watch.promoted();
		const std::int64_t promotedAt = watch.promotedAt();
		const std::string newHost = patroni.host(newLeader);
		waitFor([&]
		{
			return bluetusk.firstWriteOn(newHost, killAt) != 0 && libpq.firstWriteOn(newHost, killAt) != 0 &&
				haproxy.firstWriteOn(newHost, killAt) != 0;
		}, 40000);
		std::this_thread::sleep_for(std::chrono::milliseconds(options.afterMs));
		bluetusk.stop();
		libpq.stop();
		haproxy.stop();

		std::vector<ClientResult> results(3);
		results[0].name = "bluetusk";
		results[0].firstWrite = bluetusk.firstWriteOn(newHost, killAt);
		results[0].writes = bluetusk.writes;
		results[0].connectFailures = bluetusk.checkoutFailures;
		results[0].writeFailures = bluetusk.writeErrors;
		results[0].wrongNode = bluetusk.standbyWriteSessions;
		for (int node = 1; node <= 3; ++node)
		{
			if (node != newLeader) results[0].nonLeaderWrites += bluetusk.writesOn(patroni.host(node), promotedAt);
		}
		results[0].oldLeaderAfterKill = bluetusk.writesOn(oldHost, killAt) - bluetusk.writesOn(oldHost, promotedAt);
		results[0].failures = bluetusk.failures();
		const LibpqWriter* writers[2] = {&libpq, &haproxy};
		for (int i = 0; i < 2; ++i)
		{
			ClientResult& r = results[i + 1];
			const LibpqWriter& w = *writers[i];
			r.name = i == 0 ? "libpq" : "haproxy";
			r.firstWrite = w.firstWriteOn(newHost, killAt);
			r.writes = w.writes;
			r.connectFailures = w.connectFailures;
			r.writeFailures = w.writeFailures;
			r.wrongNode = w.readOnlyRefusals;
			r.nonLeaderWrites = w.writesNotOn(newHost, promotedAt);
			r.oldLeaderAfterKill = w.writesOn(oldHost, killAt) - w.writesOn(oldHost, promotedAt);
			r.failures = w.failures();
		}

		std::ostringstream json;
		json << "{\"run\": " << options.run << ", \"old_leader\": " << oldLeader << ", \"new_leader\": " << newLeader
			<< ", \"kill_to_promotion_ms\": " << number(ms(promotedAt - killAt)) << ", \"failover_timeout_s\": "
			<< options.failoverTimeout << ", \"pause_ms\": " << options.pauseMs << ", \"clients\": {";
		std::printf("run %d: node%d -> node%d, kill -> new primary accepts writes %.1f ms\n", options.run, oldLeader,
			newLeader, ms(promotedAt - killAt));
		for (std::size_t i = 0; i < results.size(); ++i)
		{
			const ClientResult& r = results[i];
			const bool wrote = r.firstWrite != 0;
			std::printf("  %-9s first write %s (kill +%s ms), writes %ld, failed: %ld connects/checkouts + %ld writes, "
				"non-leader writes %ld (old leader after the kill %ld), wrong node %ld\n", r.name.c_str(),
				wrote ? ("+" + number(ms(r.firstWrite - promotedAt)) + " ms after the promotion").c_str() : "NONE",
				wrote ? number(ms(r.firstWrite - killAt)).c_str() : "-", r.writes, r.connectFailures, r.writeFailures,
				r.nonLeaderWrites, r.oldLeaderAfterKill, r.wrongNode);
			if (!r.failures.empty()) std::printf("%s", r.failures.c_str());
			json << (i ? ", " : "") << "\"" << r.name << "\": {\"first_write_after_promotion_ms\": "
				<< (wrote ? number(ms(r.firstWrite - promotedAt)) : "null") << ", \"first_write_after_kill_ms\": "
				<< (wrote ? number(ms(r.firstWrite - killAt)) : "null") << ", \"writes\": " << r.writes
				<< ", \"failed_connects\": " << r.connectFailures << ", \"failed_writes\": " << r.writeFailures
				<< ", \"non_leader_writes\": " << r.nonLeaderWrites << ", \"old_leader_after_kill\": " << r.oldLeaderAfterKill
				<< ", \"wrong_node\": " << r.wrongNode << "}";
		}
		json << "}}";
		std::fflush(stdout);
		if (!options.json.empty())
		{
			std::ofstream out(options.json, std::ios::app);
			out << json.str() << "\n";
			if (!out) throw std::runtime_error("cannot append to " + options.json);
		}
		return 0;
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "bluetusk-failover-bench: " << exc.displayText() << std::endl;
	}
	catch (std::exception& exc)
	{
		std::cerr << "bluetusk-failover-bench: " << exc.what() << std::endl;
	}
	return 1;
}
