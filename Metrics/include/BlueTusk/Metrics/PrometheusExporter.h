//
// PrometheusExporter.h
//
// Library: BlueTusk/Metrics
//
// BlueTusk's pool and routing metrics as a prometheus-cpp Collectable and in the Prometheus text
// exposition format (doc/metrics.md).
//

#ifndef BlueTusk_Metrics_PrometheusExporter_INCLUDED
#define BlueTusk_Metrics_PrometheusExporter_INCLUDED

#include "BlueTusk/Metrics/MetricsObserver.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "prometheus/collectable.h"
#include "prometheus/registry.h"
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace prometheus {
class Exposer;
}

namespace BlueTusk {
namespace Metrics {

class BlueTusk_Metrics_API PrometheusExporter: public prometheus::Collectable
	/// Turns what the data sources attached to it report into Prometheus metric families, named by the
	/// OpenTelemetry semantic conventions (MetricsObserver.h): gauges read from each data source's
	/// getHostPoolStatistics() at collection time (so a scrape equals the pool's own statistics at that
	/// moment), histograms and counters from the MetricsObserver installed on it.
	///
	/// Typical use: attach() each data source, then either serve text() from an HTTP handler (the pool
	/// monitor's /metrics) or listen() for prometheus-cpp's own HTTP server. An application's own metrics
	/// registered in registry() are exported alongside. Thread-safe.
{
public:
	using Ptr = std::shared_ptr<PrometheusExporter>;

	PrometheusExporter();
	~PrometheusExporter() override;

	MetricsObserver::Ptr attach(const BlueTuskDataSource::Ptr& dataSource, const std::string& poolName = std::string());
		/// Installs a new MetricsObserver on dataSource (replacing any) and exports its metrics from now on,
		/// labelled db_client_connection_pool_name=poolName (empty: defaultPoolName()) and endpoint=host:port.
		/// The exporter holds the data source weakly: a data source that ended is no longer exported.

	static std::string defaultPoolName(const ConnectionSettings& settings);
		/// "user@host-list/database", e.g. "app@127.0.0.1:5432,127.0.0.2:5432/orders": stable across restarts
		/// and without the password.

	std::vector<prometheus::MetricFamily> Collect() const override;
		/// The metric families of every live attached data source, then those of registry().

	std::string text() const;
		/// Collect() in the text exposition format 0.0.4 (content type "text/plain; version=0.0.4").

	prometheus::Registry& registry();
		/// A registry for an application's own metrics, exported with BlueTusk's.

	void listen(const std::string& bindAddress);
		/// Serves Collect() at http://bindAddress/metrics with prometheus-cpp's HTTP server (civetweb), e.g.
		/// "127.0.0.1:9464". Throws when the address is taken. Once per exporter (a second call replaces
		/// the server).

	static const char* const CONTENT_TYPE;   /// "text/plain; version=0.0.4; charset=utf-8"

private:
	struct Source
	{
		std::weak_ptr<BlueTuskDataSource> dataSource;
		MetricsObserver::Ptr observer;
	};

	mutable std::mutex _mutex;
	std::vector<Source> _sources;
	std::shared_ptr<prometheus::Registry> _registry;
	std::unique_ptr<prometheus::Exposer> _exposer;
	std::shared_ptr<Collectable> _forwarder;   /// what the Exposer holds (weakly): calls Collect() of this
};

} } // namespace BlueTusk::Metrics

#endif // BlueTusk_Metrics_PrometheusExporter_INCLUDED
