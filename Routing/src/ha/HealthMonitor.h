//
// HealthMonitor.h
//
// Library: BlueTusk/Routing
//
// Private: the connector's background health monitor (doc/high-availability.md, "The health monitor"):
// one watcher thread per endpoint, shared by every data source of the connector that has that endpoint.
//

#ifndef BlueTusk_Detail_HealthMonitor_INCLUDED
#define BlueTusk_Detail_HealthMonitor_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "router/HostStateRegistry.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/Session.h"
#include "Poco/Timespan.h"
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace BlueTusk {
namespace Detail {

class HealthMonitor
	/// Watches the endpoints of the data sources registered with it, off the request path:
	///   - a DOWN endpoint (as the HostStateRegistry says) is re-probed once per round: a session is opened
	///     with the settings of one registered data source (its Timeout bounds the open and the role probe);
	///     on success the endpoint is marked UP with its role, every registered pool of it learns the role,
	///     and the session joins the first registered pool as idle (EndpointPool::adopt(): closed when the
	///     pool is full); on an availability failure the endpoint is marked DOWN again. While watched, the
	///     registry keeps the DOWN state fresh whatever Host Recheck Seconds say (HostStateRegistry::watch()).
	///   - an endpoint that is not DOWN has its role watched through one idle pooled session per round (no
	///     connection of its own): EndpointPool::takeIdleForCheck() lends the least recently returned one
	///     when it sat idle a whole interval and the pool holds another idle session (and nobody waits), so a
	///     checkout never needs the one being checked; SessionControl::refreshRole() (a bare Sync on PostgreSQL 14+)
	///     reads the role. A demotion (Primary to Standby or Primary read-only) updates the registry and every
	///     registered pool's last known role and closes the endpoint's idle sessions in every data source at
	///     once; a promotion updates the role.
	/// One round per endpoint per interval, whatever the number of data sources sharing it: the interval is
	/// the smallest Health Check Interval among them. Each endpoint has its own thread ("bt-health"), started
	/// when its first data source registers and joined when its last one leaves (or at destruction), so a
	/// black-holed endpoint's probe never delays another endpoint's round.
	///
	/// Thread-safety: every member function is thread-safe. Logging: Poco::Logger "BlueTusk.Routing" (debug
	/// for probes and checks, information for state and role changes found); texts pass the settings' redactor.
{
public:
	using Id = std::uint64_t;

	struct Member
		/// What the monitor needs of one data source: shared, so a round in progress keeps them alive.
	{
		std::shared_ptr<PoolManager> pools;
		std::shared_ptr<const ConnectionSettings> settings;
		SessionFactory::Ptr factory;
	};

	explicit HealthMonitor(HostStateRegistry& states);
	~HealthMonitor();
		/// Stops and joins every watcher thread (an open in progress is cancelled).

	Id add(const Member& member);
		/// Registers a data source: watches every distinct endpoint of member.settings->endpoints with
		/// member.settings->healthCheckInterval (which must be > 0). Returns the handle for remove().

	void setEndpoints(Id id, const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// Makes the data source of id watch exactly endpoints from now on (its topology's host list changed):
		/// endpoints it did not watch get watched (a thread started when no other data source had them),
		/// those it no longer lists are released as remove() releases them. Ignored for an unknown id (the
		/// data source was removed meanwhile).

	void remove(Id id);
		/// Unregisters a data source (before its pools drain): an open in progress with its settings is
		/// cancelled; the threads of endpoints no other data source watches are stopped and joined (a check
		/// in progress on an idle session ends first, bounded by that data source's Timeout). Unknown ids
		/// are ignored.

	std::size_t watchedEndpoints() const;
		/// How many endpoints have a watcher now.

private:
	HealthMonitor(const HealthMonitor&) = delete;
	HealthMonitor& operator = (const HealthMonitor&) = delete;

	struct Watch
	{
		Id id = 0;
		Member member;
	};

	struct Watcher;

	void run(std::shared_ptr<Watcher> watcher);
	void round(Watcher& watcher, const std::vector<Watch>& watches, Poco::Timespan interval);
	void probeDown(Watcher& watcher, const std::vector<Watch>& watches);
	void watchRole(const BlueTuskHostEndpoint& endpoint, const std::vector<Watch>& watches, Poco::Timespan interval);
	void roleFound(const BlueTuskHostEndpoint& endpoint, const std::vector<Watch>& watches, ServerRole before, ServerRole after);
	void stopLocked(std::shared_ptr<Watcher> watcher, std::vector<std::shared_ptr<Watcher>>& stopped);
	void watchLocked(Id id, const Member& member, const BlueTuskHostEndpoint& endpoint);
	void unwatchLocked(Id id, std::shared_ptr<Watcher> watcher, std::vector<std::shared_ptr<Watcher>>& stopped,
		std::vector<Watch>& released);
	static void joinAll(std::vector<std::shared_ptr<Watcher>>& stopped);

	HostStateRegistry& _states;
	mutable std::mutex _mutex;
	std::map<BlueTuskHostEndpoint, std::shared_ptr<Watcher>> _watchers;
	std::map<Id, Member> _members;   /// every registered data source, for setEndpoints()
	Id _nextId = 0;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_HealthMonitor_INCLUDED
