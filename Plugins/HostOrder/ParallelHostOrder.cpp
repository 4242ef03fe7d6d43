//
// ParallelHostOrder.cpp
//
// Plugin: BlueTuskHostOrderPlugin
//

#include "ParallelHostOrder.h"
#include "Poco/Exception.h"

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
	return plan;
}


void ParallelHostOrder::configure(const Poco::Util::AbstractConfiguration& config)
{
	if (!config.has("startupStaggerMs")) return;
	const long value = config.getInt64("startupStaggerMs");
	if (value < 0 || value > 60000)
		throw Poco::InvalidArgumentException("startupStaggerMs must be between 0 and 60000 milliseconds, not " + std::to_string(value));
	_startupStaggerMs = value;
}

} // namespace BlueTusk
