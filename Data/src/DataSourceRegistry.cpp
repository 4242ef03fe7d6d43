//
// DataSourceRegistry.cpp
//
// Library: BlueTusk/Data
//

#include "DataSourceRegistry.h"
#include "BlueTusk/Connector.h"

namespace BlueTusk {
namespace Data {
namespace Detail {

DataSourceRegistry& DataSourceRegistry::instance()
{
	static DataSourceRegistry registry;
	return registry;
}


BlueTuskDataSource::Ptr DataSourceRegistry::get(const std::string& connectionString, std::size_t loginTimeoutSeconds)
{
	const std::string key = connectionString + '\x1f' + std::to_string(loginTimeoutSeconds);
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _dataSources.find(key);
	if (it != _dataSources.end()) return it->second;
	ConnectionSettings settings = ConnectionSettings::parse(connectionString);
	const Poco::Timespan login(static_cast<long>(loginTimeoutSeconds), 0);
	if (loginTimeoutSeconds > 0 && (settings.checkoutTimeout.totalMicroseconds() == 0 || login < settings.checkoutTimeout))
		settings.checkoutTimeout = login;
	BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(settings, Connector::defaultConnector());
	_dataSources.emplace(key, dataSource);
	return dataSource;
}


void DataSourceRegistry::clear()
{
	std::map<std::string, BlueTuskDataSource::Ptr> dataSources;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		dataSources.swap(_dataSources);
	}
	for (auto& entry: dataSources) entry.second->drain();
}


std::size_t DataSourceRegistry::size() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _dataSources.size();
}

} } } // namespace BlueTusk::Data::Detail
