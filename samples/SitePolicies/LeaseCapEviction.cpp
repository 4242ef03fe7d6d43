//
// LeaseCapEviction.cpp
//
// Sample plugin: BlueTuskLeaseCapEvictionPlugin (doc/site-plugins.md, "lease-cap (eviction)")
//
// The eviction policy "lease-cap": a pooled session is closed when it comes back from its maxLeases-th
// checkout (PooledSessionInfo::returns), so that no backend serves more than maxLeases leases (a site whose
// backends grow with use). Otherwise it keeps the pool's usual rules: a session past its lifetime is
// closed, and at pruning time idle sessions past Connection Idle Lifetime go while the pool stays at or
// above Minimum Pool Size.
//
// Configuration (bluetusk.dataSources.<name>.policy.*):
//   maxLeases = 1000        leases per session (default 1000; 1 or more)
//
// Selected with Eviction Policy=lease-cap once the library is loaded (Plugin Path, bluetusk.plugins).
//

#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include "Poco/Exception.h"
#include <atomic>

namespace {

class LeaseCapEviction: public BlueTusk::EvictionPolicy
{
public:
	std::string name() const override
	{
		return "lease-cap";
	}

	bool keepOnReturn(const BlueTusk::PooledSessionInfo& session, const BlueTusk::PoolSizeInfo&,
		const BlueTusk::ConnectionSettings&, Poco::Timestamp now) const override
	{
		// On the thread ending the lease: session.returns counts this return.
		return session.returns < _maxLeases.load(std::memory_order_relaxed) && !expired(session, now);
	}

	std::vector<std::size_t> selectForEviction(const std::vector<BlueTusk::PooledSessionInfo>& idle,
		const BlueTusk::PoolSizeInfo& pool, const BlueTusk::ConnectionSettings& settings, Poco::Timestamp now) const override
	{
		// On the pools' pruning thread; idle is oldest-returned first.
		std::vector<std::size_t> selected;
		int kept = pool.total;
		const Poco::Timespan::TimeDiff idleLimit = settings.connectionIdleLifetime.totalMicroseconds();
		for (std::size_t i = 0; i < idle.size(); ++i)
		{
			const bool idleTooLong = idleLimit > 0 && now - idle[i].lastReturned >= idleLimit && kept > pool.minSize;
			if (expired(idle[i], now) || idleTooLong)
			{
				selected.push_back(i);
				--kept;
			}
		}
		return selected;
	}

	void configure(const Poco::Util::AbstractConfiguration& config) override
	{
		const int maxLeases = config.getInt("maxLeases", 1000);
		if (maxLeases < 1) throw Poco::InvalidArgumentException("maxLeases must be 1 or more, not " + config.getString("maxLeases"));
		_maxLeases.store(static_cast<unsigned>(maxLeases), std::memory_order_relaxed);
	}

private:
	static bool expired(const BlueTusk::PooledSessionInfo& session, Poco::Timestamp now)
	{
		return session.lifetime > 0 && now - session.createdAt >= session.lifetime.totalMicroseconds();
	}

	std::atomic<unsigned> _maxLeases{1000};
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::EvictionPolicy)
	POCO_EXPORT_INTERFACE(LeaseCapEviction, "lease-cap")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
