//
// TopologyOnce.cpp
//
// Library: BlueTusk/Routing
//

#include "TopologyOnce.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
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
	}
	catch (...)
	{
		settings.redactor().rethrowCurrent();
	}
	try
	{
		source->configure(location, settings);
	}
	catch (Poco::Exception& exc)
	{
		settings.redactor().rethrow(exc);   // a malformed location (doc/plugins.md, "Topology sources")
	}
	catch (...)
	{
		// Anything else is a failure of the plugin: named like every policy failure, logged once.
		const std::string message = settings.redactor().redact(describePolicy("topology", [&name]() { return name; }, source.get()) +
			" failed in configure(): " + describeThrown(std::current_exception()));
		Poco::Logger::get("BlueTusk.Routing").error(message);
		throw BlueTuskPluginException(message);
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
