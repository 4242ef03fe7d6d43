//
// SplitBrainGuard.cpp
//
// Library: BlueTusk/Routing
//
// A primary is deposed when another endpoint of the host list was seen primary on a newer timeline: every
// promotion starts a new timeline (PostgreSQL docs 26.3.5, Timelines), so the older one is the server a
// failover manager has replaced but not yet demoted (a frozen leader thawed, a partitioned primary).
//

#include "SplitBrainGuard.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/NumberParser.h"

namespace BlueTusk {
namespace Detail {

bool guardsWrites(const TargetSessionPolicy& target)
{
	return target.needsRole() && target.classify(ServerRole::Primary) == RoleVerdict::Accept &&
		target.classify(ServerRole::Standby) == RoleVerdict::Reject;
}


Poco::UInt32 queryTimeline(Session& session)
{
	std::vector<QueryResult> results = session.executeSimple("SELECT pg_walfile_name(pg_current_wal_lsn())");
	if (results.size() != 1 || results[0].rows.size() != 1 || results[0].rows[0].size() != 1 || !results[0].rows[0][0])
		return 0;
	const std::string& name = *results[0].rows[0][0];
	unsigned value = 0;
	if (name.size() != 24 || !Poco::NumberParser::tryParseHex(name.substr(0, 8), value)) return 0;
	return static_cast<Poco::UInt32>(value);
}


GuardVerdict checkPrimary(HostStateRegistry& states, const std::vector<BlueTuskHostEndpoint>& endpoints,
	const BlueTuskHostEndpoint& endpoint, Session& session)
{
	GuardVerdict verdict;
	const Poco::UInt32 known = states.primaryTimeline(endpoint);
	BlueTuskHostEndpoint holder;
	const Poco::UInt32 other = states.newestOtherPrimaryTimeline(endpoint, endpoints, &holder);
	if (known != 0 && other < known) return verdict;   // the newest primary seen: nothing to ask

	Poco::UInt32 timeline = known;
	try
	{
		timeline = queryTimeline(session);
	}
	catch (Poco::Exception& exc)
	{
		verdict.admit = false;
		verdict.detail = "claimed primary but could not say its timeline (" + exc.message() + ")";
		return verdict;
	}
	if (timeline == 0) return verdict;   // not PostgreSQL's answer (a proxy, a fake): no evidence either way
	states.notePrimaryTimeline(endpoint, timeline);
	if (other > timeline)
	{
		verdict.admit = false;
		verdict.detail = "primary on timeline " + std::to_string(timeline) + ", older than timeline " + std::to_string(other) +
			" of " + holder.toString() + " (split-brain guard: a deposed primary)";
	}
	return verdict;
}

} } // namespace BlueTusk::Detail
