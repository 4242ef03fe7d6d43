//
// metrics.cpp
//
// The BlueTusk::Metrics consumer (libbluetusk-metrics-dev): an exporter with no data source attached, and
// the names it uses, one "key value" line each, for RunPackageConsumer.cmake to check.
//

#include "BlueTusk/Metrics/MetricsObserver.h"
#include "BlueTusk/Metrics/PrometheusExporter.h"
#include <iostream>

int main()
{
	BlueTusk::Metrics::PrometheusExporter exporter;
	const std::string text = exporter.text();
	std::cout << "metric " << BlueTusk::Metrics::Names::CONNECTION_COUNT.prometheusName << std::endl;
	std::cout << "otel " << BlueTusk::Metrics::Names::CONNECTION_COUNT.otelName << std::endl;
	std::cout << "exposition " << (text.find("# TYPE db_client_connection_count gauge") != std::string::npos ? "ok" : "missing") << std::endl;
	return 0;
}
