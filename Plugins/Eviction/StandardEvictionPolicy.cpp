//
// StandardEvictionPolicy.cpp
//
// Library: BlueTusk/Plugins/Eviction
//

#include "StandardEvictionPolicy.h"

namespace BlueTusk {

StandardEvictionPolicy::StandardEvictionPolicy()
{
}


StandardEvictionPolicy::~StandardEvictionPolicy()
{
}


std::string StandardEvictionPolicy::name() const
{
	return "standard";
}


bool StandardEvictionPolicy::pastLifetime(const PooledSessionInfo& session, Poco::Timestamp now)
{
	return session.lifetime > 0 && now - session.createdAt >= session.lifetime.totalMicroseconds();
}


bool StandardEvictionPolicy::keepOnReturn(const PooledSessionInfo& session, const PoolSizeInfo&,
	const ConnectionSettings&, Poco::Timestamp now) const
{
	return !pastLifetime(session, now);
}


std::vector<std::size_t> StandardEvictionPolicy::selectForEviction(const std::vector<PooledSessionInfo>& idle,
	const PoolSizeInfo& pool, const ConnectionSettings& settings, Poco::Timestamp now) const
{
	std::vector<std::size_t> selected;
	std::vector<bool> taken(idle.size(), false);
	int remaining = pool.total;

	// Retired sessions go whatever the pool size: the warm-up replaces them.
	for (std::size_t i = 0; i < idle.size(); ++i)
	{
		if (pastLifetime(idle[i], now))
		{
			selected.push_back(i);
			taken[i] = true;
			--remaining;
		}
	}

	// Idle-expired sessions, oldest-returned first, only above the minimum.
	const Poco::Timespan::TimeDiff idleLifetime = settings.connectionIdleLifetime.totalMicroseconds();
	if (idleLifetime > 0)
	{
		for (std::size_t i = 0; i < idle.size() && remaining > pool.minSize; ++i)
		{
			if (!taken[i] && now - idle[i].lastReturned >= idleLifetime)
			{
				selected.push_back(i);
				--remaining;
			}
		}
	}
	return selected;
}

} // namespace BlueTusk
