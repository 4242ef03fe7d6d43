//
// BlueTuskDataSource.h
//
// Library: BlueTusk/Routing
//
// The pooled entry point: one EndpointPool per distinct endpoint, checkouts per target (doc/pooling.md).
//

#ifndef BlueTusk_BlueTuskDataSource_INCLUDED
#define BlueTusk_BlueTuskDataSource_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/RetryPolicy.h"
#include "BlueTusk/Transaction.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/PoolObserver.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "BlueTusk/TopologySource.h"
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace BlueTusk {

class TargetSessionPolicy;

class RoutingContext;


class BlueTusk_Routing_API BlueTuskDataSource
	/// What an application holds for its whole life: one EndpointPool per distinct endpoint of the host
	/// list (pool sizes apply per endpoint), shared by checkouts of every target.
	///
	/// A checkout (open(target)) takes, in host order, what is available now from an acceptable endpoint:
	/// an idle session before a new one, an endpoint whose learned role the target accepts before one it
	/// only falls back to. A pooled session handed to a targeted checkout (target not any) has its role
	/// refreshed with a probe round trip first; a session whose server changed role goes back to idle and
	/// the endpoint's learned role is updated. Only when no acceptable endpoint has capacity does the
	/// checkout wait, first come first served, on all of them with one deadline (Checkout Timeout), then it
	/// throws BlueTuskPoolTimeoutException with the per-endpoint counts. With Host Order=parallel, new
	/// sessions are raced and the losers join their pools as idle.
	///
	/// The returned BlueTuskConnection is a lease: its close() or destructor returns the session to the pool
	/// that owns it. Leases keep the pools alive, so a lease may outlive the data source object.
	///
	/// With Pooling=false the data source keeps nothing idle (every returned session is closed) but still
	/// enforces Maximum Pool Size.
	///
	/// Replica freshness (doc/freshness.md): with Read Your Writes=true, or a token given to open(target,
	/// token), read checkouts take only standbys that have replayed the token; with Max Standby Lag, standby,
	/// read-only and prefer-standby checkouts reject standbys too far behind the primary.
	///
	/// Learned host states (down, role) are shared through the connector's HostStateRegistry; each pool
	/// also keeps its endpoint's last seen role. See doc/routing.md and doc/pooling.md.
	///
	/// Topology Source (doc/high-availability.md, "Topology sources"): the data source creates the source
	/// (RoutingContext::createTopologySource()) and reads it from one background thread every Topology Refresh
	/// Interval; the members read become the host list (hostList()), the written endpoints being the seed
	/// (used until the first successful read, and appended to the last members read while reads fail).
	/// A new member gets a pool, a dropped one is drained (idle sessions closed at once, leased ones when
	/// they return); the source's roles only order the candidates, every session's role is still confirmed.
	/// No checkout waits for a read.
	///
	/// Thread-safety: every member function is thread-safe; leases are used by one thread at a time.
	/// Logging: Poco::Logger "BlueTusk.Routing".
{
public:
	using Ptr = std::shared_ptr<BlueTuskDataSource>;

	static Ptr create(const std::string& connectionString);
		/// A data source over RoutingContext::defaultContext(). Loads the Eviction Policy named in the string.
		/// Throws BlueTuskConnectionStringException or BlueTuskPluginException (unknown Host Order,
		/// Eviction Policy or Topology Source: the message lists the available names; a malformed Topology
		/// Source location: BlueTuskConnectionStringException naming the keyword). Starts background pruning,
		/// warms the pools up to Minimum Pool Size in the background, and with Topology Source starts the
		/// topology thread (its first read happens in the background).

	static Ptr create(const std::string& connectionString, RoutingContext& connector);
		/// As above, through connector (its plugins, session factory and host states).

	static Ptr create(const ConnectionSettings& settings, RoutingContext& connector);
		/// As above, with settings already parsed.

	~BlueTuskDataSource();
		/// Stops the topology thread (closes the source, joins the thread; a read in progress ends within its
		/// timeout, at most 5 s), then drains every pool: idle sessions are closed now, leased ones when they
		/// come back. The pools (and their pruning thread) end with the last lease.

	BlueTuskConnection open();
		/// A checkout for the connection string's Target Session Attributes: a standard target, or the site
		/// target-session policy it names (ConnectionSettings::targetSessionPolicy, doc/plugins.md).

	BlueTuskConnection open(TargetSessionAttributes target);
		/// A checkout for target. Throws BlueTuskPoolTimeoutException (no capacity before Checkout
		/// Timeout), BlueTuskAuthenticationException, BlueTuskNoAcceptableHostException (no endpoint can
		/// give an acceptable session, after Failover Timeout; thrown as HostAttemptsException, whose
		/// attempts() gives every attempt of every pass as data).

	BlueTuskConnection open(TargetSessionAttributes target, const Lsn& token);
		/// A checkout for target that reads its writes (doc/freshness.md): a standby is taken only once it
		/// has replayed up to token (learned in the role-refresh round trip, no extra one); a standby behind
		/// it is a Fallback, and when the checkout would get one, it asks that session again (every 0.2 ms
		/// doubling to 10 ms) for up to Read Your Writes Timeout; then standbys behind the token are
		/// rejected: prefer-standby, prefer-primary and any take the primary, standby and read-only (without
		/// a read-only primary) throw HostAttemptsException naming how far behind each standby was.
		/// token comes from BlueTuskConnection::walPosition(), here or in another process (Lsn::parse()).
		/// With Read Your Writes=true the newer of token and walPosition() counts. A token of 0/0, or a
		/// target primary or read-write: as open(target). Throws as open(target).

	Lsn walPosition() const;
		/// With Read Your Writes=true: the newest token this data source saw (each write lease's position at
		/// its return, every BlueTuskConnection::walPosition() of its leases); open(target) of a read target
		/// then waits for it. 0/0 otherwise, or before the first write lease came back.

	BlueTuskConnection open(const std::string& target);
		/// A checkout for the target named as in a connection string ("prefer-standby", case-insensitive), or
		/// for the site target-session policy of that name loaded into the data source's routing context
		/// (resolved once, then kept; doc/plugins.md). Throws BlueTuskConnectionStringException (listing
		/// the standard names and the loaded policies) for a name neither is, then as
		/// open(TargetSessionAttributes). A site target counts as "any" for Read Your Writes.

	CommitOutcomeResolver::Ptr outcomeResolver(const Poco::Timespan& timeout = Poco::Timespan(10, 0)) const;
		/// A resolver for TransactionOptions::outcomeResolver and Transaction::executeWithOutcome(): a COMMIT
		/// whose answer was lost is resolved on the current primary, routed with read-write under this data
		/// source's settings and connector (RoutedOutcomeResolver), asking again until timeout (doc/outcomes.md).
		/// With Topology Source, over the members of hostList() at the time of the call.
		/// Throws BlueTuskUsageException for a timeout <= 0. The resolver does not keep the data source alive.

	using UnitOfWork = std::function<void(BlueTuskConnection& lease, Transaction& transaction)>;

	unsigned runInTransaction(const UnitOfWork& work, const std::string& retryPolicy = "default",
		const TransactionOptions& options = TransactionOptions());
		/// runInTransaction(target, work, retryPolicy, options) with target read-write (a unit of work may
		/// write: it needs a writable server whatever this data source's own target is), or, for a unit
		/// declared read-only (options.readOnly), this data source's Target Session Attributes.

	unsigned runInTransaction(const UnitOfWork& work, const RetryPolicy& retryPolicy, const TransactionOptions& options = TransactionOptions());
		/// As above, with a policy object.

	unsigned runInTransaction(TargetSessionAttributes target, const UnitOfWork& work, const std::string& retryPolicy = "default",
		const TransactionOptions& options = TransactionOptions());
		/// Runs work in a transaction on a lease of open(target) and commits it when work returns with the
		/// transaction still active; runs it again, on a fresh lease, after a retryable failure (RetryCause: a
		/// failover error, SQLSTATE 40001 or 40P01, a COMMIT resolved as rolled back) for as long as the retry
		/// policy named retryPolicy (RoutingContext::retryPolicy(): "default", "no-retry", "read-only", or a
		/// plugin's) says so and within its budget(); each wait is the policy's delay, bounded by what is left
		/// of the budget. A failure with SQLSTATE 25006 (read_only_sql_transaction: the server would not take
		/// a write) is retried on a writable server: the later attempts use read-write whatever target was
		/// given; in a unit declared read-only (options.readOnly) 25006 is the unit's own doing and reaches
		/// the caller at once. Commits resolve a lost answer (options' outcomeResolver, else
		/// outcomeResolver() with its default timeout), so a write never runs twice:
		/// BlueTuskCommitOutcomeUnknownException and every non-retryable error reach the caller at once, and
		/// so does any error after work itself ended the transaction (commit() or rollback() inside work),
		/// except BlueTuskTransactionRolledBackException. Returns the attempts made (1: no retry).
		/// doc/outcomes.md, "Retrying". Throws the last failure when the policy stops, BlueTuskPluginException
		/// for an unknown policy name.

	unsigned runInTransaction(TargetSessionAttributes target, const UnitOfWork& work, const RetryPolicy& retryPolicy,
		const TransactionOptions& options = TransactionOptions());
		/// As above, with a policy object.

	PoolStatistics getPoolStatistics() const;
		/// The counters summed over every endpoint pool (a consistent snapshot).

	std::map<BlueTuskHostEndpoint, PoolStatistics> getHostPoolStatistics() const;
		/// The counters per endpoint, every endpoint of the host list included (a consistent snapshot), with
		/// the last known WAL position and lag of each endpoint the freshness rules probed (doc/freshness.md).
		/// With Topology Source: the current host list's endpoints, and a dropped member's while it still
		/// has sessions (draining set).

	std::vector<BlueTuskHostEndpoint> hostList() const;
		/// The endpoints checkouts route over now: with Topology Source the current members (or the written
		/// hosts before the first successful read), else the written host list. Thread-safe.

	TopologySnapshot topology() const;
		/// The last successful read of the Topology Source (members with their role hints, state, timeline,
		/// lag; readAt), or an empty snapshot (no member) without a source or before the first read. A read
		/// changes together with hostList() and the router's role hints (one lock). Thread-safe.

	void setObserver(PoolObserver::Ptr observer);
		/// Installs observer (null: none) for this data source's pools and checkouts (doc/metrics.md):
		/// create, wait and use times, attempts by outcome, failover waits, learned role changes. A
		/// replaced observer stays alive until the pools end. Thread-safe.

	PoolObserver* observer() const;
		/// The observer installed, or null.

	void drain(const BlueTuskHostEndpoint& endpoint);
		/// Hands out nothing new from endpoint's pool, closes its idle sessions now and its busy ones when
		/// they return. Checkouts go to the other acceptable endpoints. Throws Poco::NotFoundException when
		/// endpoint is neither in the written host list nor in the topology's current one. A topology
		/// member dropped and added again has its pool resumed by the topology thread.

	void resume(const BlueTuskHostEndpoint& endpoint);
		/// Ends draining of endpoint. Throws Poco::NotFoundException as drain(endpoint).

	void drain();
		/// Drains every pool (shutdown).

	void warmUp();
		/// Opens, synchronously, the Minimum Pool Size of every endpoint of hostList() (failures are logged,
		/// not thrown).

	const ConnectionSettings& settings() const;
		/// The parsed settings.

	RoutingContext& routingContext() const;
		/// The routing context this data source resolves policies and learns host states through.

	[[deprecated("use routingContext()")]] RoutingContext& connector() const
		/// The old name of routingContext() (from when RoutingContext was called Connector).
	{
		return routingContext();
	}

private:
	BlueTuskDataSource(const ConnectionSettings& settings, const RoutingContext& connector);
	BlueTuskDataSource(const BlueTuskDataSource&) = delete;
	BlueTuskDataSource& operator = (const BlueTuskDataSource&) = delete;

	BlueTuskConnection open(TargetSessionAttributes target, const Lsn& token, const std::shared_ptr<TargetSessionPolicy>& site);
		/// open(target, token), routed with site when given (a site target-session policy; target is then Any).

	struct Impl;
	std::shared_ptr<Impl> _impl;
};

} // namespace BlueTusk

#endif // BlueTusk_BlueTuskDataSource_INCLUDED
