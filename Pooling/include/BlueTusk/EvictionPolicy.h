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
#include "Poco/Util/AbstractConfiguration.h"
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
	unsigned returns = 0;          /// how many times it came back to the pool from a checkout, the return being
	                               /// decided included (keepOnReturn() sees 1 after its first lease): each
	                               /// lease, and each time a router opened or reused it and passed it over
	                               /// (a role its target rejected). Its age is now - createdAt.
	Poco::UInt64 sessionId = 0;    /// Session::sessionId() of the physical session: unique in the process,
	                               /// stable across its leases (0 for a session implementation without ids)
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
	///
	/// Where the calls run: keepOnReturn() on the thread ending the lease, selectForEviction() on the
	/// pools' pruning thread, lifetimeFor() on the thread opening a session (doc/plugins.md).
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

	virtual void configure(const Poco::Util::AbstractConfiguration& config);
		/// Policy properties, as HostOrderPolicy::configure() receives them (the view of
		/// bluetusk.dataSources.<name>.policy.* in the subsystem), once, before the data source and its
		/// pools are created. Throw a Poco::Exception to refuse them. The default ignores them.
};

} // namespace BlueTusk

#endif // BlueTusk_EvictionPolicy_INCLUDED
