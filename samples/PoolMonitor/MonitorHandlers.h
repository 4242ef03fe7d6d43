//
// MonitorHandlers.h
//
// bluetusk-pool-monitor: the HTTP endpoints (/, /stats, /query, /metrics).
//

#ifndef BlueTusk_Samples_MonitorHandlers_INCLUDED
#define BlueTusk_Samples_MonitorHandlers_INCLUDED

#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "Poco/JSON/Object.h"
#include "Poco/Net/HTTPRequestHandler.h"
#include "Poco/Net/HTTPRequestHandlerFactory.h"
#include <functional>
#include <string>

namespace BlueTusk {
namespace Samples {

struct MonitorContext
	/// What every handler needs: the subsystem holding the data sources, and which one to use when a
	/// request does not say (?dataSource=name).
{
	DataSourceSubsystem& subsystem;
	std::string defaultDataSource;
	std::function<std::string()> metrics;   /// the Prometheus text exposition (BlueTusk::Metrics); empty: /metrics is 404
};


Poco::JSON::Object::Ptr monitorStats(const MonitorContext& context, const std::string& name);
	/// {"event":"stats","dataSource":name,"connectionString":"...Password=***","aggregate":{...},
	///  "hosts":{endpoint:{...,"role":..}},"learned":{endpoint:{"state":"up","role":"primary","age_ms":12.5,"reason":""}}}
	/// Throws Poco::NotFoundException for an unknown data source.


class MonitorRequestHandlerFactory: public Poco::Net::HTTPRequestHandlerFactory
	/// Routes GET / (HTML page), /stats (JSON), /query?sql=..&target=..&dataSource=.. (JSON), /metrics
	/// (Prometheus text format, when MonitorContext::metrics is set); anything else 404.
{
public:
	explicit MonitorRequestHandlerFactory(const MonitorContext& context);
	Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

private:
	MonitorContext _context;
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_MonitorHandlers_INCLUDED
