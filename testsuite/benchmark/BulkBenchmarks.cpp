//
// BulkBenchmarks.cpp
//
// Streaming, COPY and pipelines on one open session to the primary (no TLS), beside libpq:
//   11a stream_1m:     1,000,000 int8 + text rows handed over one at a time (queryEach) vs single-row mode
//   11b copy_in_1m:    COPY FROM STDIN of 1,000,000 text rows vs PQputCopyData
//   11c pipeline_1k:   1,000 single-row INSERTs in one pipeline vs libpq pipeline mode
//   11d pipeline_1k_serial: the same 1,000 INSERTs one round trip each (BlueTusk), to show the gain
//

#include "Benchmarks.h"
#include "ProcessMemory.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/Pipeline.h"
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const char* STREAM = "SELECT i::int8, 'row-' || i FROM generate_series(1, 1000000) AS i";
	const int STREAM_ROWS = 1000000;
	const int COPY_ROWS = 1000000;
	const int PIPELINE_ROWS = 1000;

	std::string plainString()
	{
		return blueTusk(primary(), "SSL Mode=disable");
	}

	std::string plainConninfo()
	{
		return libpq(primary(), "sslmode=disable");
	}

	void expect(bool condition, const std::string& what)
	{
		if (!condition) throw std::runtime_error("unexpected result: " + what);
	}

	std::string copyData()
	{
		std::string data;
		data.reserve(static_cast<std::size_t>(COPY_ROWS) * 16);
		for (int i = 0; i < COPY_ROWS; ++i) data += std::to_string(i) + "\tname-" + std::to_string(i) + "\n";
		return data;
	}

	void streamBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			Test::resetPeakResident();
			const long connectedKb = Test::statusKilobytes("VmRSS");
			for (auto _: state)
			{
				Poco::Int64 sum = 0;
				const Poco::UInt64 rows = connection.session().queryEach(STREAM, {}, [&](const RowView& row)
				{
					sum += row.get<Poco::Int64>(0) + static_cast<Poco::Int64>(row.raw(1)->size());
					return true;
				});
				expect(rows == STREAM_ROWS, "1,000,000 rows");
				benchmark::DoNotOptimize(sum);
			}
			state.SetItemsProcessed(state.iterations() * STREAM_ROWS);
			state.counters["peak_rss_growth_mb"] = static_cast<double>(Test::statusKilobytes("VmHWM") - connectedKb) / 1024.0;
		});
	}

	void streamLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			for (auto _: state)
			{
				expect(PQsendQueryParams(connection.get(), STREAM, 0, nullptr, nullptr, nullptr, nullptr, 0) == 1, "PQsendQueryParams");
				expect(PQsetSingleRowMode(connection.get()) == 1, "single-row mode");
				long long sum = 0;
				int rows = 0;
				while (PGresult* result = PQgetResult(connection.get()))
				{
					if (PQresultStatus(result) == PGRES_SINGLE_TUPLE)
					{
						sum += std::strtoll(PQgetvalue(result, 0, 0), nullptr, 10) + PQgetlength(result, 0, 1);
						++rows;
					}
					else if (PQresultStatus(result) != PGRES_TUPLES_OK)
					{
						PQclear(result);
						throw std::runtime_error("libpq: single-row query failed");
					}
					PQclear(result);
				}
				expect(rows == STREAM_ROWS, "1,000,000 rows (libpq)");
				benchmark::DoNotOptimize(sum);
			}
			state.SetItemsProcessed(state.iterations() * STREAM_ROWS);
		});
	}

	void copyBlueTusk(benchmark::State& state)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			connection.executeSimple("CREATE TEMP TABLE copy_bench (id int, name text)");
			const std::string data = copyData();
			for (auto _: state)
			{
				state.PauseTiming();
				connection.executeSimple("TRUNCATE copy_bench");
				state.ResumeTiming();
				auto copy = connection.session().copyIn("COPY copy_bench FROM STDIN");
				for (std::size_t at = 0; at < data.size(); at += 65536) copy->write(data.data() + at, std::min<std::size_t>(65536, data.size() - at));
				expect(copy->finish() == static_cast<Poco::UInt64>(COPY_ROWS), "1,000,000 rows copied");
			}
			state.SetItemsProcessed(state.iterations() * COPY_ROWS);
		});
	}

	void copyLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			checkResult(PQexec(connection.get(), "CREATE TEMP TABLE copy_bench (id int, name text)"), PGRES_COMMAND_OK);
			const std::string data = copyData();
			for (auto _: state)
			{
				state.PauseTiming();
				checkResult(PQexec(connection.get(), "TRUNCATE copy_bench"), PGRES_COMMAND_OK);
				state.ResumeTiming();
				checkResult(PQexec(connection.get(), "COPY copy_bench FROM STDIN"), PGRES_COPY_IN);
				for (std::size_t at = 0; at < data.size(); at += 65536)
					expect(PQputCopyData(connection.get(), data.data() + at, static_cast<int>(std::min<std::size_t>(65536, data.size() - at))) == 1, "PQputCopyData");
				expect(PQputCopyEnd(connection.get(), nullptr) == 1, "PQputCopyEnd");
				PGresult* result = PQgetResult(connection.get());
				checkResult(result, PGRES_COMMAND_OK);
				while ((result = PQgetResult(connection.get()))) PQclear(result);
			}
			state.SetItemsProcessed(state.iterations() * COPY_ROWS);
		});
	}

	void pipelineBlueTusk(benchmark::State& state, bool serial)
	{
		guarded(state, [&]
		{
			auto connection = BlueTuskConnection::open(plainString());
			connection.executeSimple("CREATE TEMP TABLE pipe_bench (id int, name text)");
			PreparedStatement insert = connection.prepare("INSERT INTO pipe_bench VALUES ($1, $2)");
			for (auto _: state)
			{
				if (serial)
				{
					for (int i = 0; i < PIPELINE_ROWS; ++i) connection.execute(insert, {i, "name"});
					continue;
				}
				Pipeline pipeline(connection.session());
				for (int i = 0; i < PIPELINE_ROWS; ++i) pipeline.add(insert, {i, "name"});
				std::vector<PipelineResult> results = pipeline.run();
				expect(results.size() == PIPELINE_ROWS && results.back().status == PipelineResult::Status::Ok, "1,000 inserts");
			}
			state.SetItemsProcessed(state.iterations() * PIPELINE_ROWS);
		});
	}

	void pipelineLibpq(benchmark::State& state)
	{
		guarded(state, [&]
		{
			LibpqConnection connection(plainConninfo());
			PGconn* conn = connection.get();
			checkResult(PQexec(conn, "CREATE TEMP TABLE pipe_bench (id int, name text)"), PGRES_COMMAND_OK);
			checkResult(PQprepare(conn, "ins", "INSERT INTO pipe_bench VALUES ($1, $2)", 2, nullptr), PGRES_COMMAND_OK);
			std::vector<std::string> ids;
			for (int i = 0; i < PIPELINE_ROWS; ++i) ids.push_back(std::to_string(i));
			for (auto _: state)
			{
				expect(PQenterPipelineMode(conn) == 1, "PQenterPipelineMode");
				for (int i = 0; i < PIPELINE_ROWS; ++i)
				{
					const char* values[2] = {ids[i].c_str(), "name"};
					expect(PQsendQueryPrepared(conn, "ins", 2, values, nullptr, nullptr, 0) == 1, "PQsendQueryPrepared");
				}
				expect(PQpipelineSync(conn) == 1, "PQpipelineSync");
				int done = 0;
				for (;;)
				{
					PGresult* result = PQgetResult(conn);
					if (!result) continue;   // the end of one query's results
					const ExecStatusType status = PQresultStatus(result);
					PQclear(result);
					if (status == PGRES_PIPELINE_SYNC) break;
					if (status != PGRES_COMMAND_OK) throw std::runtime_error("libpq: pipelined insert failed");
					++done;
				}
				expect(done == PIPELINE_ROWS, "1,000 inserts (libpq)");
				expect(PQexitPipelineMode(conn) == 1, "PQexitPipelineMode");
			}
			state.SetItemsProcessed(state.iterations() * PIPELINE_ROWS);
		});
	}

	void configureLarge(benchmark::internal::Benchmark* b)
	{
		b->Iterations(2)->Repetitions(repetitions(3))->Unit(benchmark::kMillisecond)->UseRealTime();
	}

	void configurePipeline(benchmark::internal::Benchmark* b)
	{
		b->MinTime(0.2)->Repetitions(repetitions(5))->Unit(benchmark::kMillisecond)->UseRealTime();
	}
}


void registerBulkBenchmarks()
{
	configureLarge(benchmark::RegisterBenchmark("stream_1m/bluetusk", streamBlueTusk));
	configureLarge(benchmark::RegisterBenchmark("stream_1m/libpq", streamLibpq));
	configureLarge(benchmark::RegisterBenchmark("copy_in_1m/bluetusk", copyBlueTusk));
	configureLarge(benchmark::RegisterBenchmark("copy_in_1m/libpq", copyLibpq));
	configurePipeline(benchmark::RegisterBenchmark("pipeline_1k/bluetusk", [](benchmark::State& s) { pipelineBlueTusk(s, false); }));
	configurePipeline(benchmark::RegisterBenchmark("pipeline_1k/libpq", pipelineLibpq));
	configurePipeline(benchmark::RegisterBenchmark("pipeline_1k_serial/bluetusk", [](benchmark::State& s) { pipelineBlueTusk(s, true); }));
}

} } // namespace BlueTusk::Bench
