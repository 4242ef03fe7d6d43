//
// UnpooledOpen.cpp
//
// Library: BlueTusk/Routing
//

#include "UnpooledOpen.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "router/Freshness.h"
#include "NoIdleEvictionPolicy.h"
#include "router/Router.h"
#include "TopologyOnce.h"
#include "RoutingContextAccess.h"

namespace BlueTusk {
namespace Detail {

std::unique_ptr<ConnectionState> openUnpooled(const ConnectionSettings& settings, RoutingContext& connector)
{
	if (settings.readYourWrites)
		throw BlueTuskConnectionStringException("Read Your Writes=true needs a BlueTuskDataSource: its read checkouts wait for the "
			"WAL position of the data source's own earlier writes, and an unpooled BlueTuskConnection::open() has no earlier write. "
			"Open through BlueTuskDataSource (bluetusk-connect --pool), or leave Read Your Writes out of this connection string");
	connector.loadStandardPlugins(settings.pluginPath); // every standard plugin, or an exception naming the paths searched
	// The site policies' name() at the lookups below is bounded by this open's deadline, like its other calls.
	const SecretRedactor redactor = settings.redactor();
	PolicyDeadline::Scope policyDeadline(settings.checkoutTimeout, settings.connectTimeout, redactor);
	auto state = std::make_unique<ConnectionState>();
	state->settings = std::make_shared<const ConnectionSettings>(settings);

	Router::Request request;
	request.settings = state->settings.get();
	request.hostOrder = connector.hostOrderPolicy(settings.hostOrder);
	request.target = settings.targetSessionPolicy.empty() ? connector.targetSessionPolicy(settings.targetSessionAttributes)
		: connector.targetSessionPolicy(settings.targetSessionPolicy);   // a site policy (doc/plugins.md)
	request.hostStates = &Detail::hostStatesOf(connector);
	request.pooled = false;
	// An unpooled connection keeps no idle session, so no eviction policy decides anything here; the name
	// is still resolved, so that a typo or a missing site plugin fails here as it does for a data source.
	connector.evictionPolicy(settings.evictionPolicy);
	// Topology Source: read once for this open (no background thread here), then the written hosts
	request.hosts = readTopologyOnce(settings, connector);

	PoolManager::Options options;
	options.keepIdle = false;
	options.enforceMaximum = false;
	options.startPruning = false;
	auto manager = std::make_shared<PoolManager>(*state->settings,
		connector.sessionFactory(),
		std::make_shared<NoIdleEvictionPolicy>(), options);
	request.pools = manager.get();

	// Max Standby Lag holds here as in a data source (doc/freshness.md): roles are probed with the WAL
	// positions, and a standby further behind than the primary's position learned in this open (or than
	// what the standby has itself received) is rejected. No primary position is known from before.
	FreshnessState freshness(*state->settings);
	FreshnessRule rule(freshness, settings.targetSessionAttributes, Lsn());
	if (rule.active())
	{
		request.freshness = &rule;
		state->entry = rule.checkout([&request, &state](TargetSessionPolicy::Ptr policy)
		{
			request.target = policy;
			return Router(request).route(state->attempts);
		}, request.target, *manager, request.hosts ? request.hosts->endpoints : settings.endpoints);
	}
	else
	{
		state->entry = Router(request).route(state->attempts);
	}
	state->manager = manager;
	state->pooled = false;
	state->hostStates = request.hostStates;
	return state;
}

} } // namespace BlueTusk::Detail
