//
// MonitorPage.h
//
// bluetusk-pool-monitor: the readable HTML page.
//

#ifndef BlueTusk_Samples_MonitorPage_INCLUDED
#define BlueTusk_Samples_MonitorPage_INCLUDED

#include "MonitorHandlers.h"
#include <string>

namespace BlueTusk {
namespace Samples {

std::string renderMonitorPage(const MonitorContext& context);
	/// One table per data source: each endpoint with its learned state and role (the host states' role,
	/// else the pool's last known one) and its pool counters, the aggregate, and a form that runs a query
	/// through /query. Its script follows /stats every second without reloading, runs the form with fetch
	/// into #result, and runs it at once when the page's URL carries ?sql=...&target=...&dataSource=...

std::string htmlEscape(const std::string& text);
	/// text with & < > " ' escaped.

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_MonitorPage_INCLUDED
