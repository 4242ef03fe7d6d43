//
// PocoPrometheusCollector.h
//
// Library: BlueTusk/Metrics
//
// BlueTusk's pool and routing metrics as a Poco::Prometheus Collector (Poco 1.12 and later), so that an
// application on Poco's Prometheus library serves them from its own Registry and MetricsServer, under the
// same names as the prometheus-cpp export (doc/metrics.md, "Poco::Prometheus").
//

#ifndef BlueTusk_Metrics_PocoPrometheusCollector_INCLUDED
#define BlueTusk_Metrics_PocoPrometheusCollector_INCLUDED

#include "Poco/Version.h"

// Poco 1.12: the Prometheus library (Poco::Prometheus::Collector, Registry, MetricsServer). BlueTusk builds
// this class only when CMake finds Poco::Prometheus (BLUETUSK_METRICS_POCO_PROMETHEUS is then defined).
#define BLUETUSK_POCO_HAS_PROMETHEUS (POCO_VERSION >= 0x010C0000)

#if !BLUETUSK_POCO_HAS_PROMETHEUS
#error "BlueTusk/Metrics/PocoPrometheusCollector.h needs Poco 1.12 or later (Poco::Prometheus)"
#endif

#include "BlueTusk/Metrics/PrometheusExporter.h"
#include "Poco/Prometheus/Collector.h"
#include "Poco/Prometheus/Registry.h"
#include <string>

namespace BlueTusk {
namespace Metrics {

class BlueTusk_Metrics_API PocoPrometheusCollector: public Poco::Prometheus::Collector
	/// Writes the metric families of a PrometheusExporter (PrometheusExporter::Collect(): every data source
	/// attached to it, then its registry()) to a Poco::Prometheus::Exporter: the same names, types, help
	/// texts, labels and values as PrometheusExporter::text(), so dashboards work with either library.
	///
	/// Typical use: attach() the data sources to a PrometheusExporter, make one collector for it in Poco's
	/// default Registry, and serve it with Poco::Prometheus::MetricsServer (GET /metrics). Unregisters
	/// itself from its registry when destroyed. Thread-safe as PrometheusExporter::Collect() is.
{
public:
	explicit PocoPrometheusCollector(PrometheusExporter::Ptr exporter, const std::string& name = "bluetusk",
		Poco::Prometheus::Registry* registry = &Poco::Prometheus::Registry::defaultRegistry());
		/// Registers the collector as name (unique in the registry: Poco throws for a second "bluetusk")
		/// with registry (nullptr: none; call exportTo() yourself).

	~PocoPrometheusCollector() override;
		/// Unregisters the collector from its registry.

	void exportTo(Poco::Prometheus::Exporter& exporter) const override;
		/// Writes a header and the samples of every family of the exporter's Collect(); a histogram as
		/// name_bucket{...,le="..."} (cumulative, +Inf last), name_sum and name_count.

	const PrometheusExporter::Ptr& exporter() const;
		/// The exporter whose metrics are written.

private:
	PocoPrometheusCollector(const PocoPrometheusCollector&) = delete;
	PocoPrometheusCollector& operator = (const PocoPrometheusCollector&) = delete;

	PrometheusExporter::Ptr _exporter;
	Poco::Prometheus::Registry* _registry;
};

} } // namespace BlueTusk::Metrics

#endif // BlueTusk_Metrics_PocoPrometheusCollector_INCLUDED
