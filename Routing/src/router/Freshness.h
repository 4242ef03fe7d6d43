//
// Freshness.h
//
// Library: BlueTusk/Routing
//
// Replica freshness (doc/freshness.md): read your writes and Max Standby Lag, the
// two rules that refine the target table for read targets.
//

#ifndef BlueTusk_Detail_Freshness_INCLUDED
#define BlueTusk_Detail_Freshness_INCLUDED

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/TargetSessionPolicy.h"
#include "Poco/Timestamp.h"
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

class FreshnessState
	/// What one data source knows of WAL positions: the newest read-your-writes token it saw (Read Your
	/// Writes), the primary's last known position (from tokens, else from at most one
	/// "SELECT pg_current_wal_lsn()" per second, refreshPrimary()), and per endpoint
	/// the last known position and lag (for the pool statistics). Thread-safe.
{
public:
	static const Poco::Timespan PRIMARY_REFRESH;
		/// One second: how old the primary's position may get before a Max Standby Lag checkout asks for it.

	explicit FreshnessState(const ConnectionSettings& settings);

	const ConnectionSettings& settings() const;

	void noteToken(Lsn token);
		/// A write lease's position after its last commit: the newest becomes token(); the primary is at
		/// least there.

	Lsn token() const;
		/// The newest token noted (0/0: none).

	void noteProbe(const BlueTuskHostEndpoint& endpoint, ServerRole role, Lsn replayed, Lsn received);
		/// The answer of a role-and-WAL probe (SessionControl::probeRoleAndWal()), or a primary's position
		/// (replayed = received = pg_current_wal_lsn()): a primary's advances primaryPosition(); a
		/// standby's replay position and lag go into its endpoint's statistics.

	Lsn primaryPosition() const;

	Lsn position(const BlueTuskHostEndpoint& endpoint) const;
		/// The endpoint's last known position (a standby's replay position as of its last probe), 0/0 when
		/// not known.

	Poco::UInt64 lag(Lsn replayed, Lsn received) const;
		/// How far a standby is behind the primary as far as known: from the newer of the primary's last
		/// known position and what the standby has received (WAL it has but did not replay yet).

	void refreshPrimary(PoolManager& pools, const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// When the primary's position is older than PRIMARY_REFRESH and no other thread is at it: asks one
		/// idle session of an endpoint last seen as primary for pg_current_wal_lsn() (one small query per
		/// data source per second at most). Nothing idle there: nothing asked. Never throws.

	void addStatistics(std::map<BlueTuskHostEndpoint, PoolStatistics>& statistics) const;
		/// Fills walPosition and lagBytes of each endpoint the state has a position of.

private:
	struct Position
	{
		Lsn position;
		Poco::Int64 lag = -1;
	};

	const ConnectionSettings& _settings;
	mutable std::mutex _mutex;
	Lsn _token;
	Lsn _primary;
	std::atomic<Poco::Int64> _primarySeenUs{0};    /// when _primary was last learned (Poco::Timestamp)
	std::atomic<bool> _refreshing{false};
	std::map<BlueTuskHostEndpoint, Position> _positions;
};


class FreshnessRule
	/// The freshness rules of one checkout, the Router's hook (Router::Request::freshness): it probes
	/// role and WAL position in the one role-refresh round trip, turns a standby behind the token into a
	/// Fallback (waiting) or a Reject (strict, after Read Your Writes Timeout), and a standby beyond Max
	/// Standby Lag into a Reject, each with a message ("standby 4.2 MB behind, Max Standby Lag 1 MB").
	/// checkout() runs the whole freshness checkout around the Router. probe() may be called from a
	/// parallel race's threads at once; the rest from the checkout's thread.
{
public:
	using Route = std::function<PoolEntryPtr(TargetSessionPolicy::Ptr)>;

	FreshnessRule(FreshnessState& state, TargetSessionAttributes target, Lsn token);
		/// token: the checkout's read-your-writes token (0/0: none).

	bool active() const;
		/// Whether either rule applies to this checkout (else the checkout runs as without them, with no
		/// extra round trip).

	ServerRole probe(Session& session);
		/// SessionControl::probeRoleAndWal(), remembered for refine() and noted in the state.

	RoleVerdict refine(const Session& session, ServerRole role, RoleVerdict verdict, std::string& reason);
		/// The verdict after the rules; reason says why it changed ("standby 4.2 MB behind, Max Standby Lag
		/// 1 MB"), else stays empty.

	PoolEntryPtr checkout(const Route& route, TargetSessionPolicy::Ptr policy, PoolManager& pools,
		const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// With a token and a target that takes a standby before the primary (standby, read-only,
		/// prefer-standby): first waits on the idle sessions the standbys' pools already have (waitOnIdle()),
		/// so that the route finds a standby that has replayed the token and opens nothing new. Then routes
		/// with policy (made to probe roles when the target is any), and when the winner is a standby behind
		/// the token, asks that session again until it has replayed up to the token or Read Your Writes
		/// Timeout runs out; then routes once more with standbys behind the token rejected (prefer-standby
		/// and any: the primary; standby: HostAttemptsException naming how far behind each standby was).
		/// Throws what route throws.

private:
	struct Probed
	{
		ServerRole role = ServerRole::Unknown;
		Lsn replayed;
		Lsn received;
		Poco::UInt64 sessionId = 0;
		bool reusable = false;   /// waitOnIdle() asked it and found the token replayed: the route's probe of
		                         /// this session takes this answer (once) instead of another round trip
	};

	bool behindToken(const Session& session, Poco::UInt64& behind);
	bool beyondLag(const Session& session);
	void markReusable(const Session& session);
	bool waitOnIdle(const TargetSessionPolicy& policy, PoolManager& pools, const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// a standby behind the token is asked again on a session its pool has idle, never on a
		/// new one. Takes (tryTakeIdle) one idle session of each endpoint last seen as a standby and probes
		/// it; a standby that has replayed the token ends it at once (its session back in the pool, its
		/// answer kept for the route). Otherwise asks the sessions taken again, on the schedule of the wait
		/// after routing, until one has replayed the token or Read Your Writes Timeout runs out (then the
		/// route is strict). The sessions go back to their pools either way. Nothing to do (no idle standby
		/// session, or a standby already known to have replayed the token): returns at once. Returns whether
		/// it waited out the timeout.
	void pause(std::chrono::microseconds& pause, const Poco::Timestamp& start, const Poco::Timestamp& deadline) const;
		/// Sleeps the wait's next pause (0.2 ms for the first 20 ms, then doubling to 10 ms), never past deadline.

	FreshnessState& _state;
	const TargetSessionAttributes _target;
	const Lsn _token;
	const bool _useToken;
	const bool _useLag;
	bool _strict = false;   /// after the wait: a standby behind the token is rejected
	std::mutex _mutex;      /// guards _probed (a parallel race probes from several threads)
	std::map<const Session*, Probed> _probed;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_Freshness_INCLUDED
