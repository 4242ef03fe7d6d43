//
// PocoPrometheusCollector.cpp
//
// Library: BlueTusk/Metrics
//
// Built only when CMake found Poco::Prometheus (Poco 1.12 and later): see Metrics/CMakeLists.txt.
//

#ifdef BLUETUSK_METRICS_POCO_PROMETHEUS

#include "BlueTusk/Metrics/PocoPrometheusCollector.h"
#include "Poco/Prometheus/Exporter.h"
#include "Poco/Prometheus/Metric.h"
#include <cmath>
#include <limits>
#include <locale>
#include <sstream>

namespace BlueTusk {
namespace Metrics {

namespace {

using Poco::Prometheus::Metric;


class FamilyMetric: public Metric
	/// What Poco's Exporter writes a header or a sample line for: a name, a type and a help text. Never in a
	/// registry (as Poco's own Histogram makes its _bucket, _sum and _count lines).
{
public:
	FamilyMetric(Metric::Type type, const std::string& name, const std::string& help = std::string()):
		Metric(type, name, nullptr)
	{
		setHelp(help);
	}

	void exportTo(Poco::Prometheus::Exporter&) const override
	{
	}
};


Metric::Type typeOf(prometheus::MetricType type)
{
	switch (type)
	{
	case prometheus::MetricType::Counter:   return Metric::Type::COUNTER;
	case prometheus::MetricType::Gauge:     return Metric::Type::GAUGE;
	case prometheus::MetricType::Histogram: return Metric::Type::HISTOGRAM;
	default:                                return Metric::Type::UNTYPED;
	}
}


void labelsOf(const prometheus::ClientMetric& metric, std::vector<std::string>& names, std::vector<std::string>& values)
{
	for (const auto& label: metric.label)
	{
		names.push_back(label.name);
		values.push_back(label.value);
	}
}


std::string format(double value)
	/// A value as prometheus-cpp's text serializer writes it (the classic locale, 16 significant digits,
	/// "+Inf", "-Inf", "Nan"), so that both exports show the same text: Poco's own formatting of a double
	/// can differ in the last digits (shortest round trip).
{
	if (std::isnan(value)) return "Nan";
	if (std::isinf(value)) return value < 0 ? "-Inf" : "+Inf";
	std::ostringstream out;
	out.imbue(std::locale::classic());
	out.precision(std::numeric_limits<double>::max_digits10 - 1);
	out << value;
	return out.str();
}


void writeHistogram(Poco::Prometheus::Exporter& exporter, const std::string& name, const prometheus::MetricFamily& family)
{
	const FamilyMetric bucket(Metric::Type::UNTYPED, name + "_bucket"), sum(Metric::Type::UNTYPED, name + "_sum"),
		count(Metric::Type::UNTYPED, name + "_count");
	for (const prometheus::ClientMetric& metric: family.metric)
	{
		std::vector<std::string> names, values;
		labelsOf(metric, names, values);
		std::vector<std::string> bucketNames = names, bucketValues = values;
		bucketNames.push_back("le");
		bucketValues.push_back("");
		for (const auto& b: metric.histogram.bucket)
		{
			bucketValues.back() = format(b.upper_bound);
			exporter.writeSample(bucket, bucketNames, bucketValues, static_cast<Poco::UInt64>(b.cumulative_count));
		}
		exporter.writeSample(sum, names, values, format(metric.histogram.sample_sum));
		exporter.writeSample(count, names, values, static_cast<Poco::UInt64>(metric.histogram.sample_count));
	}
}

} // namespace


PocoPrometheusCollector::PocoPrometheusCollector(PrometheusExporter::Ptr exporter, const std::string& name,
	Poco::Prometheus::Registry* registry):
	Collector(name, registry),
	_exporter(std::move(exporter)),
	_registry(registry)
{
	poco_check_ptr(_exporter.get());
}


PocoPrometheusCollector::~PocoPrometheusCollector()
{
	if (_registry) _registry->unregisterCollector(this);
}


const PrometheusExporter::Ptr& PocoPrometheusCollector::exporter() const
{
	return _exporter;
}


void PocoPrometheusCollector::exportTo(Poco::Prometheus::Exporter& exporter) const
{
	for (const prometheus::MetricFamily& family: _exporter->Collect())
	{
		if (family.type == prometheus::MetricType::Summary)
			continue;   // none of BlueTusk's; an application's own summaries stay with prometheus-cpp
		const FamilyMetric header(typeOf(family.type), family.name, family.help);
		exporter.writeHeader(header);
		if (family.type == prometheus::MetricType::Histogram)
		{
			writeHistogram(exporter, family.name, family);
			continue;
		}
		for (const prometheus::ClientMetric& metric: family.metric)
		{
			std::vector<std::string> names, values;
			labelsOf(metric, names, values);
			double value = metric.untyped.value;
			if (family.type == prometheus::MetricType::Counter) value = metric.counter.value;
			else if (family.type == prometheus::MetricType::Gauge) value = metric.gauge.value;
			exporter.writeSample(header, names, values, format(value));
		}
	}
}

} } // namespace BlueTusk::Metrics

#endif // BLUETUSK_METRICS_POCO_PROMETHEUS
