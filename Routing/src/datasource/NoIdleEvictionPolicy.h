//
// NoIdleEvictionPolicy.h
//
// Library: BlueTusk/Routing
//
// The eviction policy of the pools behind an unpooled BlueTuskConnection::open(): nothing stays idle.
//

#ifndef BlueTusk_Detail_NoIdleEvictionPolicy_INCLUDED
#define BlueTusk_Detail_NoIdleEvictionPolicy_INCLUDED

#include "BlueTusk/EvictionPolicy.h"

namespace BlueTusk {
namespace Detail {

class NoIdleEvictionPolicy: public EvictionPolicy
	/// Keeps no returned session and evicts every idle one. Built in (not a plugin) so that an unpooled
	/// open does not depend on the eviction plugin library. Stateless, thread-safe.
{
public:
	std::string name() const override;
	bool keepOnReturn(const PooledSessionInfo& session, const PoolSizeInfo& pool,
		const ConnectionSettings& settings, Poco::Timestamp now) const override;
	std::vector<std::size_t> selectForEviction(const std::vector<PooledSessionInfo>& idle,
		const PoolSizeInfo& pool, const ConnectionSettings& settings, Poco::Timestamp now) const override;
	Poco::Timespan lifetimeFor(const ConnectionSettings& settings) const override;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_NoIdleEvictionPolicy_INCLUDED
