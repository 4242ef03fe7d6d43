//
// Rebalancer.h
//
// Library: BlueTusk/Routing
//
// Storm control's rebalancing (doc/high-availability.md, "Storm control"): with Host Order=random, idle
// sessions move from the most loaded endpoint of a role to the least loaded one of the same role (a standby
// that came back, or joined), at the pruning interval, paced by Max Connecting.
//

#ifndef BlueTusk_Detail_Rebalancer_INCLUDED
#define BlueTusk_Detail_Rebalancer_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "router/HostStateRegistry.h"
#include "BlueTusk/PoolManager.h"
#include <memory>

namespace BlueTusk {
namespace Detail {

class Rebalancer
	/// One rebalancing pass over a data source's pools, run by the PoolManager's pruning thread through
	/// PoolManager::setPruningHook(). The rule, per role (the pool's last known role, else the host states'
	/// learned one), over the pools that do not drain:
	///   - the receiver is the pool with the fewest sessions (idle + busy) not known down (Host Recheck
	///     Seconds), the donor the one with the most that has an idle session;
	///   - while donor.total - receiver.total > 1: open one session at the receiver and keep it idle
	///     (EndpointPool::openIdle(): Max Connecting and a 53300 backoff apply), then close one idle session
	///     of the donor, so the data source keeps its total and never closes a busy session;
	///   - at most Max Connecting moves per role and pass (0: until balanced); an open that fails (other
	///     than with 53300) marks the receiver down; a receiver that could not open is not used again in the
	///     pass, and the donor keeps its sessions.
	/// A pool whose role is not known yet may receive (its first session tells its role); when that role
	/// turns out to be another one, the donor closes nothing.
{
public:
	Rebalancer(std::shared_ptr<const ConnectionSettings> settings, HostStateRegistry& hostStates);

	void operator () (PoolManager& manager) const;
		/// One pass; opens and closes sessions outside the manager's lock. Never throws.

	static bool appliesTo(const std::string& hostOrder);
		/// Whether a data source with this Host Order rebalances: "random" (load balancing) only; a
		/// sequential or parallel order means the first endpoints are preferred on purpose.

private:
	std::shared_ptr<const ConnectionSettings> _settings;
	HostStateRegistry& _hostStates;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_Rebalancer_INCLUDED
