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


} // namespace


PoolEntryPtr routeObserved(PoolObserver& observer, const Router::Request& request, HostAttemptList& log)
{
	const std::int64_t started = observer.clock();
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
	if (entry)
	{
		entry->leasedAt = observer.checkoutWaited(entry->pool->endpoint(), started);
		entry->idleCheckout = false;
	}
	return entry;
}

} } // namespace BlueTusk::Detail
