//
// ParallelHostOrder.cpp
//
// Plugin: BlueTuskHostOrderPlugin
//

#include "ParallelHostOrder.h"

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
	return plan;
}

} // namespace BlueTusk
