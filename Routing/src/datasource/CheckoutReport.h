//
// CheckoutReport.h
//
// Library: BlueTusk/Routing
//
// What a data source checkout tells its PoolObserver (doc/metrics.md): kept out of the checkout code so
// that an observer costs the checkout one pointer test when none is installed.
//

#ifndef BlueTusk_Detail_CheckoutReport_INCLUDED
#define BlueTusk_Detail_CheckoutReport_INCLUDED

#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/PoolObserver.h"
#include "router/Router.h"

namespace BlueTusk {
namespace Detail {

inline void reportIdleCheckout(PoolObserver& observer, PoolEntry& entry)
	/// The idle fast path handed out entry: the lease's start is kept in it, the checkout is reported with
	/// its return (PoolObserver::sessionUsed()).
{
	entry.leasedAt = observer.ticks();
	entry.idleCheckout = true;
}

PoolEntryPtr routeObserved(PoolObserver& observer, const Router::Request& request, HostAttemptList& log);
	/// Router(request).route(log), then every attempt it appended reported by outcome, the failover waits
	/// between its passes, and (on success) the wait since the call and the lease's start; on failure the
	/// attempts and waits are reported and the exception propagates.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_CheckoutReport_INCLUDED
