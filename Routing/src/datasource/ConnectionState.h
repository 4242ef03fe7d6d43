//
// ConnectionState.h
//
// Library: BlueTusk/Routing
//
// What a BlueTuskConnection holds: the pool entry of its session and what keeps the owning pool alive.
//

#ifndef BlueTusk_Detail_ConnectionState_INCLUDED
#define BlueTusk_Detail_ConnectionState_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/HostAttemptsException.h"
#include "router/HostStateRegistry.h"
#include "BlueTusk/PoolManager.h"
#include <memory>

namespace BlueTusk {
namespace Detail {

struct ConnectionState
	/// What a routed open (BlueTuskDataSource::open() past its idle fast path, or an unpooled
	/// BlueTuskConnection::open()) produces: the lease and what the connection must own besides it. The
	/// BlueTuskConnection takes entry and owner out of it and keeps the rest (settings, attempt log and
	/// an unpooled connection's PoolManager) for as long as it lives.
{
	std::shared_ptr<PoolManager> manager;          /// an unpooled connection's one-endpoint manager (owns the
	                                               /// entry's pool), or null; let go by close()
	std::shared_ptr<void> owner;                   /// a lease: the data source state, which owns the pool
	std::shared_ptr<const ConnectionSettings> settings;
	PoolEntryPtr entry;
	HostAttemptList attempts;
	bool pooled = false;
	HostStateRegistry* hostStates = nullptr;       /// the connector's, for what the connection learns later

	ConnectionState() {}
		/// User-provided on purpose: make_unique then runs the member initializers only, without first
		/// zero-filling the whole object.

private:
	ConnectionState(const ConnectionState&) = delete;
	ConnectionState& operator = (const ConnectionState&) = delete;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ConnectionState_INCLUDED
