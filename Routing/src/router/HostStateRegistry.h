//
// HostStateRegistry.h
//
// Library: BlueTusk/Routing
//
// What the router has learned about endpoints: down since when, which role (doc/routing.md, step 2).
//

#ifndef BlueTusk_HostStateRegistry_INCLUDED
#define BlueTusk_HostStateRegistry_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {

class BlueTusk_Routing_API HostStateRegistry
	/// The learned state of each endpoint: UP (with the role found, Unknown when the target did not need
	/// one) or DOWN (with the reason), and when it was learned. A state is trusted for Host Recheck Seconds
	/// (the caller's ConnectionSettings::hostRecheck); an older one counts as UNKNOWN. The router puts
	/// endpoints whose fresh state is DOWN or whose fresh role the target rejects after the others.
	///
	/// One registry belongs to each RoutingContext and is shared by every open and data source using it, so a
	/// second open learns from the first. Thread-safe.
{
public:
	struct Entry
	{
		HostCandidate::State state = HostCandidate::UNKNOWN;
		ServerRole role = ServerRole::Unknown;  /// the role last seen (kept across a DOWN)
		Poco::Timestamp learnedAt;              /// when state was last set
		Poco::Timestamp roleLearnedAt;          /// when role was last set
		std::string reason;                     /// why DOWN ("refused"), else ""
	};

	HostStateRegistry();
	~HostStateRegistry();

	void markDown(const BlueTuskHostEndpoint& endpoint, const std::string& reason);
		/// Records that endpoint failed now (network, timeout, early close, availability SQLSTATE).

	void markUp(const BlueTuskHostEndpoint& endpoint, ServerRole role);
		/// Records that a session to endpoint was opened now; role Unknown keeps the previous role.

	void noteConnectTime(const BlueTuskHostEndpoint& endpoint, double milliseconds);
		/// Records how long a new session to endpoint took to open (the router, for each new physical
		/// session): HostCandidate::lastConnectMs, and smoothedConnectMs as RFC 6298 smooths a round-trip
		/// time (alpha 1/8). Kept by forget() and forgetAll(): a measurement is no learned state.

	void noteQueryTime(const BlueTuskHostEndpoint& endpoint, double milliseconds);
		/// Records one query round trip measured on a session to endpoint (a role refresh or probe on an
		/// existing session: the router before it accepts a pooled one, the health monitor's watch):
		/// HostCandidate::lastQueryMs, smoothedQueryMs (RFC 6298, alpha 1/8). Kept like the connect times.

	static double smoothed(double previous, unsigned count, double milliseconds);
		/// RFC 6298's smoothing of a round-trip time (SRTT): the first measurement (count 0) as is, then
		/// 7/8 of previous plus 1/8 of the new one.

	void setRole(const BlueTuskHostEndpoint& endpoint, ServerRole role);
		/// Records the role of endpoint seen now (e.g. after refreshing a pooled session), marking it UP.

	Entry entry(const BlueTuskHostEndpoint& endpoint) const;
		/// The raw entry (UNKNOWN, role Unknown when nothing was learned).

	HostCandidate candidate(const BlueTuskHostEndpoint& endpoint, std::size_t position, Poco::Timespan recheck) const;
		/// A HostCandidate with state and role filled in when learned less than recheck ago.

	void notePrimaryTimeline(const BlueTuskHostEndpoint& endpoint, Poco::UInt32 timeline);
		/// Records the timeline endpoint works on as a primary (the split-brain guard, doc/high-availability.md).
		/// Primary timelines are kept by forget() and forgetAll(): they are what a later pass compares with.

	void clearPrimaryTimeline(const BlueTuskHostEndpoint& endpoint);
		/// endpoint reported a standby role: it no longer claims primary.

	Poco::UInt32 primaryTimeline(const BlueTuskHostEndpoint& endpoint) const;
		/// The recorded primary timeline of endpoint; 0 when none.

	Poco::UInt32 newestOtherPrimaryTimeline(const BlueTuskHostEndpoint& endpoint, const std::vector<BlueTuskHostEndpoint>& endpoints,
		BlueTuskHostEndpoint* holder = nullptr) const;
		/// The newest primary timeline recorded for an endpoint of endpoints other than endpoint (0: none);
		/// holder, when given, receives that endpoint.

	bool isDeposed(const BlueTuskHostEndpoint& endpoint, const std::vector<BlueTuskHostEndpoint>& endpoints) const;
		/// True when endpoint's recorded primary timeline is older than another's of endpoints. Lock-free
		/// false while no two recorded primary timelines differ (the steady state).

	void forget(const std::vector<BlueTuskHostEndpoint>& endpoints);
		/// Drops what was learned about endpoints (the Failover Timeout loop does this before each pass).

	void forgetAll();

	void watch(const BlueTuskHostEndpoint& endpoint);
		/// The connector's health monitor (doc/high-availability.md) watches endpoint from now on: while it
		/// does, a DOWN state of endpoint counts as fresh whatever its age (the monitor re-probes it in the
		/// background and marks it UP when it answers), so the request path keeps trying it last instead of
		/// paying its Timeout again once Host Recheck Seconds have passed (Host Recheck Seconds=0 still
		/// trusts nothing). Counted: every watch() needs its
		/// unwatch(). Kept by forget() and forgetAll(). Thread-safe.

	void unwatch(const BlueTuskHostEndpoint& endpoint);
		/// Ends one watch() of endpoint; with the last, its DOWN state expires after Host Recheck Seconds
		/// again. Thread-safe.

	bool isWatched(const BlueTuskHostEndpoint& endpoint) const;
		/// Whether the health monitor watches endpoint now. Thread-safe.

private:
	HostStateRegistry(const HostStateRegistry&) = delete;
	HostStateRegistry& operator = (const HostStateRegistry&) = delete;

	bool mayHaveDown() const;
		/// False when no entry is DOWN (however old): a caller may then skip per-endpoint lookups. Lock-free.

	std::uint32_t generation() const;
		/// Changes with every change of any entry: a caller that cached downSinceMs() for an endpoint may
		/// keep using it while this stays the same. Lock-free.

	Poco::Int64 downSinceMs(const BlueTuskHostEndpoint& endpoint) const;
		/// When endpoint was marked DOWN (milliseconds since the epoch), or 0 when it is not DOWN;
		/// WATCHED_DOWN when it is DOWN and watched by the health monitor (fresh whatever its age).

	static constexpr Poco::Int64 WATCHED_DOWN = -1;

	friend class BlueTuskDataSource;

	mutable std::mutex _mutex;
	std::map<BlueTuskHostEndpoint, Entry> _entries;
	std::atomic<int> _downEntries{0};       /// entries whose state is DOWN (changed under _mutex)
	std::map<BlueTuskHostEndpoint, Poco::UInt32> _primaryTimelines; /// split-brain guard (under _mutex)
	std::atomic<bool> _timelinesDiffer{false}; /// two recorded primary timelines differ (set under _mutex)
	std::atomic<std::uint32_t> _generation{1}; /// incremented under _mutex by every change
	std::map<BlueTuskHostEndpoint, int> _watched; /// watch() counts per endpoint (under _mutex)
	struct ConnectTimes
	{
		double lastMs = -1;
		double smoothedMs = -1;
		Poco::Timestamp measuredAt = 0;
		unsigned count = 0;

		void add(double milliseconds)
			/// One more measurement, now (smoothed()).
		{
			lastMs = milliseconds;
			smoothedMs = smoothed(smoothedMs, count, milliseconds);
			measuredAt.update();
			++count;
		}
	};
	std::map<BlueTuskHostEndpoint, ConnectTimes> _connectTimes; /// noteConnectTime() (under _mutex)
	std::map<BlueTuskHostEndpoint, ConnectTimes> _queryTimes;   /// noteQueryTime() (under _mutex)
};

} // namespace BlueTusk

#endif // BlueTusk_HostStateRegistry_INCLUDED
