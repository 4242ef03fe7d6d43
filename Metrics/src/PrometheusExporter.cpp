//
// PrometheusExporter.cpp
//
// Library: BlueTusk/Metrics
//

#include "BlueTusk/Metrics/PrometheusExporter.h"
#include "prometheus/exposer.h"
#include "prometheus/text_serializer.h"
#include <map>

namespace BlueTusk {
namespace Metrics {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;


MetricFamily family(const MetricName& name)
{
	MetricFamily result;
	result.name = name.prometheusName;
	result.help = std::string(name.help) + " (" + name.otelName + ", " + name.unit + ")";
	switch (name.instrument)
	{
	case Instrument::UpDownCounter: result.type = MetricType::Gauge; break;
	case Instrument::Counter:       result.type = MetricType::Counter; break;
	case Instrument::Histogram:     result.type = MetricType::Histogram; break;
	}
	return result;
}


std::vector<ClientMetric::Label> labels(const std::string& pool, const BlueTuskHostEndpoint& endpoint)
{
	return {{Labels::POOL_NAME, pool}, {Labels::ENDPOINT, endpoint.toString()}};
}


void addGauge(MetricFamily& into, std::vector<ClientMetric::Label> labelSet, double value)
{
	ClientMetric metric;
	metric.label = std::move(labelSet);
	metric.gauge.value = value;
	into.metric.push_back(std::move(metric));
}


void addCounter(MetricFamily& into, std::vector<ClientMetric::Label> labelSet, double value)
{
	ClientMetric metric;
	metric.label = std::move(labelSet);
	metric.counter.value = value;
	into.metric.push_back(std::move(metric));
}


void addHistogram(MetricFamily& into, std::vector<ClientMetric::Label> labelSet, const MetricsObserver::Histogram& histogram)
{
	ClientMetric metric;
	metric.label = std::move(labelSet);
	const auto& bounds = durationBuckets();
	std::uint64_t cumulative = 0;
	for (std::size_t b = 0; b <= DURATION_BUCKETS; ++b)
	{
		cumulative += histogram.counts[b];
		ClientMetric::Bucket bucket;
		bucket.cumulative_count = cumulative;
		bucket.upper_bound = b < DURATION_BUCKETS ? bounds[b] : std::numeric_limits<double>::infinity();
		metric.histogram.bucket.push_back(bucket);
	}
	metric.histogram.sample_count = cumulative;
	metric.histogram.sample_sum = histogram.sum;
	into.metric.push_back(std::move(metric));
}

class Forwarder: public prometheus::Collectable
	/// The Exposer keeps a weak_ptr to what it serves: this object, owned by the exporter, forwards to it.
{
public:
	explicit Forwarder(const PrometheusExporter& exporter): _exporter(exporter)
	{
	}

	std::vector<MetricFamily> Collect() const override
	{
		return _exporter.Collect();
	}

private:
	const PrometheusExporter& _exporter;
};

} // namespace


const char* const PrometheusExporter::CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";


PrometheusExporter::PrometheusExporter():
	_registry(std::make_shared<prometheus::Registry>())
{
}


PrometheusExporter::~PrometheusExporter()
{
	_exposer.reset();
}


std::string PrometheusExporter::defaultPoolName(const ConnectionSettings& settings)
{
	return settings.username + "@" + settings.hostList() + "/" + settings.database;
}


MetricsObserver::Ptr PrometheusExporter::attach(const BlueTuskDataSource::Ptr& dataSource, const std::string& poolName)
{
	const ConnectionSettings& settings = dataSource->settings();
	auto observer = std::make_shared<MetricsObserver>(poolName.empty() ? defaultPoolName(settings) : poolName, settings.endpoints);
	dataSource->setObserver(observer);
	std::lock_guard<std::mutex> lock(_mutex);
	_sources.push_back(Source{dataSource, observer});
	return observer;
}


std::vector<MetricFamily> PrometheusExporter::Collect() const
{
	MetricFamily count = family(Names::CONNECTION_COUNT), idleMax = family(Names::IDLE_MAX), idleMin = family(Names::IDLE_MIN),
		max = family(Names::MAX), pending = family(Names::PENDING_REQUESTS), timeouts = family(Names::TIMEOUTS),
		createTime = family(Names::CREATE_TIME), waitTime = family(Names::WAIT_TIME), useTime = family(Names::USE_TIME),
		attempts = family(Names::ROUTE_ATTEMPTS), failoverWaits = family(Names::FAILOVER_WAITS),
		roleChanges = family(Names::ROLE_CHANGES), splitBrain = family(Names::SPLIT_BRAIN_REFUSALS);

	std::vector<Source> sources;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		sources = _sources;
	}
	for (const Source& source: sources)
	{
		BlueTuskDataSource::Ptr dataSource = source.dataSource.lock();
		if (!dataSource) continue;
		const std::string& pool = source.observer->poolName();
		const std::map<BlueTuskHostEndpoint, PoolStatistics> statistics = dataSource->getHostPoolStatistics();
		const MetricsObserver::Snapshot events = source.observer->snapshot();
		for (const auto& item: statistics)
		{
			const PoolStatistics& s = item.second;
			auto idleLabels = labels(pool, item.first);
			idleLabels.push_back({Labels::STATE, Labels::STATE_IDLE});
			auto usedLabels = labels(pool, item.first);
			usedLabels.push_back({Labels::STATE, Labels::STATE_USED});
			addGauge(count, idleLabels, s.idle);
			addGauge(count, usedLabels, s.busy);
			addGauge(idleMax, labels(pool, item.first), s.maxSize);
			addGauge(idleMin, labels(pool, item.first), s.minSize);
			addGauge(max, labels(pool, item.first), s.maxSize);
			addGauge(pending, labels(pool, item.first), s.pending);
			addCounter(timeouts, labels(pool, item.first), static_cast<double>(s.checkoutTimeouts));
		}
		for (const auto& e: events.endpoints)
		{
			addHistogram(createTime, labels(pool, e.endpoint), e.createTime);
			addHistogram(waitTime, labels(pool, e.endpoint), e.waitTime);
			addHistogram(useTime, labels(pool, e.endpoint), e.useTime);
			for (std::size_t o = 0; o < MetricsObserver::OUTCOMES; ++o)
			{
				auto outcomeLabels = labels(pool, e.endpoint);
				outcomeLabels.push_back({Labels::OUTCOME, outcomeLabel(static_cast<int>(o))});
				addCounter(attempts, outcomeLabels, static_cast<double>(e.attempts[o]));
			}
			for (std::size_t r = 1; r < MetricsObserver::ROLES; ++r)   // 0: Unknown is never learned
			{
				auto roleLabels = labels(pool, e.endpoint);
				roleLabels.push_back({Labels::ROLE, toString(static_cast<ServerRole>(r))});
				addCounter(roleChanges, roleLabels, static_cast<double>(e.roleChanges[r]));
			}
			addCounter(splitBrain, labels(pool, e.endpoint), static_cast<double>(e.splitBrainRefusals));
		}
		addCounter(failoverWaits, {{Labels::POOL_NAME, pool}}, static_cast<double>(events.failoverWaits));
	}

	std::vector<MetricFamily> result{count, idleMax, idleMin, max, pending, timeouts, createTime, waitTime, useTime,
		attempts, failoverWaits, roleChanges, splitBrain};
	for (MetricFamily& own: _registry->Collect()) result.push_back(std::move(own));
	return result;
}


std::string PrometheusExporter::text() const
{
	return prometheus::TextSerializer().Serialize(Collect());
}


prometheus::Registry& PrometheusExporter::registry()
{
	return *_registry;
}


void PrometheusExporter::listen(const std::string& bindAddress)
{
	std::unique_ptr<prometheus::Exposer> exposer(new prometheus::Exposer(bindAddress));
	if (!_forwarder) _forwarder = std::make_shared<Forwarder>(*this);
	exposer->RegisterCollectable(_forwarder);
	_exposer = std::move(exposer);   // the destructor stops it before _forwarder goes
}

} } // namespace BlueTusk::Metrics
