//
// ParallelHostOrder.cpp
//
// Plugin: BlueTuskHostOrderPlugin
//

#include "ParallelHostOrder.h"
#include "Poco/Exception.h"
#include "Poco/NumberParser.h"

namespace BlueTusk {

std::string ParallelHostOrder::name() const
{
	return "parallel";
}


HostOrderPlan ParallelHostOrder::plan(const std::vector<HostCandidate>& candidates) const
{
	HostOrderPlan plan;
	for (std::size_t i = 0; i < candidates.size(); ++i) plan.order.push_back(i);
	plan.concurrency = candidates.empty() ? 1 : candidates.size();
	plan.startupStagger = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(_startupStaggerUs.load()));
	plan.connectStagger = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(_connectStaggerUs.load()));
	return plan;
}


void ParallelHostOrder::configure(const Poco::Util::AbstractConfiguration& config)
{
	// Everything is checked before anything is applied: a bad value leaves the policy as it was.
	Poco::Util::AbstractConfiguration::Keys keys;
	config.keys(keys);
	for (const std::string& key: keys)
	{
		if (key != "startupStaggerMs" && key != "connectStaggerMs")
			throw Poco::InvalidArgumentException("unknown property \"" + key + "\" for the parallel host order (known: startupStaggerMs, connectStaggerMs)");
	}
	auto microseconds = [&config](const std::string& name, long current) -> long
	{
		if (!config.has(name)) return current;
		double value = -1;
		if (!Poco::NumberParser::tryParseFloat(config.getString(name), value)) value = -1;
		if (!(value >= 0 && value <= 60000))
			throw Poco::InvalidArgumentException(name + " must be between 0 and 60000 milliseconds, not " + config.getString(name));
		return static_cast<long>(value * 1000);
	};
	const long startup = microseconds("startupStaggerMs", _startupStaggerUs.load());
	const long connect = microseconds("connectStaggerMs", _connectStaggerUs.load());
	_startupStaggerUs = startup;
	_connectStaggerUs = connect;
}

} // namespace BlueTusk
