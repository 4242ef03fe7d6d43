//
// UnpooledOpen.cpp
//
// Library: BlueTusk/Routing
//

#include "UnpooledOpen.h"
#include "BlueTusk/Connector.h"
#include "NoIdleEvictionPolicy.h"
#include "Router.h"

namespace BlueTusk {
namespace Detail {

std::unique_ptr<ConnectionState> openUnpooled(const ConnectionSettings& settings, Connector& connector)
{
	if (!settings.pluginPath.empty()) connector.loadStandardPlugins(settings.pluginPath);
	auto state = std::make_unique<ConnectionState>();
	state->settings = std::make_shared<const ConnectionSettings>(settings);

	Router::Request request;
	request.settings = state->settings.get();
	request.hostOrder = connector.hostOrderPolicy(settings.hostOrder);
	request.target = connector.targetSessionPolicy(settings.targetSessionAttributes);
	request.hostStates = &connector.hostStates();
	request.pooled = false;

	PoolManager::Options options;
	options.keepIdle = false;
	options.enforceMaximum = false;
	options.startPruning = false;
	auto manager = std::make_shared<PoolManager>(*state->settings,
		connector.sessionFactory(),
		std::make_shared<NoIdleEvictionPolicy>(), options);
	request.pools = manager.get();

	state->entry = Router(request).route(state->attempts);
	state->manager = manager;
	state->pooled = false;
	state->hostStates = request.hostStates;
	return state;
}

} } // namespace BlueTusk::Detail
