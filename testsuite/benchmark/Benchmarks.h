//
// Benchmarks.h
//
// The benchmark groups (doc/performance.md lists the rows). Each register function adds, for one measurement, the BlueTusk
// benchmark and its libpq counterpart; the names are "<measurement>/bluetusk" and "<measurement>/libpq"
// (testsuite/benchmark/report.py pairs them and applies the targets).
//

#ifndef BlueTusk_Benchmarks_INCLUDED
#define BlueTusk_Benchmarks_INCLUDED

namespace BlueTusk {
namespace Bench {

void registerConnectBenchmarks();
	/// 1 connect_plain, 2 connect_tls: a new physical connection to the primary with SCRAM.

void registerQueryBenchmarks();
	/// 3 select1_simple, 4 extended_param, 5 rows_10k: queries on an open session.

void registerPoolBenchmarks();
	/// 6 pool_checkout (single thread), pool_contention (8 threads on 4 sessions).

void registerMultiHostBenchmarks();
	/// 7 multihost_sequential, multihost_random, multihost_parallel (first host black-holed, Timeout=2).

void registerThroughputBenchmarks();
	/// 8 throughput_any, throughput_prefer_standby: SELECT 1 from 8 threads over the three nodes.

void registerStatementBenchmarks();
	/// 9 prepared_param, cached_query, typed_rows_10k: prepared statements, the cache, typed rows.

void registerBulkBenchmarks();
	/// 11 stream_1m, copy_in_1m, pipeline_1k, pipeline_1k_serial: streaming, COPY and pipelines.

void registerFreshnessBenchmarks();
	/// 12 ryw_loop, token_checkout, write_token: read your writes against polling by hand, a checkout with
	/// a reached token against a plain one, and a write lease's return with Read Your Writes on and off.

void registerPocoDataBenchmarks();
	/// 10 data_select_one, data_recordset, data_insert_vector, data_insert_bulk: the same Poco::Data code
	/// with "bluetusk" and Poco's "postgresql" connector.

void registerPgBouncerBenchmarks();
	/// 13 pgbouncer_throughput, pgbouncer_connect: BlueTusk's pool against libpq through PgBouncer
	/// (transaction pooling, started by scripts/bench; BLUETUSK_PGBOUNCER_PORT).

void registerCurveBenchmarks();
	/// 14 curve_threads_<N>, curve_endpoints_<N>, curve_addresses_<N>: how cost grows (curves.py plots them).

void releaseCurveBenchmarks();
	/// Closes the data source the curve_threads points share; main() calls it after the run.

void registerMemoryBenchmarks();
	/// 15 buffered_2m: the peak RSS a 2,000,000-row result held whole adds (executeSimple vs PQexec).

} } // namespace BlueTusk::Bench

#endif // BlueTusk_Benchmarks_INCLUDED
