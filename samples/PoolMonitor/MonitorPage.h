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
	/// One table per data source: each endpoint with its learned state and role and its pool counters, the
	/// aggregate, and a form that runs a query through /query. Refreshes itself every 5 seconds.

std::string htmlEscape(const std::string& text);
	/// text with & < > " ' escaped.

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_MonitorPage_INCLUDED
