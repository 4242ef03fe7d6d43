//
// PgBouncerBenchmarks.cpp
//
// BlueTusk's pool side by side with what an application would otherwise deploy, PgBouncer
// (Debian's pgbouncer, transaction pooling) in front of the primary. scripts/bench starts PgBouncer as the
// postgres user in a temporary directory (pool_mode=transaction, default_pool_size=POOL_SIZE, SCRAM towards
// the client and the server) and passes its port in BLUETUSK_PGBOUNCER_PORT; without it these benchmarks
// are skipped with an error (the report shows "error").
//   pgbouncer_throughput/bluetusk  8 threads, one BlueTuskDataSource on the primary with Maximum Pool
//                                  Size=POOL_SIZE (default settings otherwise: the return resets the
//                                  session); each query is checkout, executeSimple("SELECT 1"), return
//   pgbouncer_throughput/bluetusk_noreset  the same with No Reset On Close=true (row 13c, informational:
//                                  PgBouncer's transaction pooling resets nothing between clients either)
//   pgbouncer_throughput/libpq     8 threads, each with its own PGconn to PgBouncer, PQexec("SELECT 1")
//                                  (transaction pooling: PgBouncer hands a server connection per query)
//     counters: queries_per_second and ns_per_query (wall time / queries, all threads together)
//   pgbouncer_connect/bluetusk     the checkout path of a new client: a checkout + return from the warm
//                                  data source above (one thread)
//   pgbouncer_connect/libpq        PQconnectdb to PgBouncer (SCRAM with PgBouncer, its server connection
//                                  already pooled) + PQfinish
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Environment.h"
#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const int THREADS = 8;
	const int POOL_SIZE = 8; // scripts/bench gives PgBouncer the same default_pool_size
	const double SLICE_SECONDS = 0.3;

	std::string bouncerConninfo()
	{
		std::string port = Poco::Environment::get("BLUETUSK_PGBOUNCER_PORT", "");
		if (port.empty()) throw std::runtime_error("no PgBouncer: BLUETUSK_PGBOUNCER_PORT is not set (scripts/bench starts one)");
		return libpq("127.0.0.1", "sslmode=disable", port);
	}

	BlueTuskDataSource::Ptr primaryPool(bool noReset = false)
	{
		return BlueTuskDataSource::create(blueTusk(primary(), "SSL Mode=disable;Maximum Pool Size=" + std::to_string(POOL_SIZE) +
			(noReset ? ";No Reset On Close=true" : "")));
	}

	void countQueries(benchmark::State& state, const std::function<void(int, Poco::UInt64&)>& loop)
		/// Runs loop(thread, count) on THREADS threads for SLICE_SECONDS per iteration; sets the counters.
	{
		Poco::UInt64 total = 0;
		double seconds = 0;
		for (auto _: state)
		{
			std::atomic<Poco::UInt64> queries{0};
			auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(SLICE_SECONDS));
			double elapsed = runThreads(THREADS, [&](int t)
			{
				Poco::UInt64 count = 0;
				while (Clock::now() < end) loop(t, count);
				queries += count;
			});
			state.SetIterationTime(elapsed);
			total += queries;
			seconds += elapsed;
		}
		state.counters["queries_per_second"] = total / seconds;
		state.counters["ns_per_query"] = seconds * 1e9 / std::max<Poco::UInt64>(total, 1);
	}

	void throughputBlueTusk(benchmark::State& state, bool noReset)
	{
		guarded(state, [&]
		{
			bouncerConninfo(); // both sides skip alike when there is no PgBouncer
			auto dataSource = primaryPool(noReset);
			countQueries(state, [&](int, Poco::UInt64& count)
			{
				auto lease = dataSource->open(TargetSessionAttributes::Any);
				if (lease.executeSimple("SELECT 1").size() != 1) throw std::runtime_error("SELECT 1: unexpected result");
				lease.close();
				++count;
			});
		});
	}

	void throughputLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			std::vector<LibpqConnection> connections;
			for (int i = 0; i < THREADS; ++i) connections.emplace_back(bouncerConninfo());
			countQueries(state, [&](int t, Poco::UInt64& count)
			{
				PGresult* result = PQexec(connections[t].get(), "SELECT 1");
				checkResult(result, PGRES_TUPLES_OK);
				PQclear(result);
				++count;
			});
		});
	}

	void connectBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			bouncerConninfo();
			auto dataSource = primaryPool();
			dataSource->open(TargetSessionAttributes::Any).close();
			for (auto _: state) dataSource->open(TargetSessionAttributes::Any).close();
		});
	}

	void connectLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			std::string conninfo = bouncerConninfo();
			LibpqConnection warm(conninfo);
			for (auto _: state) LibpqConnection connection(conninfo);
		});
	}
}


void registerPgBouncerBenchmarks()
{
	auto throughput = [](benchmark::internal::Benchmark* b)
	{
		b->Iterations(2)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
	};
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/bluetusk", throughputBlueTusk, false));
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/bluetusk_noreset", throughputBlueTusk, true));
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/libpq", throughputLibpq));
	for (const char* side: {"bluetusk", "libpq"})
	{
		bool ours = std::string(side) == "bluetusk";
		benchmark::RegisterBenchmark((std::string("pgbouncer_connect/") + side).c_str(), ours ? connectBlueTusk : connectLibpq)
			->Iterations(ours ? 2000 : 50)->Repetitions(repetitions(5))->Unit(benchmark::kMicrosecond)->UseRealTime();
	}
}

} } // namespace BlueTusk::Bench
