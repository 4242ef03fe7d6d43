//
// QueryBenchmarks.cpp
//
// Rows 3 to 5 of doc/performance.md, on one open session to the primary (no TLS, so the round trips and the
// parsing are what is measured):
//   3 select1_simple:  "SELECT 1" with the simple query protocol       vs PQexec
//   4 extended_param:  "SELECT $1::int4 + 1" with one text parameter    vs PQexecParams
//   5 rows_10k:        10,000 rows x 5 text columns (generate_series)   vs PQexec
// Both sides read every value they receive (the length of each field), so neither skips work the other does.
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const char* SELECT_1 = "SELECT 1";
	const char* EXTENDED = "SELECT $1::int4 + 1";
	const char* ROWS_10K =
		"SELECT i::text, 'bravo-' || i, 'charlie-' || i, 'delta-' || i, 'echo-' || i FROM generate_series(1, 10000) AS i";
	const int ROWS = 10000;
	const int COLUMNS = 5;

	std::string plainString()
	{
		return blueTusk(primary(), "SSL Mode=disable");
	}

	std::string plainConninfo()
	{
		return libpq(primary(), "sslmode=disable");
	}

	std::size_t fieldBytes(const QueryResult& result)
	{
		std::size_t bytes = 0;
		for (const auto& row: result.rows)
			for (const auto& field: row)
				if (field) bytes += field->size();
		return bytes;
	}

	std::size_t fieldBytes(const PGresult* result)
	{
		std::size_t bytes = 0;
		int rows = PQntuples(result);
		int columns = PQnfields(result);
		for (int r = 0; r < rows; ++r)
			for (int c = 0; c < columns; ++c)
				if (!PQgetisnull(result, r, c)) bytes += PQgetlength(result, r, c);
		return bytes;
	}

	void expect(bool condition, const std::string& what)
	{
		if (!condition) throw std::runtime_error("unexpected result: " + what);
	}

	// 3

	void select1BlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			auto check = connection.executeSimple(SELECT_1);
			expect(check.size() == 1 && check[0].rows.size() == 1 && check[0].rows[0][0] == std::string("1"), "SELECT 1");
			for (auto _: state)
			{
				auto results = connection.executeSimple(SELECT_1);
				benchmark::DoNotOptimize(fieldBytes(results.front()));
			}
		});
	}

	void select1Libpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			for (auto _: state)
			{
				PGresult* result = PQexec(connection.get(), SELECT_1);
				checkResult(result, PGRES_TUPLES_OK);
				benchmark::DoNotOptimize(fieldBytes(result));
				PQclear(result);
			}
		});
	}

	// 4

	void extendedBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			const std::vector<FieldValue> parameters{std::string("41")};
			auto check = connection.execute(EXTENDED, parameters);
			expect(check.rows.size() == 1 && check.rows[0][0] == std::string("42"), "$1 + 1");
			for (auto _: state)
			{
				auto result = connection.execute(EXTENDED, parameters);
				benchmark::DoNotOptimize(fieldBytes(result));
			}
		});
	}

	void extendedLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			const char* values[1] = {"41"};
			for (auto _: state)
			{
				PGresult* result = PQexecParams(connection.get(), EXTENDED, 1, nullptr, values, nullptr, nullptr, 0);
				checkResult(result, PGRES_TUPLES_OK);
				benchmark::DoNotOptimize(fieldBytes(result));
				PQclear(result);
			}
		});
	}

	// 5

	void rowsBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			auto check = connection.executeSimple(ROWS_10K);
			expect(check.size() == 1 && check[0].rows.size() == ROWS && check[0].columns.size() == COLUMNS, "10,000 x 5");
			for (auto _: state)
			{
				auto results = connection.executeSimple(ROWS_10K);
				benchmark::DoNotOptimize(fieldBytes(results.front()));
			}
			state.SetItemsProcessed(state.iterations() * ROWS);
		});
	}

	void rowsLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			for (auto _: state)
			{
				PGresult* result = PQexec(connection.get(), ROWS_10K);
				checkResult(result, PGRES_TUPLES_OK);
				if (PQntuples(result) != ROWS || PQnfields(result) != COLUMNS)
				{
					PQclear(result);
					throw std::runtime_error("libpq: unexpected result shape");
				}
				benchmark::DoNotOptimize(fieldBytes(result));
				PQclear(result);
			}
			state.SetItemsProcessed(state.iterations() * ROWS);
		});
	}

	void configureRoundTrip(benchmark::internal::Benchmark* b)
	{
		b->MinTime(0.2)->Repetitions(repetitions(9))->Unit(benchmark::kMicrosecond)->UseRealTime();
	}

	void configureRows(benchmark::internal::Benchmark* b)
	{
		b->MinTime(0.3)->Repetitions(repetitions(7))->Unit(benchmark::kMillisecond)->UseRealTime();
	}
}


void registerQueryBenchmarks()
{
	configureRoundTrip(benchmark::RegisterBenchmark("select1_simple/bluetusk", select1BlueTusk));
	configureRoundTrip(benchmark::RegisterBenchmark("select1_simple/libpq", select1Libpq));
	configureRoundTrip(benchmark::RegisterBenchmark("extended_param/bluetusk", extendedBlueTusk));
	configureRoundTrip(benchmark::RegisterBenchmark("extended_param/libpq", extendedLibpq));
	configureRows(benchmark::RegisterBenchmark("rows_10k/bluetusk", rowsBlueTusk));
	configureRows(benchmark::RegisterBenchmark("rows_10k/libpq", rowsLibpq));
}

} } // namespace BlueTusk::Bench
