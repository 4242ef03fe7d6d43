//
// StandardEvictionPolicy.h
//
// Library: BlueTusk/Plugins/Eviction
//
// The standard pool-eviction policy (doc/pooling.md and doc/plugins.md), exported as "standard".
//

#ifndef BlueTusk_StandardEvictionPolicy_INCLUDED
#define BlueTusk_StandardEvictionPolicy_INCLUDED

#include "BlueTusk/EvictionPolicy.h"

namespace BlueTusk {

class StandardEvictionPolicy: public EvictionPolicy
	/// Connection Lifetime and Connection Idle Lifetime, the way Npgsql applies them:
	///   - a session older than its lifetime (Connection Lifetime minus the jitter from lifetimeFor()) is
	///     closed when it returns and at pruning time, whatever the pool size;
	///   - an idle session that has not been used for Connection Idle Lifetime is closed at pruning time,
	///     oldest-returned first, but only while the pool keeps at least Minimum Pool Size sessions
	///     (busy ones included). Connection Idle Lifetime 0 disables this rule.
	/// Stateless, so thread-safe.
{
public:
	StandardEvictionPolicy();
	~StandardEvictionPolicy() override;

	std::string name() const override;
		/// "standard".

	bool keepOnReturn(const PooledSessionInfo& session, const PoolSizeInfo& pool,
		const ConnectionSettings& settings, Poco::Timestamp now) const override;
		/// False once the session is past its lifetime.

	std::vector<std::size_t> selectForEviction(const std::vector<PooledSessionInfo>& idle,
		const PoolSizeInfo& pool, const ConnectionSettings& settings, Poco::Timestamp now) const override;
		/// Every idle session past its lifetime, then idle-expired ones while total stays >= minSize.

	static bool pastLifetime(const PooledSessionInfo& session, Poco::Timestamp now);
		/// Whether session has a lifetime and has lived that long.
};

} // namespace BlueTusk

#endif // BlueTusk_StandardEvictionPolicy_INCLUDED
