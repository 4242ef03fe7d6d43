//
// EvictionPolicy.cpp
//
// Library: BlueTusk/Pooling
//

#include "BlueTusk/EvictionPolicy.h"
#include <algorithm>
#include <random>

namespace BlueTusk {

namespace {

Poco::Timespan::TimeDiff randomMicroseconds(Poco::Timespan::TimeDiff upTo)
	/// A uniformly distributed value in [0, upTo]. Each thread has its own generator, so this is
	/// thread-safe without a lock.
{
	if (upTo <= 0) return 0;
	thread_local std::mt19937_64 generator(std::random_device{}());
	std::uniform_int_distribution<Poco::Timespan::TimeDiff> distribution(0, upTo);
	return distribution(generator);
}

} // namespace


EvictionPolicy::EvictionPolicy()
{
}


EvictionPolicy::~EvictionPolicy()
{
}


Poco::Timespan EvictionPolicy::lifetimeFor(const ConnectionSettings& settings) const
{
	const Poco::Timespan::TimeDiff lifetime = settings.connectionLifetime.totalMicroseconds();
	if (lifetime <= 0) return Poco::Timespan(0);
	const Poco::Timespan::TimeDiff maxJitter = std::min<Poco::Timespan::TimeDiff>(lifetime / 10, 30 * Poco::Timespan::SECONDS);
	return Poco::Timespan(lifetime - randomMicroseconds(maxJitter));
}



void EvictionPolicy::configure(const Poco::Util::AbstractConfiguration&)
{
}

} // namespace BlueTusk
