//
// Connector.cpp
//
// Library: BlueTusk/Data
//

#include "BlueTusk/Data/Connector.h"
#include "SessionImpl.h"
#include "DataSourceRegistry.h"
#include "Poco/Data/SessionFactory.h"

namespace BlueTusk {
namespace Data {

const std::string Connector::KEY("bluetusk");


Connector::Connector()
{
}


Connector::~Connector()
{
}


const std::string& Connector::name() const
{
	return KEY;
}


Poco::AutoPtr<Poco::Data::SessionImpl> Connector::createSession(const std::string& connectionString, std::size_t timeout)
{
	return Poco::AutoPtr<Poco::Data::SessionImpl>(new SessionImpl(connectionString, timeout));
}


void Connector::registerConnector()
{
	Poco::Data::SessionFactory::instance().add(new Connector);
}


void Connector::unregisterConnector()
{
	Poco::Data::SessionFactory::instance().remove(KEY);
	Detail::DataSourceRegistry::instance().clear();
}

} } // namespace BlueTusk::Data
