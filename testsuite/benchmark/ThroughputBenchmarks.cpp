//
// ThroughputBenchmarks.cpp
//
// SELECT 1 from 8 threads over the three-node cluster (no TLS), for a fixed time
// slice per iteration.
//   BlueTusk: one BlueTuskDataSource over 127.0.0.1,127.0.0.2,127.0.0.3 with the default pool settings;
//     each query is a checkout (open(target)), executeSimple("SELECT 1") and the return of the lease
//     (which resets the session: DISCARD ALL, unless No Reset On Close).
//   libpq: 8 threads, each with its own PGconn opened once with the same host list and
//     target_session_attrs, running PQexec("SELECT 1").
//   throughput_any            target any
//   throughput_prefer_standby target prefer-standby (BlueTusk refreshes a pooled session's role before
//                             handing it to a targeted checkout: doc/pooling.md, step 2)
//   throughput_any_noreset    target any with No Reset On Close=true (informational: the cost of the reset)
//   throughput_prefer_standby_recheck  prefer-standby with Role Recheck Milliseconds=100 (a role confirmed by
//                             a ReadyForQuery less than 100 ms ago is trusted; compared with throughput_any)
// Counters: queries_per_second and ns_per_query (wall time / queries, all threads together).
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include <atomic>
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const int THREADS = 8;
	const double SLICE_SECONDS = 0.3;

	Clock::time_point sliceEnd()
	{
		return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(SLICE_SECONDS));
	}

	void report(benchmark::State& state, Poco::UInt64 queries, double seconds)
	{
		state.counters["queries_per_second"] = queries / seconds;
		state.counters["ns_per_query"] = seconds * 1e9 / std::max<Poco::UInt64>(queries, 1);
	}

	void throughputBlueTusk(benchmark::State& state, TargetSessionAttributes target, std::string options)
	{
		guarded(state, [&]
		{
			auto dataSource = BlueTuskDataSource::create(blueTusk(allNodes(), "SSL Mode=disable" + options));
			auto once = [&]
			{
				auto lease = dataSource->open(target);
				auto results = lease.executeSimple("SELECT 1");
				if (results.size() != 1 || results[0].rows.size() != 1) throw std::runtime_error("SELECT 1: unexpected result");
				lease.close();
			};
			auto work = [&](Clock::time_point end, std::atomic<Poco::UInt64>& queries)
			{
				return [&, end](int)
				{
					Poco::UInt64 count = 0;
					while (Clock::now() < end)
					{
						once();
						++count;
					}
					queries += count;
				};
			};
			warmUp(THREADS, once, 0.1);
			Poco::UInt64 total = 0;
			double seconds = 0;
			for (auto _: state)
			{
				std::atomic<Poco::UInt64> queries{0};
				double elapsed = runThreads(THREADS, work(sliceEnd(), queries));
				state.SetIterationTime(elapsed);
				total += queries;
				seconds += elapsed;
			}
			report(state, total, seconds);
		});
	}

	void throughputLibpq(benchmark::State& state, const std::string& target)
	{
		guarded(state, [&]
		{
			std::vector<LibpqConnection> connections;
			for (int i = 0; i < THREADS; ++i)
				connections.emplace_back(libpq(allNodes(), "sslmode=disable target_session_attrs=" + target));
			Poco::UInt64 total = 0;
			double seconds = 0;
			for (auto _: state)
			{
				std::atomic<Poco::UInt64> queries{0};
				auto end = sliceEnd();
				double elapsed = runThreads(THREADS, [&](int t)
				{
					Poco::UInt64 count = 0;
					while (Clock::now() < end)
					{
						PGresult* result = PQexec(connections[t].get(), "SELECT 1");
						checkResult(result, PGRES_TUPLES_OK);
						PQclear(result);
						++count;
					}
					queries += count;
				});
				state.SetIterationTime(elapsed);
				total += queries;
				seconds += elapsed;
			}
			report(state, total, seconds);
		});
	}

	void configure(benchmark::internal::Benchmark* b)
	{
		b->Iterations(2)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
	}
}


void registerThroughputBenchmarks()
{
	configure(benchmark::RegisterBenchmark("throughput_any/bluetusk", throughputBlueTusk, TargetSessionAttributes::Any, std::string()));
	configure(benchmark::RegisterBenchmark("throughput_any/libpq", throughputLibpq, std::string("any")));
	configure(benchmark::RegisterBenchmark("throughput_prefer_standby/bluetusk", throughputBlueTusk, TargetSessionAttributes::PreferStandby, std::string()));
	configure(benchmark::RegisterBenchmark("throughput_prefer_standby/libpq", throughputLibpq, std::string("prefer-standby")));
	configure(benchmark::RegisterBenchmark("throughput_any_noreset/bluetusk", throughputBlueTusk, TargetSessionAttributes::Any, std::string(";No Reset On Close=true")));
	configure(benchmark::RegisterBenchmark("throughput_prefer_standby_recheck/bluetusk", throughputBlueTusk, TargetSessionAttributes::PreferStandby,
		std::string(";Role Recheck Milliseconds=100")));
}

} } // namespace BlueTusk::Bench
