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
#include "BlueTusk/HostAttempt.h"
#include "BlueTusk/PoolManager.h"
#include <memory>

namespace BlueTusk {
namespace Detail {

struct ConnectionState
	/// The session of one BlueTuskConnection as a PoolEntry of its owning EndpointPool (unpooled
	/// connections use a PoolManager that keeps nothing idle). release() returns the entry to that pool.
{
	std::shared_ptr<PoolManager> manager;          /// keeps the owning pool alive while the entry is out (or
	                                               /// owner does: the idle fast path sets only owner)
	std::shared_ptr<void> owner;                   /// keeps the data source state alive (leases), or null
	std::shared_ptr<const ConnectionSettings> settings;
	PoolEntryPtr entry;
	BlueTuskHostEndpoint endpoint;
	HostAttemptList attempts;
	std::shared_ptr<const HostAttemptList> sharedAttempts; /// if set, the attempt log instead of attempts: a
	                                               /// prebuilt one-entry log of the idle fast path (no copy)
	bool pooled = false;

	ConnectionState() = default;
	~ConnectionState();

	void release() noexcept;
		/// Hands the entry back to its pool (broken sessions are discarded there). Idempotent.

private:
	ConnectionState(const ConnectionState&) = delete;
	ConnectionState& operator = (const ConnectionState&) = delete;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ConnectionState_INCLUDED
