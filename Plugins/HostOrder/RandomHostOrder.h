//
// RandomHostOrder.h
//
// Plugin: BlueTuskHostOrderPlugin
//

#ifndef BlueTusk_RandomHostOrder_INCLUDED
#define BlueTusk_RandomHostOrder_INCLUDED

#include "BlueTusk/HostOrderPolicy.h"
#include <mutex>
#include <random>

namespace BlueTusk {

class RandomHostOrder: public HostOrderPolicy
	/// "random" (also selected by Load Balance Hosts=true): a fresh uniform shuffle of the endpoints for every
	/// new physical connection, one attempt at a time (libpq's load_balance_hosts=random, PostgreSQL docs
	/// 34.1.2). The generator is seeded from std::random_device, or from the "seed" property given to
	/// configure() (tests). Thread-safe (the generator is guarded by a mutex).
{
public:
	RandomHostOrder();
	std::string name() const override;
	HostOrderPlan plan(const std::vector<HostCandidate>& candidates) const override;
	void configure(const Poco::Util::AbstractConfiguration& config) override;
		/// "seed" (unsigned integer): reseeds the generator, for reproducible orders.

private:
	mutable std::mutex _mutex;
	mutable std::mt19937_64 _generator;
};

} // namespace BlueTusk

#endif // BlueTusk_RandomHostOrder_INCLUDED
