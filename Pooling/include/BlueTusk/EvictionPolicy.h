//
// EvictionPolicy.h
//
// Library: BlueTusk/Pooling
//
// The pool-eviction policy family (doc/plugins.md): which idle sessions to close at pruning time and
// whether a returned session may stay. The standard implementation is a plugin (Plugins/Eviction).
//

#ifndef BlueTusk_EvictionPolicy_INCLUDED
#define BlueTusk_EvictionPolicy_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/ConnectionSettings.h"
#include "Poco/Timestamp.h"
#include "Poco/Timespan.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Pooling_API PooledSessionInfo
	/// What an eviction policy may know of one pooled session. Times come from the pool's clock.
{
	Poco::Timestamp createdAt;     /// when the physical session was opened
	Poco::Timestamp lastReturned;  /// when it last came back to the pool (== createdAt if never used)
	Poco::Timespan lifetime;       /// its maximum lifetime with jitter applied (0: unlimited)
};


struct BlueTusk_Pooling_API PoolSizeInfo
	/// The size of one endpoint pool at the moment of the decision.
{
	int total = 0;   /// idle + busy (sessions being opened count as busy)
	int idle = 0;
	int minSize = 0;
	int maxSize = 0;
};


class BlueTusk_Pooling_API EvictionPolicy
	/// Decides which pooled sessions are closed. Implementations must be thread-safe (const methods, no
	/// shared mutable state): one instance serves every endpoint pool of a data source.
	///
	/// A plugin exports its implementations with POCO_BEGIN_MANIFEST(BlueTusk::EvictionPolicy) and
	/// POCO_EXPORT_INTERFACE(MyPolicy, "my-name"); "Eviction Policy=my-name" selects it.
{
public:
	using Ptr = std::shared_ptr<EvictionPolicy>;

	EvictionPolicy();
	virtual ~EvictionPolicy();

	virtual std::string name() const = 0;
		/// The name a connection string uses to select this policy ("standard").

	virtual bool keepOnReturn(const PooledSessionInfo& session, const PoolSizeInfo& pool,
		const ConnectionSettings& settings, Poco::Timestamp now) const = 0;
		/// Whether a healthy session coming back from a lease may go back to idle (false: it is closed).

	virtual std::vector<std::size_t> selectForEviction(const std::vector<PooledSessionInfo>& idle,
		const PoolSizeInfo& pool, const ConnectionSettings& settings, Poco::Timestamp now) const = 0;
		/// At pruning time: the indexes (into idle, oldest-returned first) of the idle sessions to close.
		/// A policy must not take the pool below its minimum except for sessions past their lifetime.

	virtual Poco::Timespan lifetimeFor(const ConnectionSettings& settings) const;
		/// The maximum lifetime to give a new session. The default applies Connection Lifetime with a
		/// random jitter of up to 10% (never more than 30 s) subtracted, so sessions opened together are
		/// not all retired together; 0 when Connection Lifetime is 0.
};

} // namespace BlueTusk

#endif // BlueTusk_EvictionPolicy_INCLUDED
