//
// ParallelHostOrder.h
//
// Plugin: BlueTuskHostOrderPlugin
//

#ifndef BlueTusk_ParallelHostOrder_INCLUDED
#define BlueTusk_ParallelHostOrder_INCLUDED

#include "BlueTusk/HostOrderPolicy.h"
#include <atomic>

namespace BlueTusk {

class ParallelHostOrder: public HostOrderPolicy
	/// "parallel": every endpoint attempted at once (concurrency = number of endpoints); the router takes the
	/// first Accept, holds a Fallback until every attempt ended, and cancels or pools the losers
	/// (DESIGN.md section 4). The order (as written) decides only the order of the attempt log.
	///
	/// Every TCP connect starts at once; the startups that follow are paced with a stagger (default
	/// 250 ms, RFC 8305's connection attempt delay): the first connected attempt runs its startup alone
	/// unless it fails, is rejected or takes longer than the stagger (doc/routing.md, "parallel").
	/// Thread-safe.
{
public:
	static constexpr long DEFAULT_STARTUP_STAGGER_MS = 250;

	std::string name() const override;
	HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const override;

	void configure(const Poco::Util::AbstractConfiguration& config) override;
		/// "startupStaggerMs": the stagger in milliseconds (0: every startup at once, a plain race).
		/// Throws Poco::InvalidArgumentException for a negative value or one above 60000.

private:
	std::atomic<long> _startupStaggerMs{DEFAULT_STARTUP_STAGGER_MS};
};

} // namespace BlueTusk

#endif // BlueTusk_ParallelHostOrder_INCLUDED
