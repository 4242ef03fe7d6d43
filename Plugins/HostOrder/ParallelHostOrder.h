//
// ParallelHostOrder.h
//
// Plugin: BlueTuskHostOrderPlugin
//

#ifndef BlueTusk_ParallelHostOrder_INCLUDED
#define BlueTusk_ParallelHostOrder_INCLUDED

#include "BlueTusk/HostOrderPolicy.h"

namespace BlueTusk {

class ParallelHostOrder: public HostOrderPolicy
	/// "parallel": every endpoint attempted at once (concurrency = number of endpoints); the router takes the
	/// first Accept, holds a Fallback until every attempt ended, and cancels or pools the losers
	/// (DESIGN.md section 4). The order (as written) decides only the order of the attempt log.
	/// Stateless, thread-safe.
{
public:
	std::string name() const override;
	HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const override;
};

} // namespace BlueTusk

#endif // BlueTusk_ParallelHostOrder_INCLUDED
