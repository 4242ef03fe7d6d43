//
// DataSourceImpl.h
//
// Library: BlueTusk/Routing
//
// The state behind a BlueTuskDataSource (its settings, pools, policies and idle fast path), private to
// datasource/: BlueTuskDataSource.cpp creates and uses it.
//

#ifndef BlueTusk_Detail_DataSourceImpl_INCLUDED
#define BlueTusk_Detail_DataSourceImpl_INCLUDED

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/PoolManager.h"
#include "ConnectionState.h"
#include "router/Freshness.h"
#include "router/Router.h"
#include "ha/HealthMonitor.h"
#include "ha/TopologyWatcher.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <time.h>
#include <vector>

namespace BlueTusk {
namespace Detail {

inline Poco::Logger& dataSourceRoutingLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}

constexpr std::size_t ROLE_COUNT = 4; // ServerRole: Unknown, Primary, PrimaryReadOnly, Standby
constexpr Poco::Int64 DOWN_EPOCH_MS = 1577836800000; // 2020-01-01: 40 bits of milliseconds after it last 34 years

} // namespace Detail


struct BlueTuskDataSource::Impl
{
	struct FastEndpoint
		/// What the idle fast path of open() needs of one endpoint of the host list, built once.
	{
		BlueTuskHostEndpoint endpoint;
		EndpointPool* pool = nullptr;
		std::size_t position = 0;
		std::array<std::shared_ptr<const HostAttemptList>, Detail::ROLE_COUNT> accepted; /// per ServerRole: the log of
		                                                                         /// a reused idle session
		std::atomic<std::uint64_t> downCache{0};  /// what the connector's host states say of this endpoint, as
		                                          /// of a generation: (generation << 40) | (DOWN since, in ms
		                                          /// after Detail::DOWN_EPOCH_MS; 0: not DOWN). One word: consistent.
	};

	struct FastPath
		/// The idle fast path over one version of the host list (FastEndpoint per endpoint, in order).
	{
		std::deque<FastEndpoint> endpoints;
	};

	std::shared_ptr<const ConnectionSettings> settings;
	const SecretRedactor redactor;   /// settings->redactor(), built once: the settings never change, and a
	                                 /// checkout past the fast path would otherwise build it again (its
	                                 /// secrets' copies were a third of a waiting checkout's allocations,
	                                 /// doc/performance.md, row 14a)
	RoutingContext connector;
	HostOrderPolicy::Ptr hostOrder;
	std::string standardOrder;   /// the host order's name() when it is a standard one, else empty (a site
	                             /// policy's name() is asked once, by the routing context, not again here)
	std::shared_ptr<PoolManager> manager;
	std::mutex mutex;
	std::map<TargetSessionAttributes, TargetSessionPolicy::Ptr> targets;
	TargetSessionPolicy::Ptr ownSite;          /// settings->targetSessionPolicy's policy (null: a standard target)
	std::map<std::string, TargetSessionPolicy::Ptr> siteTargets; /// open("<site name>") (under mutex)
	std::unique_ptr<FastPath> fixedFast;       /// no topology source: built once, read without a lock; null: no
	                                           /// fast path (order not fixed)
	std::shared_ptr<FastPath> topologyFast;    /// with a topology source: the current list's, swapped by the
	                                           /// topology thread (std::atomic_store) and read with std::atomic_load
	std::unique_ptr<Detail::TopologyWatcher> topology; /// with Topology Source: the topology thread (before
	                                           /// the members above in destruction: it publishes into them)
	std::atomic<unsigned> targetsKnown{0};     /// bit per TargetSessionAttributes: policy resolved
	std::atomic<unsigned> targetsWithoutRole{0}; /// bit per TargetSessionAttributes: its policy needs no role
	Detail::FreshnessState freshness;          /// tokens and WAL positions (doc/freshness.md)
	std::atomic<PoolObserver*> observer{nullptr}; /// manager->observer(), read inline by open() (doc/metrics.md)
	std::uint64_t monitorId = 0;               /// the connector's health monitor's handle (0: not registered)

	Impl(const ConnectionSettings& s, const RoutingContext& c):
		settings(std::make_shared<const ConnectionSettings>(s)),
		redactor(settings->redactor()),
		connector(c),
		freshness(*settings)
	{
	}

	void markLease(BlueTuskConnection& connection, TargetSessionAttributes target)
		/// Read Your Writes: the lease notes its tokens here; a write target's lease asks at close().
	{
		if (!settings->readYourWrites) return;
		connection._freshness = &freshness;
		connection._writeLease = target == TargetSessionAttributes::Primary || target == TargetSessionAttributes::ReadWrite ||
			target == TargetSessionAttributes::PreferPrimary || target == TargetSessionAttributes::Any;
	}

	TargetSessionPolicy::Ptr target(TargetSessionAttributes attributes)
	{
		std::lock_guard<std::mutex> lock(mutex);
		auto it = targets.find(attributes);
		if (it != targets.end()) return it->second;
		TargetSessionPolicy::Ptr policy = connector.targetSessionPolicy(attributes);
		targets[attributes] = policy;
		const unsigned bit = 1u << static_cast<unsigned>(attributes);
		if (policy && !policy->needsRole()) targetsWithoutRole.fetch_or(bit);
		targetsKnown.fetch_or(bit);
		return policy;
	}

	TargetSessionPolicy::Ptr siteTarget(const std::string& name)
		/// The site target-session policy name (resolved once); throws BlueTuskPluginException when none.
	{
		std::lock_guard<std::mutex> lock(mutex);
		TargetSessionPolicy::Ptr& policy = siteTargets[name];
		if (!policy) policy = connector.targetSessionPolicy(name);
		return policy;
	}

	bool needsNoRole(TargetSessionAttributes attributes)
		/// Whether the policy of attributes needs no role (every role is accepted), resolved once.
	{
		const unsigned bit = 1u << static_cast<unsigned>(attributes);
		if (!(targetsKnown.load(std::memory_order_acquire) & bit)) target(attributes);
		return (targetsWithoutRole.load(std::memory_order_acquire) & bit) != 0;
	}

	std::unique_ptr<FastPath> buildFastPath(const std::vector<BlueTuskHostEndpoint>& endpoints)
		/// The idle fast path applies when the host order is the host list as written (sequential,
		/// parallel): then, for a target that accepts every role, the Router would take the first idle
		/// session in host-list order among the endpoints not known down (doc/routing.md (step 2), 5 step 1).
		/// Null when the order is not fixed.
	{
		if (standardOrder != "sequential" && standardOrder != "parallel") return nullptr;
		auto path = std::make_unique<FastPath>();
		for (std::size_t i = 0; i < endpoints.size(); ++i)
		{
			FastEndpoint& fast = path->endpoints.emplace_back();
			fast.endpoint = endpoints[i];
			fast.pool = &manager->pool(fast.endpoint);
			fast.position = i;
			for (std::size_t r = 0; r < Detail::ROLE_COUNT; ++r)
			{
				const ServerRole role = static_cast<ServerRole>(r);
				HostAttempt attempt;
				attempt.endpoint = fast.endpoint;
				attempt.outcome = HostAttempt::ACCEPTED;
				attempt.role = role;
				attempt.reused = true;
				attempt.detail = role == ServerRole::Unknown ? std::string("connected") : toString(role);
				fast.accepted[r] = std::make_shared<const HostAttemptList>(1, attempt);
			}
		}
		return path;
	}

	void publishFastPath(const Detail::HostListPtr& hosts)
		/// The topology thread's hook: the fast path over the new host list.
	{
		std::shared_ptr<FastPath> path(buildFastPath(hosts->endpoints));
		std::atomic_store(&topologyFast, path);
		if (monitorId) connector.healthMonitor().setEndpoints(monitorId, hosts->endpoints);
	}

	Detail::HostListPtr hosts() const
		/// The current host list: the topology's, or null (the written endpoints).
	{
		return topology ? topology->hosts() : nullptr;
	}

	bool inHostList(const BlueTuskHostEndpoint& endpoint) const
		/// Whether endpoint is in the written host list or the topology's current one.
	{
		const std::vector<BlueTuskHostEndpoint>& written = settings->endpoints;
		if (std::find(written.begin(), written.end(), endpoint) != written.end()) return true;
		return topology && topology->hosts()->contains(endpoint);
	}

	void startTopology(RoutingContext& c);

	static Poco::Int64 coarseNowMs()
		/// The wall clock in milliseconds, from the kernel's coarse clock (host states are kept for seconds).
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		return static_cast<Poco::Int64>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
	}

	bool isFreshDown(const HostStateRegistry& states, FastEndpoint& fast, Poco::Int64 nowMs) const
		/// Whether the connector has learned, less than Host Recheck Seconds ago, that fast's endpoint is
		/// DOWN (doc/routing.md (step 2): the Router would try it last). Lock-free while the host states do not
		/// change: the answer of the registry's one locked lookup is cached per generation.
	{
		constexpr std::uint64_t MS_MASK = (std::uint64_t(1) << 40) - 1;
		const std::uint64_t generation = states.generation() & 0xFFFFFF;
		std::uint64_t cached = fast.downCache.load(std::memory_order_acquire);
		if ((cached >> 40) != generation)
		{
			const Poco::Int64 since = states.downSinceMs(fast.endpoint);
			// MS_MASK: DOWN and watched by the health monitor, fresh whatever its age
			const std::uint64_t relative = since == HostStateRegistry::WATCHED_DOWN ? MS_MASK :
				since > Detail::DOWN_EPOCH_MS ? static_cast<std::uint64_t>(since - Detail::DOWN_EPOCH_MS) & MS_MASK : 0;
			cached = (generation << 40) | relative;
			fast.downCache.store(cached, std::memory_order_release);
		}
		const std::uint64_t relative = cached & MS_MASK;
		const Poco::Int64 recheckMs = settings->hostRecheck.totalMilliseconds();
		if (relative == 0 || recheckMs <= 0) return false;
		if (relative == MS_MASK) return true;
		// The coarse clock may lag the moment recorded by up to a tick: an age below 0 is 0.
		const Poco::Int64 ageMs = std::max<Poco::Int64>(0, nowMs - (Detail::DOWN_EPOCH_MS + static_cast<Poco::Int64>(relative)));
		return ageMs < recheckMs;
	}

	PoolEntryPtr takeIdleFast(FastPath& path, const HostAttemptList*& attempts)
		/// An idle session from the first endpoint in host-list order that is not known down, or null
		/// (then the Router runs the full checkout). No allocation: attempts is set to the prebuilt
		/// one-entry log of the session's endpoint and role, which lives as long as path (the fixed path:
		/// this Impl; a topology's: the lease holds it).
	{
		HostStateRegistry& states = connector.hostStates();
		const bool checkDown = states.mayHaveDown();
		const Poco::Int64 nowMs = checkDown ? coarseNowMs() : 0;
		for (FastEndpoint& fast: path.endpoints)
		{
			if (checkDown && isFreshDown(states, fast, nowMs)) continue;
			PoolEntryPtr entry = fast.pool->tryTakeIdle();
			if (!entry) continue;
			const ServerRole role = entry->session->role(); // tryTakeIdle() noted it as the pool's last known role
			const std::size_t r = static_cast<std::size_t>(role) < Detail::ROLE_COUNT ? static_cast<std::size_t>(role) : 0;
			attempts = fast.accepted[r].get();
			Poco::Logger& logger = Detail::dataSourceRoutingLogger();
			if (logger.debug()) logger.debug("%s: %s (idle session reused)", redactor.redact(fast.endpoint.toString()), attempts->front().detail);
			return entry;
		}
		return nullptr;
	}

	struct SaturatedWait
		/// What a checkout's wait past saturation leaves for the Router when it ends with room rather than a
		/// session (Router::Request::started, deadline, reserved); untouched (no clock read) when it did not
		/// wait.
	{
		std::optional<Poco::Clock> started;   /// the checkout's start
		Poco::Timestamp deadline{Poco::Timestamp::TIMEVAL_MAX};
		                                      /// its Checkout Timeout deadline (a value, not Timestamp()'s read
		                                      /// of the clock: every open() makes one, row 6a)
		Detail::HeldReservation reserved;     /// the room granted
	};

	PoolEntryPtr waitSaturated(FastPath& path, const HostAttemptList*& attempts, SaturatedWait& wait)
		/// Past saturation (doc/pooling.md, checkout step 3): when checkouts already wait for every endpoint
		/// of path and none is known down or draining, none has an idle session or room for a newcomer, so
		/// the Router would plan a pass only to wait on all of them at once; this waits so directly (first
		/// come, first served with every other waiter: PoolManager::waitBehindWaiters()). Returns the idle
		/// session handed over (attempts as for takeIdleFast()), or null: some endpoint has no waiter or is
		/// known down (nothing waited for), or the wait ended with room to open a session instead, which is
		/// then held in wait (the Router opens it: Router::Request::reserved). Throws
		/// BlueTuskPoolTimeoutException at the checkout's deadline (Router::checkoutDeadline()), redacted.
	{
		HostStateRegistry& states = connector.hostStates();
		const bool checkDown = states.mayHaveDown();
		const Poco::Int64 nowMs = checkDown ? coarseNowMs() : 0;
		for (FastEndpoint& fast: path.endpoints)
		{
			// Without the lock first: below saturation (the common miss) this costs no lock at all.
			if (!fast.pool->hasWaiters() || (checkDown && isFreshDown(states, fast, nowMs))) return nullptr;
		}
		std::vector<EndpointPool*> pools;
		pools.reserve(path.endpoints.size());
		for (FastEndpoint& fast: path.endpoints) pools.push_back(fast.pool);
		wait.started.emplace();
		wait.deadline = Detail::Router::checkoutDeadline(*settings);
		PoolGrant grant;
		try
		{
			grant = manager->waitBehindWaiters(pools, wait.deadline);
		}
		catch (Poco::Exception& exc)
		{
			redactor.rethrow(exc);
		}
		Poco::Logger& logger = Detail::dataSourceRoutingLogger();
		if (grant.isReservation())
		{
			if (logger.debug()) logger.debug("%s: room to open a session, granted past saturation", redactor.redact(grant.pool->endpoint().toString()));
			wait.reserved.hold(grant.pool);
			return nullptr;
		}
		if (!grant.entry) return nullptr;
		for (FastEndpoint& fast: path.endpoints)
		{
			if (fast.pool != grant.pool) continue;
			const ServerRole role = grant.entry->session->role();
			const std::size_t r = static_cast<std::size_t>(role) < Detail::ROLE_COUNT ? static_cast<std::size_t>(role) : 0;
			attempts = fast.accepted[r].get();
			if (logger.debug()) logger.debug("%s: %s (idle session handed over past saturation)", redactor.redact(fast.endpoint.toString()), attempts->front().detail);
			return std::move(grant.entry);
		}
		grant.pool->release(std::move(grant.entry));   // not reached: the grant is one of pools'
		return nullptr;
	}
};

} // namespace BlueTusk

#endif // BlueTusk_Detail_DataSourceImpl_INCLUDED
