//
// BenchmarkEnvironment.h
//
// Connection strings for the local cluster in BlueTusk's and libpq's spelling, a libpq connection handle,
// and the small statistics and threading helpers the benchmarks share.
//

#ifndef BlueTusk_BenchmarkEnvironment_INCLUDED
#define BlueTusk_BenchmarkEnvironment_INCLUDED

#include "TestEnvironment.h"
#include <libpq-fe.h>
#include <benchmark/benchmark.h>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Bench {

std::string blueTusk(const std::string& hostList, const std::string& extra);
	/// A BlueTusk connection string for the cluster (scripts/cluster values, see TestEnvironment.h):
	/// "Host=<hostList>;Port=<port>;Username=..;Password=..;Database=..;<extra>".

std::string libpq(const std::string& hostList, const std::string& extra, const std::string& portList = "");
	/// A libpq conninfo for the same cluster: "host=<hostList> port=<portList or the cluster port> user=..
	/// password=.. dbname=.. gssencmode=disable <extra>". gssencmode=disable spares libpq the GSSAPI
	/// credential check BlueTusk does not make either, so both sides do the same work.

std::string primary();
	/// The primary's address (node 1, "127.0.0.1").

std::string allNodes();
	/// "127.0.0.1,127.0.0.2,127.0.0.3".


class LibpqConnection
	/// An open PGconn (closed by the destructor). Move-only.
{
public:
	explicit LibpqConnection(const std::string& conninfo);
		/// PQconnectdb(conninfo); throws std::runtime_error with PQerrorMessage() when it fails.

	LibpqConnection(LibpqConnection&& other) noexcept;
	~LibpqConnection();

	PGconn* get() const { return _conn; }

private:
	LibpqConnection(const LibpqConnection&) = delete;
	LibpqConnection& operator = (const LibpqConnection&) = delete;

	PGconn* _conn = nullptr;
};


void checkResult(PGresult* result, ExecStatusType expected);
	/// Throws std::runtime_error (and clears result) unless PQresultStatus(result) is expected.


void execParamsLoop(benchmark::State& state, const std::string& conninfo, const char* sql, const char* value);
	/// libpq's side of a one-parameter query: one PGconn to conninfo, then per iteration PQexecParams(sql)
	/// with value as its text parameter, the first field of the answer read.


using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start)
{
	return std::chrono::duration<double>(Clock::now() - start).count();
}


double percentile(std::vector<double> values, double fraction);
	/// The value at fraction (0.5: the median, 1.0: the maximum) of values, nearest rank; 0 when empty.


double runThreads(int threads, const std::function<void(int)>& body);
	/// Runs body(0) .. body(threads - 1) on that many threads started together (a start gate releases them
	/// at once) and returns the wall-clock seconds from the release until the last one finished. The first
	/// exception a body throws is rethrown after every thread has finished.


void warmUp(int threads, const std::function<void()>& once, double seconds = 0.2);
	/// Runs once() in a loop on that many threads for seconds (0.2 s), untimed: a pool benchmark warms its
	/// data source with it so that the timed slices find the sessions open, as the libpq side opens its
	/// connections before timing. Without it the first slice pays each session's backend start (a fork on
	/// the server: 15-20 ms each on the benchmark machine of 2026-12) and the waits behind it.


int repetitions(int defaultCount);
	/// defaultCount, or the BLUETUSK_BENCH_REPETITIONS environment variable when set (scripts/bench --quick
	/// uses 1 for a smoke run).


template <typename Fn>
void guarded(benchmark::State& state, Fn&& fn)
	/// Runs fn(); an exception skips the benchmark with its message (the report then shows "error").
{
	try
	{
		fn();
	}
	catch (std::exception& exc)
	{
		state.SkipWithError(exc.what());
	}
}

} } // namespace BlueTusk::Bench

#endif // BlueTusk_BenchmarkEnvironment_INCLUDED
