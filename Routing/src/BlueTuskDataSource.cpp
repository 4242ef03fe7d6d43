//
// BlueTuskDataSource.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Connector.h"
#include "BlueTusk/PoolManager.h"
#include "ConnectionState.h"
#include "Router.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <mutex>

namespace BlueTusk {

struct BlueTuskDataSource::Impl
{
	std::shared_ptr<const ConnectionSettings> settings;
	Connector connector;
	HostOrderPolicy::Ptr hostOrder;
	std::shared_ptr<PoolManager> manager;
	std::mutex mutex;
	std::map<TargetSessionAttributes, TargetSessionPolicy::Ptr> targets;

	Impl(const ConnectionSettings& s, const Connector& c):
		settings(std::make_shared<const ConnectionSettings>(s)),
		connector(c)
	{
	}

	TargetSessionPolicy::Ptr target(TargetSessionAttributes attributes)
	{
		std::lock_guard<std::mutex> lock(mutex);
		auto it = targets.find(attributes);
		if (it != targets.end()) return it->second;
		TargetSessionPolicy::Ptr policy = connector.targetSessionPolicy(attributes);
		targets[attributes] = policy;
		return policy;
	}
};


BlueTuskDataSource::Ptr BlueTuskDataSource::create(const std::string& connectionString)
{
	return create(ConnectionSettings::parse(connectionString), Connector::defaultConnector());
}


BlueTuskDataSource::Ptr BlueTuskDataSource::create(const std::string& connectionString, Connector& connector)
{
	return create(ConnectionSettings::parse(connectionString), connector);
}


BlueTuskDataSource::Ptr BlueTuskDataSource::create(const ConnectionSettings& settings, Connector& connector)
{
	return Ptr(new BlueTuskDataSource(settings, connector));
}


BlueTuskDataSource::BlueTuskDataSource(const ConnectionSettings& settings, const Connector& connector):
	_impl(std::make_shared<Impl>(settings, connector))
{
	Connector& c = _impl->connector;
	if (!settings.pluginPath.empty()) c.loadStandardPlugins(settings.pluginPath);
	_impl->hostOrder = c.hostOrderPolicy(settings.hostOrder);
	_impl->target(settings.targetSessionAttributes);
	EvictionPolicy::Ptr eviction = c.evictionPolicy(settings.evictionPolicy);

	PoolManager::Options options;
	options.keepIdle = settings.pooling;
	options.enforceMaximum = true;
	options.startPruning = true;
	_impl->manager = std::make_shared<PoolManager>(*_impl->settings,
		c.sessionFactory(), eviction, options);
	for (const auto& endpoint: settings.endpoints) _impl->manager->pool(endpoint);
	Poco::Logger::get("BlueTusk.Routing").information("data source created: %s", settings.toString());
}


BlueTuskDataSource::~BlueTuskDataSource()
{
	try
	{
		// Idle sessions close now, leased ones when they come back; the pools end with the last lease.
		_impl->manager->drain();
	}
	catch (...)
	{
	}
}


BlueTuskConnection BlueTuskDataSource::open()
{
	return open(_impl->settings->targetSessionAttributes);
}


BlueTuskConnection BlueTuskDataSource::open(TargetSessionAttributes target)
{
	auto state = std::make_unique<Detail::ConnectionState>();
	state->settings = _impl->settings;
	state->pooled = true;

	Detail::Router::Request request;
	request.settings = _impl->settings.get();
	request.hostOrder = _impl->hostOrder;
	request.target = _impl->target(target);
	request.hostStates = &_impl->connector.hostStates();
	request.pools = _impl->manager.get();
	request.pooled = true;

	state->entry = Detail::Router(request).route(state->attempts);
	state->manager = _impl->manager;
	state->owner = _impl;
	state->endpoint = state->entry->pool->endpoint();
	return BlueTuskConnection(std::move(state));
}


PoolStatistics BlueTuskDataSource::getPoolStatistics() const
{
	return _impl->manager->statistics();
}


std::map<BlueTuskHostEndpoint, PoolStatistics> BlueTuskDataSource::getHostPoolStatistics() const
{
	return _impl->manager->hostStatistics();
}


namespace {

void checkEndpoint(const ConnectionSettings& settings, const BlueTuskHostEndpoint& endpoint)
{
	if (std::find(settings.endpoints.begin(), settings.endpoints.end(), endpoint) == settings.endpoints.end())
	{
		throw Poco::NotFoundException("endpoint " + endpoint.toString() + " is not in the host list " + settings.hostList());
	}
}

} // namespace


void BlueTuskDataSource::drain(const BlueTuskHostEndpoint& endpoint)
{
	checkEndpoint(*_impl->settings, endpoint);
	_impl->manager->pool(endpoint).drain();
}


void BlueTuskDataSource::resume(const BlueTuskHostEndpoint& endpoint)
{
	checkEndpoint(*_impl->settings, endpoint);
	_impl->manager->pool(endpoint).resume();
}


void BlueTuskDataSource::drain()
{
	_impl->manager->drain();
}


void BlueTuskDataSource::warmUp()
{
	_impl->manager->warmUp(_impl->settings->endpoints);
}


const ConnectionSettings& BlueTuskDataSource::settings() const
{
	return *_impl->settings;
}


Connector& BlueTuskDataSource::connector() const
{
	return _impl->connector;
}

} // namespace BlueTusk
