//
// BlueTuskDataSource.cpp
//
// Library: BlueTusk/Routing
//

#include "DataSourceImpl.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "RoutedOutcomeResolver.h"
#include "CheckoutReport.h"
#include "ha/HealthMonitor.h"
#include "ha/Rebalancer.h"
#include "router/PolicyCallBound.h"
#include "router/HostOrderCall.h"
#include "BlueTusk/PluginRegistry.h"
#include "TopologyOnce.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include "Poco/String.h"
#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>

namespace BlueTusk {

namespace {

std::string joinedNames(const std::vector<std::string>& names)
{
	std::string text;
	for (const auto& name: names) text += (text.empty() ? "" : ", ") + name;
	return text.empty() ? "(none)" : text;
}


const char* const STANDARD_EVICTION_POLICY = "standard"; // the fallback of a site eviction policy that throws

} // namespace


BlueTuskDataSource::Ptr BlueTuskDataSource::create(const std::string& connectionString)
{
	return create(ConnectionSettings::parse(connectionString), RoutingContext::defaultContext());
}


BlueTuskDataSource::Ptr BlueTuskDataSource::create(const std::string& connectionString, RoutingContext& connector)
{
	return create(ConnectionSettings::parse(connectionString), connector);
}


BlueTuskDataSource::Ptr BlueTuskDataSource::create(const ConnectionSettings& settings, RoutingContext& connector)
{
	return Ptr(new BlueTuskDataSource(settings, connector));
}


BlueTuskDataSource::BlueTuskDataSource(const ConnectionSettings& settings, const RoutingContext& connector):
	_impl(std::make_shared<Impl>(settings, connector))
{
	RoutingContext& c = _impl->connector;
	// The site policy calls of the creation (name() at the lookups, needsRole(), classify(role) below) are
	// bounded by Timeout from here (PolicyCallBound.h; 15 s with Timeout=0), and their messages say so.
	const SecretRedactor creationRedactor = settings.redactor();
	Detail::PolicyDeadline::Scope policyDeadline(Poco::Timespan(), settings.connectTimeout, creationRedactor,
		Detail::PolicyDeadline::Kind::Creation);
	EvictionPolicy::Ptr eviction;
	EvictionPolicy::Ptr fallbackEviction;
	try
	{
		// a policy name may hold a password malformed input put there: the lookups' messages name it
		c.loadStandardPlugins(settings.pluginPath); // every standard plugin, or an exception naming the paths searched
		_impl->hostOrder = c.hostOrderPolicy(settings.hostOrder);
		if (Detail::HostOrderCall::isStandard(*_impl->hostOrder)) _impl->standardOrder = _impl->hostOrder->name();
		if (settings.targetSessionPolicy.empty()) _impl->target(settings.targetSessionAttributes);
		else _impl->ownSite = _impl->siteTarget(settings.targetSessionPolicy);
		eviction = c.evictionPolicy(settings.evictionPolicy);
		// A site eviction policy that throws falls back to the standard one (doc/plugin-calls.md, "Where and
		// how policies are called").
		if (!Detail::codeIsInLibrary(eviction.get(), EVICTION_PLUGIN_LIBRARY)) fallbackEviction = c.evictionPolicy(STANDARD_EVICTION_POLICY);
	}
	catch (...)
	{
		settings.redactor().rethrowCurrent();
	}

	PoolManager::Options options;
	options.keepIdle = settings.pooling;
	options.enforceMaximum = true;
	options.startPruning = true;
	options.fallbackEviction = fallbackEviction;
	// The pools keep no session of a role the data source's own target can never use (a standby for
	// read-write): not warmed up, not kept after a pass rejected it (doc/pooling.md). Another target named
	// per checkout (open(target)) still opens there; what its leases return stays pooled.
	const TargetSessionPolicy::Ptr ownTarget = _impl->ownSite ? _impl->ownSite : _impl->target(settings.targetSessionAttributes);
	if (ownTarget && ownTarget->needsRole())
	{
		unsigned usable = 0;   // the answers, not the policy: a plugin's object is not kept by the pools
		for (ServerRole role: {ServerRole::Primary, ServerRole::PrimaryReadOnly, ServerRole::Standby})
		{
			if (ownTarget->classify(role) != RoleVerdict::Reject) usable |= 1u << static_cast<unsigned>(role);
		}
		options.usableRole = [usable](ServerRole role) { return ((usable >> static_cast<unsigned>(role)) & 1u) != 0; };
	}
	_impl->manager = std::make_shared<PoolManager>(*_impl->settings,
		c.sessionFactory(), eviction, options);
	for (const auto& endpoint: settings.endpoints) _impl->manager->pool(endpoint);
	// Storm control: a load-balancing order moves idle sessions to a standby that came back or joined.
	if (Detail::Rebalancer::appliesTo(_impl->standardOrder))
		_impl->manager->setPruningHook(Detail::Rebalancer(_impl->settings, _impl->connector.hostStates()));
	// The health monitor before the topology thread, which tells it each new host list (publishFastPath()).
	if (settings.healthCheckInterval.totalMicroseconds() > 0)   // doc/high-availability.md, "The health monitor"
		_impl->monitorId = c.healthMonitor().add({_impl->manager, _impl->settings, c.sessionFactory()});
	if (settings.topologySource.empty())
	{
		_impl->fixedFast = _impl->buildFastPath(settings.endpoints);
	}
	else
	{
		_impl->topologyFast = _impl->buildFastPath(settings.endpoints);
		_impl->startTopology(c);
	}
	Poco::Logger::get("BlueTusk.Routing").information("data source created: %s", settings.toString());
}


void BlueTuskDataSource::Impl::startTopology(RoutingContext& c)
{
	TopologySource::Ptr source = Detail::createTopologySource(*settings, c);
	topology = std::make_unique<Detail::TopologyWatcher>(source, *settings, manager,
		[this](const Detail::HostListPtr& hosts) { publishFastPath(hosts); });
	topology->start(); // the first read happens in the background: no checkout waits for it
}


BlueTuskDataSource::~BlueTuskDataSource()
{
	try
	{
		// The topology thread first (no pool is resumed behind the drain, no host list reaches the monitor),
		// then the health monitor (before the pools go); then idle sessions close now, leased ones when they
		// come back; the pools end with the last lease.
		if (_impl->topology) _impl->topology->stop();
		if (_impl->monitorId) _impl->connector.healthMonitor().remove(_impl->monitorId);
		_impl->manager->drain();
	}
	catch (...)
	{
	}
}


BlueTuskConnection BlueTuskDataSource::open()
{
	return open(_impl->settings->targetSessionAttributes, Lsn(), _impl->ownSite);
}


BlueTuskConnection BlueTuskDataSource::open(const std::string& target)
{
	TargetSessionAttributes standard = TargetSessionAttributes::Any;
	try
	{
		standard = parseTargetSessionAttributes(target, "target");
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		// A name no loaded plugin registers is a bad value; a registered one whose policy fails (its name()
		// throws or is late) is a plugin failure, its BlueTuskPluginException passed on.
		bool registered = false;
		for (const std::string& name: _impl->connector.policyNames(PolicyFamily::TargetSession))
			registered = registered || Poco::icompare(name, target) == 0;
		if (!registered)
			throw BlueTuskConnectionStringException(exc.message() + "; nor is it a site policy's (loaded: " +
				joinedNames(_impl->connector.policyNames(PolicyFamily::TargetSession)) + ")");
		// The first lookup asks the policy's name(): within this checkout's deadline, like its other calls.
		Detail::PolicyDeadline::Scope deadline(_impl->settings->checkoutTimeout, _impl->settings->connectTimeout, _impl->redactor);
		TargetSessionPolicy::Ptr site = _impl->siteTarget(target);
		return open(TargetSessionAttributes::Any, Lsn(), site);
	}
	return open(standard);
}


BlueTuskConnection BlueTuskDataSource::open(TargetSessionAttributes target)
{
	return open(target, Lsn());
}


CommitOutcomeResolver::Ptr BlueTuskDataSource::outcomeResolver(const Poco::Timespan& timeout) const
{
	if (!_impl->topology) return std::make_shared<RoutedOutcomeResolver>(*_impl->settings, _impl->connector, timeout);
	// With a topology source: the primary is looked for among the current members.
	ConnectionSettings settings = *_impl->settings;
	settings.endpoints = hostList();
	return std::make_shared<RoutedOutcomeResolver>(settings, _impl->connector, timeout);
}


Lsn BlueTuskDataSource::walPosition() const
{
	return _impl->freshness.token();
}


BlueTuskConnection BlueTuskDataSource::open(TargetSessionAttributes target, const Lsn& token)
{
	return open(target, token, nullptr);
}


BlueTuskConnection BlueTuskDataSource::open(TargetSessionAttributes target, const Lsn& token, const std::shared_ptr<TargetSessionPolicy>& site)
{
	const Lsn own = _impl->settings->readYourWrites ? _impl->freshness.token() : Lsn();
	Detail::FreshnessRule freshness(_impl->freshness, target, std::max(token, own));
	PoolObserver* observer = _impl->observer.load(std::memory_order_acquire);   // doc/metrics.md: none, one test
	// A site target's calls before the Router's (needsRole() here) are bounded by the checkout's deadline too.
	std::optional<Detail::PolicyDeadline::Scope> siteDeadline;
	if (site) siteDeadline.emplace(_impl->settings->checkoutTimeout, _impl->settings->connectTimeout, _impl->redactor);
	// Fast path (doc/performance.md, R2): a target that accepts every role and an idle session at hand.
	// Without a topology source the path is fixed and read without a lock or a reference count; with one,
	// the current list's path is held for the duration of the checkout.
	Impl::SaturatedWait saturated;   // the fast path's wait past saturation, for the Router when it ends with room
	std::shared_ptr<Impl::FastPath> heldFast;
	Impl::FastPath* fast = _impl->fixedFast.get();
	if (_impl->topology)
	{
		heldFast = std::atomic_load(&_impl->topologyFast);
		fast = heldFast.get();
	}
	if (fast && !fast->endpoints.empty() && !freshness.active() && (site ? !site->needsRole() : _impl->needsNoRole(target)))
	{
		const HostAttemptList* attempts = nullptr;
		PoolEntryPtr entry = _impl->takeIdleFast(*fast, attempts);
		// Past saturation: the Router would only wait on every endpoint at once (doc/pooling.md, step 3).
		// With an observer the Router's path reports the wait (doc/metrics.md).
		if (!entry && !observer) entry = _impl->waitSaturated(*fast, attempts, saturated);
		if (entry)
		{
			if (observer) Detail::reportIdleCheckout(*observer, *entry);
			// The lease keeps what its attempt log lives in: the Impl, and with a topology the path it came from
			// (the topology thread may replace it while the lease is out).
			std::shared_ptr<void> owner = _impl;
			if (heldFast) owner = std::make_shared<std::pair<std::shared_ptr<Impl>, std::shared_ptr<Impl::FastPath>>>(_impl, std::move(heldFast));
			BlueTuskConnection lease(std::move(entry), std::move(owner), *_impl->settings, *attempts, &_impl->connector.hostStates());
			_impl->markLease(lease, target);
			return lease;
		}
	}

	auto state = std::make_unique<Detail::ConnectionState>();
	state->settings = _impl->settings;
	state->pooled = true;

	Detail::Router::Request request;
	request.settings = _impl->settings.get();
	request.redactor = &_impl->redactor;
	request.hostOrder = _impl->hostOrder;
	request.target = site ? site : _impl->target(target);
	request.hostStates = &_impl->connector.hostStates();
	request.pools = _impl->manager.get();
	request.pooled = true;
	request.hosts = _impl->hosts();   // null without a topology source: the written endpoints
	if (saturated.started)
	{
		request.started = &*saturated.started;
		request.deadline = saturated.deadline;
		request.reserved = &saturated.reserved;   // the Router opens it or gives it back; before: ~HeldReservation
	}

	auto route = [observer, &request](HostAttemptList& attempts)
	{
		return observer ? Detail::routeObserved(*observer, request, attempts) : Detail::Router(request).route(attempts);
	};
	if (freshness.active())
	{
		// Read your writes and Max Standby Lag (Freshness.h): the same Router, with the rules as its hook.
		request.freshness = &freshness;
		HostAttemptList& attempts = state->attempts;
		state->entry = freshness.checkout([&request, &attempts, &route](TargetSessionPolicy::Ptr policy)
		{
			request.target = policy;
			return route(attempts);
		}, request.target, *_impl->manager, request.hosts ? request.hosts->endpoints : _impl->settings->endpoints);
	}
	else
	{
		state->entry = route(state->attempts);
	}
	state->owner = _impl;   // owns the manager and so the pools
	state->hostStates = request.hostStates;
	BlueTuskConnection lease(std::move(state));
	_impl->markLease(lease, target);
	return lease;
}


PoolStatistics BlueTuskDataSource::getPoolStatistics() const
{
	return _impl->manager->statistics();
}


std::map<BlueTuskHostEndpoint, PoolStatistics> BlueTuskDataSource::getHostPoolStatistics() const
{
	std::map<BlueTuskHostEndpoint, PoolStatistics> statistics = _impl->manager->hostStatistics();
	if (Detail::HostListPtr hosts = _impl->hosts())
	{
		// A dropped topology member's pool is listed while it still has sessions (leases draining back).
		for (auto it = statistics.begin(); it != statistics.end();)
		{
			if (!hosts->contains(it->first) && it->second.total == 0) it = statistics.erase(it);
			else ++it;
		}
	}
	_impl->freshness.addStatistics(statistics);
	return statistics;
}


std::vector<BlueTuskHostEndpoint> BlueTuskDataSource::hostList() const
{
	Detail::HostListPtr hosts = _impl->hosts();
	return hosts ? hosts->endpoints : _impl->settings->endpoints;
}


TopologySnapshot BlueTuskDataSource::topology() const
{
	return _impl->topology ? _impl->topology->snapshot() : TopologySnapshot();
}


namespace {

void checkEndpoint(const ConnectionSettings& settings, const BlueTuskHostEndpoint& endpoint, bool known, const std::vector<BlueTuskHostEndpoint>& current)
{
	if (known) return;
	std::string list = settings.hostList();
	if (!settings.topologySource.empty())
	{
		list = "(";
		for (const BlueTuskHostEndpoint& e: current) list += (list.size() > 1 ? "," : "") + e.toString();
		list += ", from Topology Source; written: " + settings.hostList() + ")";
	}
	throw Poco::NotFoundException(settings.redactor().redact("endpoint " + endpoint.toString() + " is not in the host list " + list));
}

} // namespace


void BlueTuskDataSource::setObserver(PoolObserver::Ptr observer)
{
	PoolObserver* raw = observer.get();
	_impl->manager->setObserver(std::move(observer));
	_impl->observer.store(raw, std::memory_order_release);
}


PoolObserver* BlueTuskDataSource::observer() const
{
	return _impl->observer.load(std::memory_order_acquire);
}


void BlueTuskDataSource::drain(const BlueTuskHostEndpoint& endpoint)
{
	checkEndpoint(*_impl->settings, endpoint, _impl->inHostList(endpoint), hostList());
	_impl->manager->pool(endpoint).drain();
}


void BlueTuskDataSource::resume(const BlueTuskHostEndpoint& endpoint)
{
	checkEndpoint(*_impl->settings, endpoint, _impl->inHostList(endpoint), hostList());
	_impl->manager->pool(endpoint).resume();
}


void BlueTuskDataSource::drain()
{
	_impl->manager->drain();
}


void BlueTuskDataSource::warmUp()
{
	_impl->manager->warmUp(hostList());
}


const ConnectionSettings& BlueTuskDataSource::settings() const
{
	return *_impl->settings;
}


RoutingContext& BlueTuskDataSource::routingContext() const
{
	return _impl->connector;
}

} // namespace BlueTusk
