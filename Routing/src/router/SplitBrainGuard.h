//
// SplitBrainGuard.h
//
// Library: BlueTusk/Routing
//
// The split-brain guard (doc/high-availability.md): a server that claims primary on an older timeline than
// another endpoint of the host list was seen primary on is not handed to write targets.
//

#ifndef BlueTusk_Detail_SplitBrainGuard_INCLUDED
#define BlueTusk_Detail_SplitBrainGuard_INCLUDED

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "HostStateRegistry.h"
#include "BlueTusk/Session.h"
#include "BlueTusk/TargetSessionPolicy.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

struct GuardVerdict
{
	bool admit = true;
	std::string detail;   /// why not, for the attempt log ("primary on timeline 3, older than ...")
};


bool guardsWrites(const TargetSessionPolicy& target);
	/// True for targets that take a primary and refuse a standby (read-write, primary): the ones a deposed
	/// primary must not serve.

Poco::UInt32 queryTimeline(Session& session);
	/// The timeline the server writes WAL on: the first 8 hex digits of
	/// pg_walfile_name(pg_current_wal_lsn()) (PostgreSQL docs 9.27.3; 55000 "recovery is in progress" on a
	/// standby, thrown as BlueTuskServerException). One round trip. 0 when the answer is not a WAL file name.

GuardVerdict checkPrimary(HostStateRegistry& states, const std::vector<BlueTuskHostEndpoint>& endpoints,
	const BlueTuskHostEndpoint& endpoint, Session& session);
	/// For a session to endpoint that reports a primary role, for a write target. Asks the server for its
	/// timeline only when nothing is recorded for endpoint yet, or another endpoint of the list has a
	/// recorded primary timeline at least as new as endpoint's (two servers claim primary): in the steady
	/// state no round trip. Records what it learns; refuses when another endpoint's timeline is newer, or
	/// when the server cannot answer as a primary. Never throws (a failed query refuses).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_SplitBrainGuard_INCLUDED
