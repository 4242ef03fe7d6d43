//
// FreshnessBenchmarks.cpp
//
// Replica freshness (doc/freshness.md), over the three nodes (node1 primary), no TLS, pooled:
//   12a ryw_loop:        one iteration of write-then-read: INSERT through read-write (synchronous commit), then
//                        read the row back through prefer-standby. bluetusk: Read Your Writes=true (the lease
//                        leaves its token at return, the read checkout waits on the standby it holds); naive:
//                        the application does it by hand, as users do without it: pg_current_wal_insert_lsn()
//                        after the write, then SELECT pg_last_wal_replay_lsn() >= token on the standby every
//                        0.2 ms until true. Both read their row every time (checked).
//   12b token_checkout:  a prefer-standby checkout + return with a token the standby has already replayed
//                        (the role refresh also brings the replay position: no extra round trip) against a
//                        plain prefer-standby checkout (the role refresh alone); the time ratio is reported (on a
//                        shared 2-core machine it moved between 0.8 and 2.0 from run to run, so 12d is the goal).
//   12d                  the same loops' server_statements_per_checkout, counted on node2 from
//                        pg_stat_database: 2 (deferred DISCARD ALL + role refresh), goal <= 2.05 (an extra
//                        round trip would be 3).
//   12c write_token:     the cost of Read Your Writes at a write lease's return (one round trip for
//                        pg_current_wal_insert_lsn()): read-write checkout + INSERT + return, on against off.
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Lsn.h"
#include <stdexcept>
#include <thread>

namespace BlueTusk {
namespace Bench {

namespace
{
	const char* INSERT = "SET synchronous_commit = on; INSERT INTO bench_freshness (note) VALUES ('x') RETURNING id";

	BlueTuskDataSource::Ptr dataSource(const std::string& extra)
	{
		auto source = BlueTuskDataSource::create(blueTusk(allNodes(), "SSL Mode=disable" + (extra.empty() ? "" : ";" + extra)));
		BlueTuskConnection setup = source->open(TargetSessionAttributes::ReadWrite);
		setup.executeSimple("CREATE TABLE IF NOT EXISTS bench_freshness (id bigserial PRIMARY KEY, note text)");
		return source;
	}

	std::string writeOne(BlueTuskDataSource& source, Lsn* token)
	{
		BlueTuskConnection write = source.open(TargetSessionAttributes::ReadWrite);
		std::string id = write.executeSimple(INSERT).at(1).rows.at(0).at(0).value();
		if (token) *token = write.walPosition();
		return id;
	}

	void readBack(BlueTuskConnection& read, const std::string& id)
	{
		if (read.executeSimple("SELECT count(*) FROM bench_freshness WHERE id = " + id).at(0).rows.at(0).at(0).value() != "1")
			throw std::runtime_error("the read missed its write (id " + id + ")");
	}

	// 12a

	void rywLoopBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto source = dataSource("Read Your Writes=true");
			for (auto _: state)
			{
				const std::string id = writeOne(*source, nullptr);
				BlueTuskConnection read = source->open(TargetSessionAttributes::PreferStandby);
				readBack(read, id);
			}
		});
	}

	void rywLoopNaive(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto source = dataSource("");
			for (auto _: state)
			{
				Lsn token;
				const std::string id = writeOne(*source, &token);
				BlueTuskConnection read = source->open(TargetSessionAttributes::PreferStandby);
				if (read.role() == ServerRole::Standby)
				{
					const std::string poll = "SELECT pg_last_wal_replay_lsn() >= '" + token.toString() + "'::pg_lsn";
					for (int i = 0; read.executeSimple(poll).at(0).rows.at(0).at(0).value() != "t"; ++i)
					{
						if (i > 50000) throw std::runtime_error("the standby did not replay the write in 10 s");
						std::this_thread::sleep_for(std::chrono::microseconds(200));
					}
				}
				readBack(read, id);
			}
		});
	}

	// 12b, 12d

	double standbyStatements()
		/// Transactions node2 has counted in this database (pg_stat_database): every simple-query message
		/// is one, so the difference over a loop counts the statements the loop sent there.
	{
		auto connection = BlueTuskConnection::open(blueTusk(Test::cluster().hosts.at(1), "SSL Mode=disable"));
		return std::stod(connection.executeSimple("SELECT xact_commit + xact_rollback FROM pg_stat_database "
			"WHERE datname = current_database()").at(0).rows.at(0).at(0).value());
	}

	void checkoutLoop(benchmark::State& state, bool withToken)
		/// Counter server_statements_per_checkout: the statements node2 ran per checkout + return (the pool's
		/// deferred DISCARD ALL and the role refresh: 2; an extra round trip would make it 3). Backends send
		/// their statistics when they end, so the data source is closed before the count is read.
	{
		guarded(state, [&]
		{
			const Lsn reached(1);   // 0/1: every standby has replayed that far
			const double before = standbyStatements();
			{
				auto source = dataSource("");
				BlueTuskConnection warm = withToken ? source->open(TargetSessionAttributes::PreferStandby, reached) :
					source->open(TargetSessionAttributes::PreferStandby);
				if (warm.role() != ServerRole::Standby || warm.connectedEndpoint().host() != Test::cluster().hosts.at(1))
					throw std::runtime_error("prefer-standby did not get node2");
				warm.close();
				const Poco::UInt64 created = source->getPoolStatistics().created;
				if (withToken)
				{
					for (auto _: state) source->open(TargetSessionAttributes::PreferStandby, reached).close();
				}
				else
				{
					for (auto _: state) source->open(TargetSessionAttributes::PreferStandby).close();
				}
				if (source->getPoolStatistics().created != created) throw std::runtime_error("new sessions were opened while timing");
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(300));   // the closed backends report
			const double statements = standbyStatements() - before;
			state.counters["server_statements_per_checkout"] = statements / static_cast<double>(state.iterations());
		});
	}

	void tokenCheckout(benchmark::State& state)
	{
		checkoutLoop(state, true);
	}

	void plainCheckout(benchmark::State& state)
	{
		checkoutLoop(state, false);
	}

	// 12c

	void writeLease(benchmark::State& state, bool readYourWrites)
	{
		guarded(state, [&]
		{
			auto source = dataSource(readYourWrites ? "Read Your Writes=true" : "");
			for (auto _: state) writeOne(*source, nullptr);
			if (readYourWrites != source->walPosition().isValid()) throw std::runtime_error("the token was not (or wrongly) remembered");
		});
	}

	void writeTokenOn(benchmark::State& state)
	{
		writeLease(state, true);
	}

	void writeTokenOff(benchmark::State& state)
	{
		writeLease(state, false);
	}

	void configure(benchmark::internal::Benchmark* b)
	{
		b->MinTime(0.3)->Repetitions(repetitions(7))->Unit(benchmark::kMicrosecond)->UseRealTime();
	}
}


void registerFreshnessBenchmarks()
{
	configure(benchmark::RegisterBenchmark("ryw_loop/bluetusk", rywLoopBlueTusk));
	configure(benchmark::RegisterBenchmark("ryw_loop/naive", rywLoopNaive));
	configure(benchmark::RegisterBenchmark("token_checkout/bluetusk", tokenCheckout));
	configure(benchmark::RegisterBenchmark("token_checkout/plain", plainCheckout));
	configure(benchmark::RegisterBenchmark("write_token/bluetusk", writeTokenOn));
	configure(benchmark::RegisterBenchmark("write_token/off", writeTokenOff));
}

} } // namespace BlueTusk::Bench
