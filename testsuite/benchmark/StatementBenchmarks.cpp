//
// StatementBenchmarks.cpp
//
// Prepared statements, the statement cache and typed rows, on one open session to the primary (no TLS):
//   9a prepared_param: a prepared "SELECT $1::int4 + 1" executed with an int parameter vs PQexecPrepared
//   9b cached_query:   the same text through query() (a statement-cache hit: no Parse) vs PQexecParams
//   9c typed_rows_10k: 10,000 rows x (int4, int8, float8, timestamptz, text) read into C++ values vs libpq
//                      text rows parsed with strtol / strtoll / strtod / sscanf
// Both sides produce the same C++ values and fold them into a checksum, so neither skips work.
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const char* ONE_PARAMETER = "SELECT $1::int4 + 1";
	const char* TYPED_ROWS =
		"SELECT i::int4 AS a, i::int8 * 1000000000 AS b, i * 1.5::float8 AS c, "
		"timestamptz '2024-01-01 00:00:00+00' + i * interval '1 second' AS d, 'item-' || i AS e "
		"FROM generate_series(1, 10000) AS i";
	const int ROWS = 10000;

	std::string plainString()
	{
		return blueTusk(primary(), "SSL Mode=disable");
	}

	std::string plainConninfo()
	{
		// TimeZone UTC: the text timestamps libpq gets then need no zone arithmetic either
		return libpq(primary(), "sslmode=disable options='-c TimeZone=UTC'");
	}

	void expect(bool condition, const std::string& what)
	{
		if (!condition) throw std::runtime_error("unexpected result: " + what);
	}

	// 9a

	void preparedBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			PreparedStatement statement = connection.prepare(ONE_PARAMETER);
			expect(connection.execute(statement, {41}).row(0).get<Poco::Int32>(0) == 42, "$1 + 1");
			for (auto _: state)
			{
				QueryResult result = connection.execute(statement, {41});
				benchmark::DoNotOptimize(result.row(0).get<Poco::Int32>(0));
			}
		});
	}

	void preparedLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			checkResult(PQprepare(connection.get(), "s1", ONE_PARAMETER, 1, nullptr), PGRES_COMMAND_OK);
			const char* values[1] = {"41"};
			for (auto _: state)
			{
				PGresult* result = PQexecPrepared(connection.get(), "s1", 1, values, nullptr, nullptr, 0);
				checkResult(result, PGRES_TUPLES_OK);
				benchmark::DoNotOptimize(std::strtol(PQgetvalue(result, 0, 0), nullptr, 10));
				PQclear(result);
			}
		});
	}

	// 9b

	void cachedBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			for (int warm = 0; warm < 3; ++warm) connection.query(ONE_PARAMETER, {41});   // prepared by now
			expect(connection.session().statementStatistics().prepared == 1, "auto-prepared once");
			for (auto _: state)
			{
				QueryResult result = connection.query(ONE_PARAMETER, {41});
				benchmark::DoNotOptimize(result.row(0).get<Poco::Int32>(0));
			}
		});
	}

	void cachedLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			execParamsLoop(state, plainConninfo(), ONE_PARAMETER, "41");
		});
	}

	// 9c

	struct Checksum
	{
		long long sum = 0;
		void add(long long a, long long b, double c, long long micros, std::size_t textSize)
		{
			sum += a + b + static_cast<long long>(c) + micros + static_cast<long long>(textSize);
		}
	};

	void typedRowsBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			PreparedStatement statement = connection.prepare(TYPED_ROWS);
			expect(connection.execute(statement).rows.size() == ROWS, "10,000 rows");
			for (auto _: state)
			{
				QueryResult result = connection.execute(statement);
				Checksum checksum;
				for (RowView row: result)
				{
					const std::string_view text = row.raw(4).view();
					checksum.add(row.get<Poco::Int32>(0), row.get<Poco::Int64>(1), row.get<double>(2),
						row.get<Poco::Timestamp>(3).epochMicroseconds(), text.size());
				}
				benchmark::DoNotOptimize(checksum.sum);
			}
			state.SetItemsProcessed(state.iterations() * ROWS);
		});
	}

	long long parseTimestamp(const char* text)
		/// "2024-01-01 00:00:01+00" as microseconds (the usual sscanf; UTC, whole seconds here).
	{
		int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
		std::sscanf(text, "%d-%d-%d %d:%d:%d", &year, &month, &day, &hour, &minute, &second);
		std::tm tm{};
		tm.tm_year = year - 1900;
		tm.tm_mon = month - 1;
		tm.tm_mday = day;
		tm.tm_hour = hour;
		tm.tm_min = minute;
		tm.tm_sec = second;
		return static_cast<long long>(timegm(&tm)) * 1000000LL;
	}

	void typedRowsLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			for (auto _: state)
			{
				PGresult* result = PQexec(connection.get(), TYPED_ROWS);
				checkResult(result, PGRES_TUPLES_OK);
				if (PQntuples(result) != ROWS)
				{
					PQclear(result);
					throw std::runtime_error("libpq: unexpected result shape");
				}
				Checksum checksum;
				for (int r = 0; r < ROWS; ++r)
				{
					checksum.add(std::strtol(PQgetvalue(result, r, 0), nullptr, 10), std::strtoll(PQgetvalue(result, r, 1), nullptr, 10),
						std::strtod(PQgetvalue(result, r, 2), nullptr), parseTimestamp(PQgetvalue(result, r, 3)),
						static_cast<std::size_t>(PQgetlength(result, r, 4)));
				}
				benchmark::DoNotOptimize(checksum.sum);
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


void registerStatementBenchmarks()
{
	configureRoundTrip(benchmark::RegisterBenchmark("prepared_param/bluetusk", preparedBlueTusk));
	configureRoundTrip(benchmark::RegisterBenchmark("prepared_param/libpq", preparedLibpq));
	configureRoundTrip(benchmark::RegisterBenchmark("cached_query/bluetusk", cachedBlueTusk));
	configureRoundTrip(benchmark::RegisterBenchmark("cached_query/libpq", cachedLibpq));
	configureRows(benchmark::RegisterBenchmark("typed_rows_10k/bluetusk", typedRowsBlueTusk));
	configureRows(benchmark::RegisterBenchmark("typed_rows_10k/libpq", typedRowsLibpq));
}

} } // namespace BlueTusk::Bench
