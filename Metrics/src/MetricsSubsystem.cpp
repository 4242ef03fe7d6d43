//
// MetricsSubsystem.cpp
//
// Library: BlueTusk/Metrics
//

#include "BlueTusk/Metrics/MetricsSubsystem.h"
#include "Poco/Logger.h"
#include "Poco/Util/Application.h"

namespace BlueTusk {
namespace Metrics {

MetricsSubsystem::MetricsSubsystem():
	_exporter(new PrometheusExporter)
{
}


MetricsSubsystem::~MetricsSubsystem()
{
}


const char* MetricsSubsystem::name() const
{
	return "BlueTusk.Metrics";
}


void MetricsSubsystem::open(const Poco::Util::AbstractConfiguration& config, DataSourceSubsystem& dataSources)
{
	_enabled = config.getBool("bluetusk.metrics.enabled", false);
	if (!_enabled) return;
	for (const auto& name: dataSources.names()) _exporter->attach(dataSources.dataSource(name), name);
	const std::string listen = config.getString("bluetusk.metrics.listen", "");
	if (!listen.empty()) _exporter->listen(listen);
	Poco::Logger::get("BlueTusk.Metrics").information("metrics enabled for %z data source(s)%s", dataSources.names().size(),
		listen.empty() ? std::string() : ", serving http://" + listen + "/metrics");
}


bool MetricsSubsystem::isEnabled() const
{
	return _enabled;
}


PrometheusExporter& MetricsSubsystem::exporter()
{
	return *_exporter;
}


void MetricsSubsystem::initialize(Poco::Util::Application& app)
{
	open(app.config(), app.getSubsystem<DataSourceSubsystem>());
}


void MetricsSubsystem::uninitialize()
{
}

} } // namespace BlueTusk::Metrics
