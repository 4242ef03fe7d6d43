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
	/// (doc/routing.md). The order (as written) decides only the order of the attempt log.
	///
	/// The attempts are paced (doc/routing.md, "Startup stagger"): TCP connects begin 1 ms apart in host
	/// order, and the first connected attempt runs its startup alone until it fails, is classified and the
	/// race goes on, or has taken the stagger (250 ms, RFC 8305's connection attempt delay); meanwhile no
	/// other server is connected to for nothing. Thread-safe.
{
public:
	static constexpr long DEFAULT_STARTUP_STAGGER_US = 250000;
	static constexpr long DEFAULT_CONNECT_STAGGER_US = 1000;

	std::string name() const override;
	HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const override;

	void configure(const Poco::Util::AbstractConfiguration& config) override;
		/// "startupStaggerMs": the startup stagger in milliseconds (0: a plain race, every attempt connects
		/// and starts at once); "connectStaggerMs": the interval between TCP connects in milliseconds
		/// (0: all at once); decimals are allowed in both (0.5). Throws Poco::InvalidArgumentException,
		/// leaving the policy unchanged, for a value that is not a number from 0 to 60000 or for any other
		/// property name (a misspelt one would otherwise be ignored).

private:
	std::atomic<long> _startupStaggerUs{DEFAULT_STARTUP_STAGGER_US};
	std::atomic<long> _connectStaggerUs{DEFAULT_CONNECT_STAGGER_US};
};

} // namespace BlueTusk

#endif // BlueTusk_ParallelHostOrder_INCLUDED
