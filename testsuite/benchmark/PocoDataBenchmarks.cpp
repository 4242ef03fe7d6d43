//
// PocoDataBenchmarks.cpp
//
// The same Poco::Data code against Poco's own PostgreSQL connector ("postgresql", libpq) and "bluetusk",
// on the primary (no TLS), in one run:
//   10a data_select_one: SELECT ... WHERE id = $1 with use(id), into(x), repeated
//   10b data_recordset:  a 10,000-row RecordSet (5 columns), every value read
//   10c data_insert_vector: 10,000 rows INSERTed with use(vector)
//   10d data_insert_bulk: 10,000 rows with use(vector, bulk) (the anchor refuses bulk: its baseline is its
//                         own use(vector) row-by-row insert)
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/Data/Connector.h"
#include "Poco/Data/BulkBinding.h"
#include "Poco/Data/RecordSet.h"
#include "Poco/Data/Session.h"
#include "Poco/Data/Statement.h"
#include "TestEnvironment.h"
#include <stdexcept>

#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL
#include "Poco/Data/PostgreSQL/Connector.h"
#endif

using namespace Poco::Data::Keywords;

namespace BlueTusk {
namespace Bench {

namespace
{
	const int ROWS = 10000;

	std::string connectionString(const std::string& connector)
	{
		if (connector == "bluetusk") return blueTusk(primary(), "SSL Mode=disable");
		const Test::ClusterInfo& c = Test::cluster();
		return "host=" + primary() + " port=" + std::to_string(c.port) + " user=" + c.user + " password=" + c.password +
			" dbname=" + c.database + " sslmode=disable";
	}

	Poco::Data::Session open(const std::string& connector)
	{
		static bool registered = false;
		if (!registered)
		{
			BlueTusk::Data::Connector::registerConnector();
#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL
			Poco::Data::PostgreSQL::Connector::registerConnector();
#endif
			registered = true;
		}
#ifndef BLUETUSK_HAVE_POCO_POSTGRESQL
		if (connector != "bluetusk") throw std::runtime_error("Poco's PostgreSQL connector was not found at configure time");
#endif
		return Poco::Data::Session(connector, connectionString(connector));
	}

	void prepareTable(Poco::Data::Session& session, const std::string& table)
	{
		session << "DROP TABLE IF EXISTS " + table, now;
		session << "CREATE UNLOGGED TABLE " + table + " (id int, label text, amount float8)", now;
	}

	void selectOne(benchmark::State& state, const std::string& connector)
	{
		guarded(state, [&]
		{
			Poco::Data::Session session = open(connector);
			int id = 41;
			int value = 0;
			for (auto _: state)
			{
				session << "SELECT $1::int4 + 1", use(id), into(value), now;
				if (value != 42) throw std::runtime_error("unexpected value");
			}
		});
	}

	void recordSet(benchmark::State& state, const std::string& connector)
	{
		guarded(state, [&]
		{
			Poco::Data::Session session = open(connector);
			for (auto _: state)
			{
				Poco::Data::Statement select = (session << "SELECT i AS a, i::int8 * 7 AS b, i * 1.5::float8 AS c, 'item-' || i AS d, "
					"i % 2 = 0 AS e FROM generate_series(1, 10000) AS i", now);
				Poco::Data::RecordSet records(select);
				if (records.rowCount() != ROWS) throw std::runtime_error("unexpected row count");
				long long sum = 0;
				for (std::size_t r = 0; r < ROWS; ++r)
					sum += records.value<int>(0, r) + records.value<Poco::Int64>(1, r) + static_cast<long long>(records.value<double>(2, r));
				benchmark::DoNotOptimize(sum);
			}
			state.SetItemsProcessed(state.iterations() * ROWS);
		});
	}

	void insert(benchmark::State& state, const std::string& connector, bool useBulk)
	{
		guarded(state, [&]
		{
			Poco::Data::Session session = open(connector);
			const std::string table = "bench_insert_" + std::string(connector == "bluetusk" ? "bt" : "pg");
			std::vector<int> ids(ROWS);
			std::vector<std::string> labels(ROWS);
			std::vector<double> amounts(ROWS);
			for (int i = 0; i < ROWS; ++i)
			{
				ids[i] = i;
				labels[i] = "label-" + std::to_string(i);
				amounts[i] = i * 0.5;
			}
			for (auto _: state)
			{
				state.PauseTiming();
				prepareTable(session, table);
				state.ResumeTiming();
				if (useBulk) session << "INSERT INTO " + table + " VALUES ($1, $2, $3)", use(ids, bulk), use(labels, bulk), use(amounts, bulk), now;
				else session << "INSERT INTO " + table + " VALUES ($1, $2, $3)", use(ids), use(labels), use(amounts), now;
			}
			Poco::Int64 count = 0;
			session << "SELECT count(*) FROM " + table, into(count), now;
			if (count != ROWS) throw std::runtime_error("unexpected row count after the insert");
			state.SetItemsProcessed(state.iterations() * ROWS);
		});
	}

	void configureRoundTrip(benchmark::internal::Benchmark* b)
	{
		b->MinTime(0.2)->Repetitions(repetitions(7))->Unit(benchmark::kMicrosecond)->UseRealTime();
	}

	void configureRows(benchmark::internal::Benchmark* b)
	{
		b->MinTime(0.3)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseRealTime();
	}

	void configureInsert(benchmark::internal::Benchmark* b)
	{
		b->Iterations(3)->Repetitions(repetitions(3))->Unit(benchmark::kMillisecond)->UseRealTime();
	}
}


void registerPocoDataBenchmarks()
{
	configureRoundTrip(benchmark::RegisterBenchmark("data_select_one/bluetusk", [](benchmark::State& s) { selectOne(s, "bluetusk"); }));
	configureRoundTrip(benchmark::RegisterBenchmark("data_select_one/postgresql", [](benchmark::State& s) { selectOne(s, "postgresql"); }));
	configureRows(benchmark::RegisterBenchmark("data_recordset/bluetusk", [](benchmark::State& s) { recordSet(s, "bluetusk"); }));
	configureRows(benchmark::RegisterBenchmark("data_recordset/postgresql", [](benchmark::State& s) { recordSet(s, "postgresql"); }));
	configureInsert(benchmark::RegisterBenchmark("data_insert_vector/bluetusk", [](benchmark::State& s) { insert(s, "bluetusk", false); }));
	configureInsert(benchmark::RegisterBenchmark("data_insert_vector/postgresql", [](benchmark::State& s) { insert(s, "postgresql", false); }));
	configureInsert(benchmark::RegisterBenchmark("data_insert_bulk/bluetusk", [](benchmark::State& s) { insert(s, "bluetusk", true); }));
}

} } // namespace BlueTusk::Bench
