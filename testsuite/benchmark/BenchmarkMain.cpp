//
// BenchmarkMain.cpp
//
// BlueTuskBenchmarks: every benchmark , BlueTusk and libpq side by side in one run. Takes the
// Google Benchmark flags (--benchmark_filter, --benchmark_out=<file> --benchmark_out_format=json, ...).
// The cluster comes from the environment (BLUETUSK_TEST_PORT, BLUETUSK_CLUSTER_DIR; see TestEnvironment.h);
// scripts/bench starts it and turns the JSON output into results.json and a table (report.py).
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include <iostream>

int main(int argc, char** argv)
{
	using namespace BlueTusk::Bench;

	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

	registerConnectBenchmarks();
	registerQueryBenchmarks();
	registerPoolBenchmarks();
	registerMultiHostBenchmarks();
	registerThroughputBenchmarks();
	registerStatementBenchmarks();
	registerPocoDataBenchmarks();
	registerBulkBenchmarks();
	registerFreshnessBenchmarks();
	registerPgBouncerBenchmarks();
	registerCurveBenchmarks();
	registerMemoryBenchmarks();

	const auto& cluster = BlueTusk::Test::cluster();
	benchmark::AddCustomContext("bluetusk_cluster", allNodes() + " port " + std::to_string(cluster.port));
	benchmark::AddCustomContext("libpq_version", std::to_string(PQlibVersion()));

	benchmark::RunSpecifiedBenchmarks();
	releaseCurveBenchmarks();
	benchmark::Shutdown();
	return 0;
}
