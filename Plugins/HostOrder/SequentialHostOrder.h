//
// SequentialHostOrder.h
//
// Plugin: BlueTuskHostOrderPlugin
//

#ifndef BlueTusk_SequentialHostOrder_INCLUDED
#define BlueTusk_SequentialHostOrder_INCLUDED

#include "BlueTusk/HostOrderPolicy.h"

namespace BlueTusk {

class SequentialHostOrder: public HostOrderPolicy
	/// "sequential": the endpoints in the order written, one attempt at a time (libpq's default,
	/// PostgreSQL docs 34.1.1.3 "Specifying Multiple Hosts"). Stateless, thread-safe.
{
public:
	std::string name() const override;
	HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const override;
};

} // namespace BlueTusk

#endif // BlueTusk_SequentialHostOrder_INCLUDED
