//
// ConnectorSubsystem.cpp
//
// Library: BlueTusk/Data
//

#include "BlueTusk/Data/ConnectorSubsystem.h"
#include "BlueTusk/Data/Connector.h"
#include "Poco/Logger.h"
#include "Poco/Util/Application.h"

namespace BlueTusk {
namespace Data {

ConnectorSubsystem::ConnectorSubsystem()
{
}


const char* ConnectorSubsystem::name() const
{
	return "BlueTusk.Data";
}


void ConnectorSubsystem::open(const Poco::Util::AbstractConfiguration& config)
{
	if (_registered || !config.getBool("bluetusk.data.connector", true)) return;
	Connector::registerConnector();
	_registered = true;
	Poco::Logger::get("BlueTusk.Data").information("Poco::Data connector \"%s\" registered", Connector::KEY);
}


void ConnectorSubsystem::close()
{
	if (!_registered) return;
	Connector::unregisterConnector();
	_registered = false;
}


bool ConnectorSubsystem::isRegistered() const
{
	return _registered;
}


void ConnectorSubsystem::initialize(Poco::Util::Application& app)
{
	open(app.config());
}


void ConnectorSubsystem::uninitialize()
{
	close();
}

} } // namespace BlueTusk::Data
