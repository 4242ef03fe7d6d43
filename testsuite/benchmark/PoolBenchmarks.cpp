//
// PoolBenchmarks.cpp
//
// pool checkout + return with target any while an idle session is available, so
// no I/O happens (No Reset On Close=true: the return skips DISCARD ALL; the session is idle, so no
// ROLLBACK either). libpq has no pool: there is no counterpart, the target is absolute (median <= 200 ns).
//   pool_checkout/bluetusk:   one thread, one idle session.
//   pool_checkout/bluetusk_observed: the same with the Prometheus exporter's observer installed (goal:
//     at most 10 % slower than pool_checkout/bluetusk; row 6c).
//   pool_contention/bluetusk: 8 threads share 4 sessions (Maximum Pool Size=4) for a fixed time slice;
//     counters: checkouts per second, the wait of each checkout (from open() until the lease is in hand:
//     median, p99, max), fairness = max wait / median wait, and thread_share = the fewest checkouts one
//     thread got / the most one thread got (1.0: perfectly even).
// Both verify afterwards that the pool opened no new session while timing (else the idle path was missed).
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskDataSource.h"
#ifdef BLUETUSK_HAVE_METRICS
#include "BlueTusk/Metrics/PrometheusExporter.h"
#endif
#include <algorithm>
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const int THREADS = 8;
	const int SESSIONS = 4;
	const double SLICE_SECONDS = 0.25;

	BlueTuskDataSource::Ptr createPool()
	{
		return BlueTuskDataSource::create(blueTusk(primary(),
			"SSL Mode=disable;No Reset On Close=true;Maximum Pool Size=" + std::to_string(SESSIONS)));
	}

	void expectNoNewSessions(const BlueTuskDataSource& dataSource, Poco::UInt64 before)
	{
		auto after = dataSource.getPoolStatistics().created;
		if (after != before)
			throw std::runtime_error("the pool opened " + std::to_string(after - before) + " new sessions while timing");
	}

	void checkoutSingle(benchmark::State& state, bool observed)
	{
		guarded(state, [&]
		{
			auto dataSource = createPool();
#ifdef BLUETUSK_HAVE_METRICS
			Metrics::PrometheusExporter exporter;
			if (observed) exporter.attach(dataSource);
#else
			if (observed) throw std::runtime_error("built without BlueTusk::Metrics (prometheus-cpp-dev)");
#endif
			dataSource->open(TargetSessionAttributes::Any).close();
			auto created = dataSource->getPoolStatistics().created;
			for (auto _: state)
			{
				auto lease = dataSource->open(TargetSessionAttributes::Any);
				lease.close();
			}
			expectNoNewSessions(*dataSource, created);
		});
	}

	void checkoutContention(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto dataSource = createPool();
			{
				std::vector<BlueTuskConnection> leases;
				for (int i = 0; i < SESSIONS; ++i) leases.push_back(dataSource->open(TargetSessionAttributes::Any));
			}
			auto created = dataSource->getPoolStatistics().created;

			std::vector<std::vector<double>> waits(THREADS);
			std::vector<Poco::UInt64> checkouts(THREADS, 0);
			double totalSeconds = 0;
			for (auto _: state)
			{
				auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(SLICE_SECONDS));
				double elapsed = runThreads(THREADS, [&](int t)
				{
					auto& mine = waits[t];
					Poco::UInt64 count = 0;
					for (;;)
					{
						auto start = Clock::now();
						if (start >= end) break;
						auto lease = dataSource->open(TargetSessionAttributes::Any);
						auto granted = Clock::now();
						lease.close();
						mine.push_back(std::chrono::duration<double, std::nano>(granted - start).count());
						++count;
					}
					checkouts[t] += count;
				});
				state.SetIterationTime(elapsed);
				totalSeconds += elapsed;
			}
			expectNoNewSessions(*dataSource, created);

			std::vector<double> all;
			for (const auto& mine: waits) all.insert(all.end(), mine.begin(), mine.end());
			Poco::UInt64 total = 0;
			for (auto count: checkouts) total += count;
			double median = percentile(all, 0.5);
			double maximum = percentile(all, 1.0);
			auto fewest = *std::min_element(checkouts.begin(), checkouts.end());
			auto most = *std::max_element(checkouts.begin(), checkouts.end());
			state.counters["checkouts_per_second"] = total / totalSeconds;
			state.counters["ns_per_checkout"] = totalSeconds * 1e9 / std::max<Poco::UInt64>(total, 1);
			state.counters["wait_median_ns"] = median;
			state.counters["wait_p99_ns"] = percentile(all, 0.99);
			state.counters["wait_max_ns"] = maximum;
			state.counters["fairness"] = median > 0 ? maximum / median : 0;
			state.counters["thread_share"] = most > 0 ? double(fewest) / double(most) : 0;
		});
	}
}


void registerPoolBenchmarks()
{
	benchmark::RegisterBenchmark("pool_checkout/bluetusk", checkoutSingle, false)
		->MinTime(0.3)->Repetitions(repetitions(5))->Unit(benchmark::kNanosecond)->UseRealTime();
	benchmark::RegisterBenchmark("pool_checkout/bluetusk_observed", checkoutSingle, true)
		->MinTime(0.3)->Repetitions(repetitions(5))->Unit(benchmark::kNanosecond)->UseRealTime();
	benchmark::RegisterBenchmark("pool_contention/bluetusk", checkoutContention)
		->Iterations(2)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
}

} } // namespace BlueTusk::Bench
