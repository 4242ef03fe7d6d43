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
//                                  session); each query is checkout, executeSimple("SELECT 1"), return;
//                                  an untimed 0.2 s warm-up opens the pool's sessions first (the libpq side
//                                  connects before timing too)
//   pgbouncer_throughput/bluetusk_noreset  the same with No Reset On Close=true (row 13c, informational:
//                                  PgBouncer's transaction pooling resets nothing between clients either)
//   pgbouncer_throughput/bluetusk_transaction  the BlueTusk side through the same PgBouncer instead of to the
//                                  primary: Maximum Pool Size=POOL_SIZE, Server Pooling=transaction (row 13d)
//   pgbouncer_throughput/bluetusk_transaction_noreset  the same with No Reset On Close=true (row 13e)
//   pgbouncer_throughput/libpq     8 threads, each with its own PGconn to PgBouncer, PQexec("SELECT 1")
//                                  (transaction pooling: PgBouncer hands a server connection per query)
//     counters: queries_per_second and ns_per_query (wall time / queries, all threads together)
//   pgbouncer_connect/bluetusk     the checkout path of a new client: a checkout + return from the warm
//                                  data source above (one thread)
//   pgbouncer_connect/libpq        PQconnectdb to PgBouncer (SCRAM with PgBouncer, its server connection
//                                  already pooled) + PQfinish
//   pgbouncer_param/bluetusk       one open session through PgBouncer with Server Pooling=transaction,
//                                  query("SELECT $1::int4 + 1", {41}): Parse/Bind/Describe/Execute/Sync of
//                                  the unnamed statement in one write (row 13f)
//   pgbouncer_param/libpq          PQexecParams of the same text with "41" through the same PgBouncer
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
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
	const char* PARAM_QUERY = "SELECT $1::int4 + 1";

	enum class Route
	{
		Primary,              /// BlueTusk's pool straight to the primary (rows 13a, 13c)
		ThroughPgBouncer      /// BlueTusk's pool to the primary's PgBouncer, Server Pooling=transaction (13d, 13e)
	};

	std::string bouncerPort()
	{
		std::string port = Poco::Environment::get("BLUETUSK_PGBOUNCER_PORT", "");
		if (port.empty()) throw std::runtime_error("no PgBouncer: BLUETUSK_PGBOUNCER_PORT is not set (scripts/bench starts one)");
		return port;
	}

	std::string bouncerConninfo()
	{
		return libpq(primary(), "sslmode=disable", bouncerPort());
	}

	std::string bouncerString(const std::string& extra)
		/// The primary's PgBouncer with Server Pooling=transaction.
	{
		const auto& c = Test::cluster();
		return "Host=" + primary() + ";Port=" + bouncerPort() + ";Username=" + c.user + ";Password=" + c.password +
			";Database=" + c.database + ";SSL Mode=disable;Server Pooling=transaction" + (extra.empty() ? "" : ";" + extra);
	}

	BlueTuskDataSource::Ptr primaryPool(bool noReset = false, Route route = Route::Primary)
	{
		const std::string extra = "Maximum Pool Size=" + std::to_string(POOL_SIZE) + (noReset ? ";No Reset On Close=true" : "");
		return BlueTuskDataSource::create(route == Route::Primary ? blueTusk(primary(), "SSL Mode=disable;" + extra) : bouncerString(extra));
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

	void throughputBlueTusk(benchmark::State& state, bool noReset, Route route)
	{
		guarded(state, [&]
		{
			bouncerConninfo(); // both sides skip alike when there is no PgBouncer
			auto dataSource = primaryPool(noReset, route);
			auto once = [&]
			{
				auto lease = dataSource->open(TargetSessionAttributes::Any);
				if (lease.executeSimple("SELECT 1").size() != 1) throw std::runtime_error("SELECT 1: unexpected result");
				lease.close();
			};
			warmUp(THREADS, once); // the pool's sessions open before timing, as libpq's connections do
			countQueries(state, [&](int, Poco::UInt64& count)
			{
				once();
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

	void paramBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(bouncerString(""));
			const Parameters parameters{Poco::Int32(41)};
			if (connection.query(PARAM_QUERY, parameters).row(0).get<Poco::Int32>(0) != 42) throw std::runtime_error("$1 + 1: unexpected result");
			for (auto _: state)
			{
				auto result = connection.query(PARAM_QUERY, parameters);
				benchmark::DoNotOptimize(result.row(0).get<Poco::Int32>(0));
			}
		});
	}

	void paramLibpq(benchmark::State& state)
	{
		guarded(state, [&] { execParamsLoop(state, bouncerConninfo(), PARAM_QUERY, "41"); });
	}
}


void registerPgBouncerBenchmarks()
{
	auto throughput = [](benchmark::internal::Benchmark* b)
	{
		b->Iterations(2)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseManualTime();
	};
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/bluetusk", throughputBlueTusk, false, Route::Primary));
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/bluetusk_noreset", throughputBlueTusk, true, Route::Primary));
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/bluetusk_transaction", throughputBlueTusk, false, Route::ThroughPgBouncer));
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/bluetusk_transaction_noreset", throughputBlueTusk, true,
		Route::ThroughPgBouncer));
	throughput(benchmark::RegisterBenchmark("pgbouncer_throughput/libpq", throughputLibpq));
	for (const char* side: {"bluetusk", "libpq"})
	{
		bool ours = std::string(side) == "bluetusk";
		benchmark::RegisterBenchmark((std::string("pgbouncer_connect/") + side).c_str(), ours ? connectBlueTusk : connectLibpq)
			->Iterations(ours ? 2000 : 50)->Repetitions(repetitions(5))->Unit(benchmark::kMicrosecond)->UseRealTime();
	}
	for (const char* side: {"bluetusk", "libpq"})
	{
		benchmark::RegisterBenchmark((std::string("pgbouncer_param/") + side).c_str(), std::string(side) == "bluetusk" ? paramBlueTusk : paramLibpq)
			->MinTime(0.2)->Repetitions(repetitions(9))->Unit(benchmark::kMicrosecond)->UseRealTime();
	}
}

} } // namespace BlueTusk::Bench
