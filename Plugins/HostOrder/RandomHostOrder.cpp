//
// RandomHostOrder.cpp
//
// Plugin: BlueTuskHostOrderPlugin
//

#include "RandomHostOrder.h"
#include <algorithm>

namespace BlueTusk {

RandomHostOrder::RandomHostOrder():
	_generator(std::random_device()())
{
}


std::string RandomHostOrder::name() const
{
	return "random";
}


HostOrderPlan RandomHostOrder::plan(const std::vector<HostCandidate>& candidates) const
{
	HostOrderPlan plan;
	for (std::size_t i = 0; i < candidates.size(); ++i) plan.order.push_back(i);
	{
		std::lock_guard<std::mutex> lock(_mutex);
		// Fisher-Yates with uniform_int_distribution: every permutation equally likely.
		for (std::size_t i = plan.order.size(); i > 1; --i)
		{
			std::uniform_int_distribution<std::size_t> pick(0, i - 1);
			std::swap(plan.order[i - 1], plan.order[pick(_generator)]);
		}
	}
	plan.concurrency = 1;
	return plan;
}


void RandomHostOrder::configure(const Poco::Util::AbstractConfiguration& config)
{
	if (config.has("seed"))
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_generator.seed(config.getUInt64("seed"));
	}
}

} // namespace BlueTusk
