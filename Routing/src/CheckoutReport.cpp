//
// CheckoutReport.cpp
//
// Library: BlueTusk/Routing
//

#include "CheckoutReport.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

namespace {

void reportAttempts(PoolObserver& observer, const HostAttemptList& log, std::size_t first)
{
	int passes = 0;
	for (std::size_t i = first; i < log.size(); ++i)
	{
		observer.routeAttempt(log[i].endpoint, static_cast<int>(log[i].outcome));
		passes = std::max(passes, log[i].pass);
	}
	if (passes > 1) observer.failoverWaited(passes - 1);
}


void startLease(PoolObserver& observer, PoolEntry& entry, double started)
{
	const double now = PoolObserver::coarseSeconds();
	entry.leasedAt = now > 0 ? now : 1e-9;
	observer.checkoutWaited(entry.pool->endpoint(), now - started);
}

} // namespace


void reportIdleCheckout(PoolObserver& observer, PoolEntry& entry, double started)
{
	observer.routeAttempt(entry.pool->endpoint(), HostAttempt::ACCEPTED);
	startLease(observer, entry, started);
}


PoolEntryPtr routeObserved(PoolObserver& observer, const Router::Request& request, HostAttemptList& log, double started)
{
	const std::size_t first = log.size();
	PoolEntryPtr entry;
	try
	{
		entry = Router(request).route(log);
	}
	catch (...)
	{
		reportAttempts(observer, log, first);
		throw;
	}
	reportAttempts(observer, log, first);
	if (entry) startLease(observer, *entry, started);
	return entry;
}

} } // namespace BlueTusk::Detail
