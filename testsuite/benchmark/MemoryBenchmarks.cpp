//
// MemoryBenchmarks.cpp
//
// What a result held whole costs in memory, beside libpq (issue 38, point 5):
//   15a buffered_2m: 2,000,000 int4 + md5 text rows returned by executeSimple() (one QueryResult) vs PQexec
//                    (one PGresult); the counter is the peak RSS the call added to the process, in MB.
// Time is reported too, but the row's metric is the memory.
//

#include "Benchmarks.h"
#include "ProcessMemory.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include <malloc.h>
#include <algorithm>
#include <vector>
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const char* BUFFERED = "SELECT g, md5(g::text) FROM generate_series(1, 2000000) AS g";
	const std::size_t BUFFERED_ROWS = 2000000;

	long startMeasuring()
		/// Gives freed memory back (both sides free their result before the next iteration), sets the peak
		/// to the current RSS and returns that RSS in kB.
	{
		malloc_trim(0);
		if (!Test::resetPeakResident()) throw std::runtime_error("cannot reset the peak RSS (/proc/self/clear_refs)");
		return Test::statusKilobytes("VmRSS");
	}

	double growthMb(long startKb)
	{
		return static_cast<double>(Test::statusKilobytes("VmHWM") - startKb) / 1024.0;
	}

	void bufferedBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(blueTusk(primary(), "SSL Mode=disable"));
			double peak = 0;
			for (auto _: state)
			{
				const long start = startMeasuring();
				std::size_t bytes = 0;
				{
					std::vector<QueryResult> results = connection.executeSimple(BUFFERED);
					if (results.size() != 1 || results[0].rows.size() != BUFFERED_ROWS) throw std::runtime_error("unexpected result: 2,000,000 rows");
					for (const auto& row: results[0].rows)
						for (const auto& field: row) bytes += field ? field->size() : 0;
					peak = std::max(peak, growthMb(start));
				}
				benchmark::DoNotOptimize(bytes);
			}
			state.counters["peak_rss_growth_mb"] = peak;
		});
	}

	void bufferedLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(libpq(primary(), "sslmode=disable"));
			double peak = 0;
			for (auto _: state)
			{
				const long start = startMeasuring();
				PGresult* result = PQexec(connection.get(), BUFFERED);
				if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != static_cast<int>(BUFFERED_ROWS))
				{
					PQclear(result);
					throw std::runtime_error("libpq: unexpected result: 2,000,000 rows");
				}
				std::size_t bytes = 0;
				for (int i = 0; i < PQntuples(result); ++i)
					for (int j = 0; j < PQnfields(result); ++j) bytes += static_cast<std::size_t>(PQgetlength(result, i, j));
				peak = std::max(peak, growthMb(start));
				PQclear(result);
				benchmark::DoNotOptimize(bytes);
			}
			state.counters["peak_rss_growth_mb"] = peak;
		});
	}

	void configureBuffered(benchmark::internal::Benchmark* b)
	{
		b->Iterations(1)->Repetitions(repetitions(3))->Unit(benchmark::kMillisecond)->UseRealTime();
	}
}


void registerMemoryBenchmarks()
{
	configureBuffered(benchmark::RegisterBenchmark("buffered_2m/bluetusk", bufferedBlueTusk));
	configureBuffered(benchmark::RegisterBenchmark("buffered_2m/libpq", bufferedLibpq));
}

} } // namespace BlueTusk::Bench
