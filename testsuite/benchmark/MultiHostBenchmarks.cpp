//
// MultiHostBenchmarks.cpp
//
// open with three hosts where the first is black-holed (a loopback listener with
// a full accept queue: every connect() hangs until the client's own timeout, without
// iptables), then the primary and the first standby; Timeout=2 / connect_timeout=2, no TLS,
// target any.
//   multihost_sequential/bluetusk   Host Order=sequential    vs libpq (host list, tried in order)
//   multihost_random/bluetusk       Host Order=random        vs libpq with the host list shuffled for each
//                                                                connection (libpq 15 has no load_balance_hosts;
//                                                                this is what libpq 16's =random does)
//   multihost_parallel/bluetusk     Host Order=parallel      (target: within 1.5 x connect_plain/bluetusk,
//                                                                a single healthy-host open)
//   multihost_learned/bluetusk      random order with the default Host Recheck Seconds (10 s), on a RoutingContext
//                                   of its own (so it starts without learned states): the first open that
//                                   draws the black hole first pays the Timeout and marks it down, later
//                                   opens try it last. Against multihost_random/libpq, which pays the
//                                   Timeout every time the black hole comes first.
// The cold runs use Host Recheck Seconds=0 so every open starts without learned host states, as libpq
// does. Sequential: one open per repetition (each takes the 2 s timeout). Random and learned: DRAWS (30)
// opens in one iteration, so the learned row's draws fall inside one Host Recheck window (they last about
// 2.2 s; spread over the interleaved run they would each find the state expired); counters draw_mean_ns,
// draw_median_ns, draw_p90_ns (report.py shows mean, median and p90) and timeouts_paid (opens >= 1 s).
// The Timeout stays 2 s: libpq rounds a shorter connect_timeout up to 2 s, and the black hole's cost is
// what these rows measure.
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlackHoleListener.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/RoutingContext.h"
#include <algorithm>
#include <functional>
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

	const int DRAWS = 30;

	void openBlueTusk(benchmark::State& state, const std::string& hostOrder)
	{
		guarded(state, [&]
		{
			std::string text = blueTusk(blueTuskHosts(), "SSL Mode=disable;Timeout=2;Host Recheck Seconds=0;Host Order=" + hostOrder);
			for (auto _: state)
			{
				auto connection = BlueTuskConnection::open(text);
				connection.close();
			}
		});
	}

	void draws(benchmark::State& state, const std::function<void()>& open)
		/// DRAWS opens in the one iteration; counters draw_mean_ns, draw_median_ns, draw_p90_ns and
		/// timeouts_paid (opens of 1 s or more: the 2 s Timeout on the black hole).
	{
		std::vector<double> times;
		for (auto _: state)
		{
			for (int i = 0; i < DRAWS; ++i)
			{
				auto start = Clock::now();
				open();
				times.push_back(secondsSince(start) * 1e9);
			}
		}
		double sum = 0, paid = 0;
		for (double t: times)
		{
			sum += t;
			if (t >= 1e9) ++paid;
		}
		state.counters["draws"] = double(times.size());
		state.counters["draw_mean_ns"] = times.empty() ? 0 : sum / times.size();
		state.counters["draw_median_ns"] = percentile(times, 0.5);
		state.counters["draw_p90_ns"] = percentile(times, 0.9);
		state.counters["timeouts_paid"] = paid;
	}

	void drawBlueTusk(benchmark::State& state, bool learned)
		/// Random order; learned: default Host Recheck Seconds on a RoutingContext of its own (cold at the start).
	{
		guarded(state, [&]
		{
			RoutingContext connector;
			std::string text = blueTusk(blueTuskHosts(), std::string("SSL Mode=disable;Timeout=2;Host Order=random") +
				(learned ? "" : ";Host Recheck Seconds=0"));
			draws(state, [&] { BlueTuskConnection::open(text, connector).close(); });
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

	std::vector<std::pair<std::string, std::string>> libpqHosts()
	{
		const auto& hosts = Test::cluster().hosts;
		std::string port = std::to_string(Test::cluster().port);
		return {{BLACK_HOLE_HOST, std::to_string(blackHole().port())}, {hosts.at(0), port}, {hosts.at(1), port}};
	}

	void openLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto list = libpqHosts();
			for (auto _: state) LibpqConnection connection(libpqConninfo(list));
		});
	}

	void drawLibpq(benchmark::State& state)
		/// The host list shuffled before each PQconnectdb (what libpq 16's load_balance_hosts=random does).
	{
		guarded(state, [&]
		{
			auto list = libpqHosts();
			std::mt19937 random(std::random_device{}());
			draws(state, [&]
			{
				std::shuffle(list.begin(), list.end(), random);
				LibpqConnection connection(libpqConninfo(list));
			});
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
	configureSlow(benchmark::RegisterBenchmark("multihost_sequential/bluetusk", openBlueTusk, std::string("sequential")), 3);
	configureSlow(benchmark::RegisterBenchmark("multihost_sequential/libpq", openLibpq), 3);
	configureSlow(benchmark::RegisterBenchmark("multihost_random/bluetusk", drawBlueTusk, false), 1);
	configureSlow(benchmark::RegisterBenchmark("multihost_random/libpq", drawLibpq), 1);
	// Process CPU time (all threads: the race runs one thread per host), so the CPU column shows what the
	// client costs per parallel open (scripts/bench --pin measures it off the servers' core).
	configureFast(benchmark::RegisterBenchmark("multihost_parallel/bluetusk", openBlueTusk, std::string("parallel"))
		->MeasureProcessCPUTime());
	configureSlow(benchmark::RegisterBenchmark("multihost_learned/bluetusk", drawBlueTusk, true), 1);
}

} } // namespace BlueTusk::Bench
