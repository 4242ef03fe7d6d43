//
// CurveBenchmarks.cpp
//
// how cost grows. Each curve is a series of benchmarks, one per point, named
// "curve_<curve>_<x>/<side>"; testsuite/benchmark/curves.py turns them into data files and PNG plots,
// report.py checks the goal rows taken from them.
//   curve_threads_<N>/bluetusk    N = 1, 2, 4, 8, 12, 16, 32, 64 threads (12: as many as sessions, the last
//                                 point where no checkout waits) on one BlueTuskDataSource over the three
//                                 nodes with Maximum Pool Size=4 (per endpoint; default settings otherwise,
//                                 so the return resets the session), target any: checkout, SELECT 1,
//                                 return, for a fixed time slice (5 x 0.3 s: a single burst of the other load
//                                 on the shared cores moves one repetition by 2 x), after an untimed 0.2 s
//                                 warm-up with the same threads that opens the point's sessions. Counters: queries_per_second,
//                                 ns_per_query, wait_p50_ns / wait_p99_ns (open() until the lease is in
//                                 hand), thread_share (fewest / most queries of one thread), jain (Jain's
//                                 fairness index of the per-thread query counts, (sum x)^2 / (n sum x^2):
//                                 1.0 is perfectly even, 1/n one thread got everything; the fairness figure
//                                 of a FIFO pool), fairness (max wait / median wait), sessions_open (the
//                                 pool's sessions: at most 12) and sessions_created (opened while timing: 0,
//                                 no churn past saturation). Every point and repetition uses the same data
//                                 source (threadsDataSource()): no backend starts or exits inside a slice.
//   curve_threads_<N>/bluetusk_noreset  N = 8, 12, 16, 64: as curve_threads_<N>/bluetusk with No Reset On
//                                 Close (its own data source): the same work per query as the anchors below.
//   curve_threads_<N>/libpq_fifo, N = 8, 12, 16, 64: the same loop (checkout, PQexec("SELECT 1"), return;
//   curve_threads_<N>/libpq_barging  no reset) on a minimal pool of 12 libpq connections, 4 to each node
//                                 (LibpqPools.h): first come, first served, as BlueTusk's pool, or barging.
//                                 The anchors of row 14a: what the waiting order itself costs past the 12
//                                 sessions on the benchmark machine (rows 14d, 14e: 64 threads vs 8 of each;
//                                 14f: BlueTusk's pool against the FIFO one, 64 threads, no reset on either).
//   curve_endpoints_<N>/bluetusk  N = 1, 3, 10, 30 endpoints in the host list, idle checkout + return on one
//                                 thread (as row 6a: No Reset On Close=true, the session is idle, no I/O).
//                                 The first three endpoints are the cluster's nodes, the others 127.0.1.x on
//                                 the cluster port, where nothing listens: the checkout finds its idle session
//                                 on the first endpoint and must not pay for the others (goal: 30 <= 2 x 3).
//   curve_addresses_<N>/bluetusk  N = 1, 2, 4, 8 addresses for one host name (a StaticResolver, the Transport
//                                 resolver abstraction): the first N - 1 refuse (127.0.1.x, nothing listens),
//                                 the last is the primary. A new connection (open + close), Timeout=2.
//   curve_addresses_<N>/libpq     the same addresses as a host list of N entries (libpq tries a name's
//                                 addresses and a host list's entries with the same loop).
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include "LibpqPools.h"
#include <algorithm>
#include <memory>
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const double SLICE_SECONDS = 0.3;
	const char* MULTI_ADDRESS_NAME = "bench-multi-address";

	std::string refusing(int i)
		/// A loopback address where nothing listens on the cluster port.
	{
		return "127.0.1." + std::to_string(i + 1);
	}

	BlueTuskDataSource::Ptr threadsSource;
	BlueTuskDataSource::Ptr threadsSourceNoReset;

	BlueTuskDataSource::Ptr threadsDataSourceNoReset()
		/// As threadsDataSource(), with No Reset On Close: the same work per query as the anchor pools'.
	{
		if (!threadsSourceNoReset) threadsSourceNoReset = BlueTuskDataSource::create(blueTusk(allNodes(), "SSL Mode=disable;Maximum Pool Size=4;No Reset On Close=true"));
		return threadsSourceNoReset;
	}

	BlueTuskDataSource::Ptr threadsDataSource()
		/// The data source of every curve_threads point and repetition, as an application keeps one while
		/// its load varies: a point finds the sessions the earlier ones opened instead of paying backend
		/// starts, and the exits of the sessions a dropped data source closed, inside its slices (15-20 ms
		/// of server CPU each on the benchmark machine of 2026-12: up to a third of a slice's two cores).
		/// Released by releaseCurveBenchmarks().
	{
		if (!threadsSource) threadsSource = BlueTuskDataSource::create(blueTusk(allNodes(), "SSL Mode=disable;Maximum Pool Size=4"));
		return threadsSource;
	}

	void curvePoint(benchmark::State& state, int threads, const std::function<void(Clock::time_point&)>& cycle)
		/// Times a thread-curve point whose pool is warm: threads run cycle() (checkout, setting its argument to
		/// when the checkout was in hand; SELECT 1; return) until each slice ends, and the counters common to
		/// both sides are set.
	{
		std::vector<std::vector<double>> waits(threads);
		std::vector<Poco::UInt64> counts(threads, 0);
		double seconds = 0;
		for (auto _: state)
		{
			auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(SLICE_SECONDS));
			double elapsed = runThreads(threads, [&](int t)
			{
				for (;;)
				{
					auto start = Clock::now();
					if (start >= end) break;
					Clock::time_point granted;
					cycle(granted);
					waits[t].push_back(std::chrono::duration<double, std::nano>(granted - start).count());
					++counts[t];
				}
			});
			state.SetIterationTime(elapsed);
			seconds += elapsed;
		}
		std::vector<double> all;
		for (const auto& mine: waits) all.insert(all.end(), mine.begin(), mine.end());
		Poco::UInt64 total = 0;
		double squares = 0;
		for (auto count: counts)
		{
			total += count;
			squares += double(count) * double(count);
		}
		double median = percentile(all, 0.5);
		auto most = *std::max_element(counts.begin(), counts.end());
		state.counters["queries_per_second"] = total / seconds;
		state.counters["ns_per_query"] = seconds * 1e9 / std::max<Poco::UInt64>(total, 1);
		state.counters["wait_p50_ns"] = median;
		state.counters["wait_p99_ns"] = percentile(all, 0.99);
		state.counters["fairness"] = median > 0 ? percentile(all, 1.0) / median : 0;
		state.counters["jain"] = squares > 0 ? double(total) * double(total) / (threads * squares) : 0;
		state.counters["thread_share"] = most > 0 ? double(*std::min_element(counts.begin(), counts.end())) / double(most) : 0;
	}

	void threadsPoint(benchmark::State& state, int threads, bool reset)
	{
		guarded(state, [&]
		{
			auto dataSource = reset ? threadsDataSource() : threadsDataSourceNoReset();
			// Untimed: the point's sessions (up to 12) open before the slice, so that the slice measures the
			// pool past saturation, not the backend starts (15-20 ms each here) and the waits behind them.
			warmUp(threads, [&]
			{
				auto lease = dataSource->open(TargetSessionAttributes::Any);
				lease.executeSimple("SELECT 1");
				lease.close();
			});
			const Poco::UInt64 createdBefore = dataSource->getPoolStatistics().created;
			curvePoint(state, threads, [&](Clock::time_point& granted)
			{
				auto lease = dataSource->open(TargetSessionAttributes::Any);
				granted = Clock::now();
				if (lease.executeSimple("SELECT 1").size() != 1) throw std::runtime_error("SELECT 1: unexpected result");
				lease.close();
			});
			const PoolStatistics statistics = dataSource->getPoolStatistics();
			state.counters["sessions_open"] = double(statistics.total);
			state.counters["sessions_created"] = double(statistics.created - createdBefore);   // while timing
		});
	}

	std::unique_ptr<LibpqPool> anchorPools[2];

	LibpqPool& anchorPool(LibpqPool::Order order)
		/// The anchor pool of that order (LibpqPools.h), kept for every point as threadsDataSource() is: 4
		/// connections to each node, opened at its first use (before timing). Released by
		/// releaseCurveBenchmarks().
	{
		auto& pool = anchorPools[order == LibpqPool::Order::FIFO ? 0 : 1];
		if (!pool)
		{
			std::vector<std::string> conninfos;
			for (const auto& host: Test::cluster().hosts)
				for (int i = 0; i < 4; ++i) conninfos.push_back(libpq(host, "sslmode=disable"));
			pool.reset(new LibpqPool(conninfos, order));
		}
		return *pool;
	}

	void anchorPoint(benchmark::State& state, int threads, LibpqPool::Order order)
	{
		guarded(state, [&]
		{
			LibpqPool& pool = anchorPool(order);
			auto cycle = [&](Clock::time_point& granted)
			{
				PGconn* connection = pool.checkout();
				granted = Clock::now();
				PGresult* result = PQexec(connection, "SELECT 1");
				const bool one = PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1;
				PQclear(result);
				pool.checkin(connection);
				if (!one) throw std::runtime_error("SELECT 1 through the anchor pool: unexpected result");
			};
			warmUp(threads, [&] { Clock::time_point granted; cycle(granted); });   // as threadsPoint() does
			curvePoint(state, threads, cycle);
		});
	}

	std::string hostList(int endpoints)
	{
		const auto& hosts = Test::cluster().hosts;
		std::string list;
		for (int i = 0; i < endpoints; ++i)
		{
			if (i) list += ",";
			list += i < int(hosts.size()) ? hosts[i] : refusing(i);
		}
		return list;
	}

	void endpointsPoint(benchmark::State& state, int endpoints)
	{
		guarded(state, [&]
		{
			auto dataSource = BlueTuskDataSource::create(blueTusk(hostList(endpoints), "SSL Mode=disable;No Reset On Close=true"));
			dataSource->open(TargetSessionAttributes::Any).close();
			auto created = dataSource->getPoolStatistics().created;
			for (auto _: state)
			{
				auto lease = dataSource->open(TargetSessionAttributes::Any);
				lease.close();
			}
			if (dataSource->getPoolStatistics().created != created) throw std::runtime_error("the pool opened new sessions while timing");
		});
	}

	std::vector<std::string> addresses(int count)
	{
		std::vector<std::string> list;
		for (int i = 0; i + 1 < count; ++i) list.push_back(refusing(i));
		list.push_back(primary());
		return list;
	}

	void addressesBlueTusk(benchmark::State& state, int count)
	{
		guarded(state, [&]
		{
			auto resolver = std::make_shared<StaticResolver>();
			resolver->add(MULTI_ADDRESS_NAME, addresses(count));
			RoutingContext connector(std::make_shared<ProtocolSessionFactory>(resolver));
			std::string text = blueTusk(MULTI_ADDRESS_NAME, "SSL Mode=disable;Timeout=2");
			for (auto _: state) BlueTuskConnection::open(text, connector).close();
		});
	}

	void addressesLibpq(benchmark::State& state, int count)
	{
		guarded(state, [&]
		{
			std::string list;
			for (const auto& address: addresses(count)) list += (list.empty() ? "" : ",") + address;
			std::string conninfo = libpq(list, "sslmode=disable connect_timeout=2");
			for (auto _: state) LibpqConnection connection(conninfo);
		});
	}
}


void releaseCurveBenchmarks()
{
	threadsSource.reset();
	threadsSourceNoReset.reset();
	for (auto& pool: anchorPools) pool.reset();
}


void registerCurveBenchmarks()
{
	for (int threads: {1, 2, 4, 8, 12, 16, 32, 64})
		benchmark::RegisterBenchmark(("curve_threads_" + std::to_string(threads) + "/bluetusk").c_str(), threadsPoint, threads, true)
			->Iterations(1)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
	for (int threads: {8, 12, 16, 64})
	{
		benchmark::RegisterBenchmark(("curve_threads_" + std::to_string(threads) + "/bluetusk_noreset").c_str(), threadsPoint, threads, false)
			->Iterations(1)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
		benchmark::RegisterBenchmark(("curve_threads_" + std::to_string(threads) + "/libpq_fifo").c_str(), anchorPoint, threads, LibpqPool::Order::FIFO)
			->Iterations(1)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
		benchmark::RegisterBenchmark(("curve_threads_" + std::to_string(threads) + "/libpq_barging").c_str(), anchorPoint, threads, LibpqPool::Order::BARGING)
			->Iterations(1)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
	}
	for (int endpoints: {1, 3, 10, 30})
		benchmark::RegisterBenchmark(("curve_endpoints_" + std::to_string(endpoints) + "/bluetusk").c_str(), endpointsPoint, endpoints)
			->MinTime(0.2)->Repetitions(repetitions(5))->Unit(benchmark::kNanosecond)->UseRealTime();
	for (int count: {1, 2, 4, 8})
	{
		benchmark::RegisterBenchmark(("curve_addresses_" + std::to_string(count) + "/bluetusk").c_str(), addressesBlueTusk, count)
			->Iterations(10)->Repetitions(repetitions(3))->Unit(benchmark::kMillisecond)->UseRealTime();
		benchmark::RegisterBenchmark(("curve_addresses_" + std::to_string(count) + "/libpq").c_str(), addressesLibpq, count)
			->Iterations(10)->Repetitions(repetitions(3))->Unit(benchmark::kMillisecond)->UseRealTime();
	}
}

} } // namespace BlueTusk::Bench
