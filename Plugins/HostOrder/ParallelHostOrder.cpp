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
	plan.startupStagger = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(_startupStaggerMs.load()) * 1000);
	plan.connectStagger = Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(_connectStaggerUs.load()));
	return plan;
}


void ParallelHostOrder::configure(const Poco::Util::AbstractConfiguration& config)
{
	auto milliseconds = [&config](const std::string& name) -> double
	{
		double value = -1;
		if (!Poco::NumberParser::tryParseFloat(config.getString(name), value)) value = -1;
		if (!(value >= 0 && value <= 60000))
			throw Poco::InvalidArgumentException(name + " must be between 0 and 60000 milliseconds, not " + config.getString(name));
		return value;
	};
	if (config.has("startupStaggerMs")) _startupStaggerMs = static_cast<long>(milliseconds("startupStaggerMs"));
	if (config.has("connectStaggerMs")) _connectStaggerUs = static_cast<long>(milliseconds("connectStaggerMs") * 1000);
}

} // namespace BlueTusk
