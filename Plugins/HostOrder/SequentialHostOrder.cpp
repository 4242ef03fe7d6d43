//
// SequentialHostOrder.cpp
//
// Plugin: BlueTuskHostOrderPlugin
//

#include "SequentialHostOrder.h"

namespace BlueTusk {

std::string SequentialHostOrder::name() const
{
	return "sequential";
}


HostOrderPlan SequentialHostOrder::plan(const std::vector<HostCandidate>& candidates) const
{
	HostOrderPlan plan;
	for (std::size_t i = 0; i < candidates.size(); ++i) plan.order.push_back(i);
	plan.concurrency = 1;
	return plan;
}

} // namespace BlueTusk
