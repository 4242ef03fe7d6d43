//
// DataSourceRegistry.cpp
//
// Library: BlueTusk/Data
//

#include "DataSourceRegistry.h"
#include "BlueTusk/RoutingContext.h"

namespace BlueTusk {
namespace Data {
namespace Detail {

DataSourceRegistry& DataSourceRegistry::instance()
{
	static DataSourceRegistry registry;
	return registry;
}


DataSourceRegistry::Lookup DataSourceRegistry::get(const std::string& connectionString, std::size_t loginTimeoutSeconds)
{
	const std::string key = connectionString + '\x1f' + std::to_string(loginTimeoutSeconds);
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _byString.find(key);
	if (it != _byString.end()) return it->second;

	ConnectionSettings settings = ConnectionSettings::parse(connectionString);
	const Poco::Timespan login(static_cast<long>(loginTimeoutSeconds), 0);
	// The login timeout bounds the whole open (doc/poco-data.md, Sessions): the wait for capacity, each connect
	// attempt, and the wait for an acceptable server (a trial waited the whole Failover Timeout=30 with a login
	// timeout of 1 s). Failover Timeout=0 (one pass) stays 0.
	if (loginTimeoutSeconds > 0)
	{
		for (Poco::Timespan* bound: {&settings.checkoutTimeout, &settings.connectTimeout})
			if (bound->totalMicroseconds() == 0 || login < *bound) *bound = login;
		if (settings.failoverTimeout > login) settings.failoverTimeout = login;
	}
	Lookup lookup;
	lookup.target = settings.targetSessionAttributes;
	lookup.targetPolicy = settings.targetSessionPolicy;
	// a writer (read-write) and a reader (prefer-standby) must share one data source, or
	// the reader never sees the writer's read-your-writes token (50 of 50 reads missed the row just written).
	ConnectionSettings shared = settings;
	shared.targetSessionAttributes = TargetSessionAttributes::Any;
	shared.targetSessionPolicy.clear();
	for (const Shared& entry: _dataSources)
	{
		if (entry.loginTimeoutSeconds == loginTimeoutSeconds && entry.settings == shared)
		{
			lookup.dataSource = entry.dataSource;
			break;
		}
	}
	if (!lookup.dataSource)
	{
		lookup.dataSource = BlueTuskDataSource::create(settings, RoutingContext::defaultContext());
		Shared entry;
		entry.settings = shared;
		entry.loginTimeoutSeconds = loginTimeoutSeconds;
		entry.dataSource = lookup.dataSource;
		_dataSources.push_back(std::move(entry));
	}
	_byString.emplace(key, lookup);
	return lookup;
}


void DataSourceRegistry::clear()
{
	std::vector<Shared> dataSources;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		dataSources.swap(_dataSources);
		_byString.clear();
	}
	for (Shared& entry: dataSources) entry.dataSource->drain();
}


std::size_t DataSourceRegistry::size() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _dataSources.size();
}

} } } // namespace BlueTusk::Data::Detail
