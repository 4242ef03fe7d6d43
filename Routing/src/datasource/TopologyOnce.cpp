//
// TopologyOnce.cpp
//
// Library: BlueTusk/Routing
//

#include "TopologyOnce.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

void splitTopologySource(const std::string& value, std::string& name, std::string& location)
{
	const std::string::size_type colon = value.find(':');
	name = value.substr(0, colon);
	location = colon == std::string::npos ? std::string() : value.substr(colon + 1);
}


TopologySource::Ptr createTopologySource(const ConnectionSettings& settings, RoutingContext& connector)
{
	std::string name;
	std::string location;
	splitTopologySource(settings.topologySource, name, location);
	TopologySource::Ptr source;
	try
	{
		source = connector.createTopologySource(name);
		source->configure(location, settings);
	}
	catch (...)
	{
		settings.redactor().rethrowCurrent();
	}
	return source;
}


HostListPtr readTopologyOnce(const ConnectionSettings& settings, RoutingContext& connector)
{
	if (settings.topologySource.empty()) return nullptr;
	TopologySource::Ptr source = createTopologySource(settings, connector);
	const Poco::Timespan limit(5, 0);
	const Poco::Timespan timeout = settings.connectTimeout.totalMicroseconds() > 0 ? std::min(settings.connectTimeout, limit) : limit;
	TopologySnapshot snapshot;
	try
	{
		snapshot = source->read(timeout);
	}
	catch (Poco::Exception& exc)
	{
		source->close();
		Poco::Logger::get("BlueTusk.Routing").warning("%s", settings.redactor().redact(
			"Topology Source could not be read (" + exc.displayText() + "); this open uses the written hosts " + settings.hostList()));
		return nullptr;
	}
	source->close();
	auto list = std::make_shared<HostListSnapshot>();
	for (const TopologyMember& member: snapshot.members)
	{
		if (list->contains(member.endpoint)) continue;
		list->endpoints.push_back(member.endpoint);
		list->roleHints[member.endpoint] = member.role;
	}
	for (const BlueTuskHostEndpoint& endpoint: settings.endpoints)
	{
		if (!list->contains(endpoint)) list->endpoints.push_back(endpoint);
	}
	list->readAt = snapshot.readAt;
	return list;
}

} } // namespace BlueTusk::Detail
