//
// MetricsSubsystem.h
//
// Library: BlueTusk/Metrics
//
// The Prometheus exporter for the data sources of a DataSourceSubsystem, switched on by configuration.
//

#ifndef BlueTusk_Metrics_MetricsSubsystem_INCLUDED
#define BlueTusk_Metrics_MetricsSubsystem_INCLUDED

#include "BlueTusk/Metrics/PrometheusExporter.h"
#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "Poco/Util/Subsystem.h"
#include <memory>

namespace BlueTusk {
namespace Metrics {

class BlueTusk_Metrics_API MetricsSubsystem: public Poco::Util::Subsystem
	/// Register it after the DataSourceSubsystem (Poco initializes subsystems in the order added):
	///
	///     MyApp::MyApp() { addSubsystem(new BlueTusk::DataSourceSubsystem); addSubsystem(new BlueTusk::Metrics::MetricsSubsystem); }
	///
	/// Properties (doc/metrics.md):
	///
	///     bluetusk.metrics.enabled = true           attach a PrometheusExporter to every data source of the
	///                                               DataSourceSubsystem (default false: nothing is installed,
	///                                               the pools pay nothing)
	///     bluetusk.metrics.listen = 127.0.0.1:9464  also serve /metrics there with prometheus-cpp's HTTP
	///                                               server (default: none; the application serves text())
	///
	/// Each data source is exported with db_client_connection_pool_name = its configured name. Sessions the
	/// DataSourceSubsystem opened during its own initialize (warm-up) are not in create_time.
	/// Thread-safety: exporter() is thread-safe once initialized.
{
public:
	MetricsSubsystem();
	~MetricsSubsystem() override;

	const char* name() const override;
		/// "BlueTusk.Metrics".

	void open(const Poco::Util::AbstractConfiguration& config, DataSourceSubsystem& dataSources);
		/// What initialize(app) does, without a Poco::Util::Application.

	bool isEnabled() const;
		/// bluetusk.metrics.enabled was true.

	PrometheusExporter& exporter();
		/// The exporter (also when not enabled: then nothing is attached to it).

protected:
	void initialize(Poco::Util::Application& app) override;
	void uninitialize() override;

private:
	std::unique_ptr<PrometheusExporter> _exporter;
	bool _enabled = false;
};

} } // namespace BlueTusk::Metrics

#endif // BlueTusk_Metrics_MetricsSubsystem_INCLUDED
