//
// MultiHostBenchmarks.cpp
//
// Issue 7, measurement 7: open with three hosts where the first is black-holed (a loopback listener with
// a full accept queue: every connect() hangs until the client's own timeout, PLATFORM-NOTES "Faults
// without iptables"), then the primary and the first standby; Timeout=2 / connect_timeout=2, no TLS,
// target any.
//   multihost_sequential/bluetusk   Host Order=sequential    vs libpq (host list, tried in order)
//   multihost_random/bluetusk       Host Order=random        vs libpq with the host list shuffled for each
//                                                                connection (libpq 15 has no load_balance_hosts;
//                                                                this is what libpq 16's =random does)
//   multihost_parallel/bluetusk     Host Order=parallel      (target: within 1.5 x connect_plain/bluetusk,
//                                                                a single healthy-host open)
//   multihost_learned/bluetusk      sequential with the default Host Recheck Seconds: the router has
//                                   learned that the first host is down and tries it last (informational)
// The cold runs use Host Recheck Seconds=0 so every open starts without learned host states, as libpq
// does. One open per iteration, one iteration per repetition where an open can take the 2 s timeout,
// so the reported median is the median single open (random: its cost depends on the draw).
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlackHoleListener.h"
#include "BlueTusk/BlueTuskConnection.h"
#include <algorithm>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace BlueTusk {
namespace Bench {

namespace
{
	const char* BLACK_HOLE_HOST = "127.0.0.9";

	const Test::BlackHoleListener& blackHole()
		/// Created on first use and kept for the whole run.
	{
		static std::unique_ptr<Test::BlackHoleListener> hole;
		static std::once_flag once;
		std::call_once(once, [] { hole.reset(new Test::BlackHoleListener(BLACK_HOLE_HOST)); });
		return *hole;
	}

	std::string blueTuskHosts()
	{
		const auto& hosts = Test::cluster().hosts;
		return blackHole().hostAndPort() + "," + hosts.at(0) + "," + hosts.at(1);
	}

	void openBlueTusk(benchmark::State& state, const std::string& hostOrder, bool learned)
	{
		guarded(state, [&]
		{
			std::string text = blueTusk(blueTuskHosts(), "SSL Mode=disable;Timeout=2;Host Order=" + hostOrder +
				(learned ? std::string() : ";Host Recheck Seconds=0"));
			if (learned) BlueTuskConnection::open(text).close();
			for (auto _: state)
			{
				auto connection = BlueTuskConnection::open(text);
				connection.close();
			}
		});
	}

	std::string libpqConninfo(std::vector<std::pair<std::string, std::string>> hosts)
	{
		std::string hostList, portList;
		for (const auto& host: hosts)
		{
			if (!hostList.empty())
			{
				hostList += ",";
				portList += ",";
			}
			hostList += host.first;
			portList += host.second;
		}
		return libpq(hostList, "sslmode=disable connect_timeout=2", portList);
	}

	void openLibpq(benchmark::State& state, bool shuffle)
	{
		guarded(state, [&]
		{
			const auto& hosts = Test::cluster().hosts;
			std::string port = std::to_string(Test::cluster().port);
			std::vector<std::pair<std::string, std::string>> list{
				{BLACK_HOLE_HOST, std::to_string(blackHole().port())}, {hosts.at(0), port}, {hosts.at(1), port}};
			std::mt19937 random(std::random_device{}());
			for (auto _: state)
			{
				if (shuffle) std::shuffle(list.begin(), list.end(), random);
				LibpqConnection connection(libpqConninfo(list));
			}
		});
	}

	void configureSlow(benchmark::internal::Benchmark* b, int reps)
	{
		b->Iterations(1)->Repetitions(repetitions(reps))->Unit(benchmark::kMillisecond)->UseRealTime();
	}

	void configureFast(benchmark::internal::Benchmark* b)
	{
		b->Iterations(10)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseRealTime();
	}
}


void registerMultiHostBenchmarks()
{
	configureSlow(benchmark::RegisterBenchmark("multihost_sequential/bluetusk", openBlueTusk, std::string("sequential"), false), 3);
	configureSlow(benchmark::RegisterBenchmark("multihost_sequential/libpq", openLibpq, false), 3);
	configureSlow(benchmark::RegisterBenchmark("multihost_random/bluetusk", openBlueTusk, std::string("random"), false), 15);
	configureSlow(benchmark::RegisterBenchmark("multihost_random/libpq", openLibpq, true), 15);
	configureFast(benchmark::RegisterBenchmark("multihost_parallel/bluetusk", openBlueTusk, std::string("parallel"), false));
	configureFast(benchmark::RegisterBenchmark("multihost_learned/bluetusk", openBlueTusk, std::string("sequential"), true));
}

} } // namespace BlueTusk::Bench
