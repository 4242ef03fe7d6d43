//
// ResolvedCommit.h
//
// Library: BlueTusk/Transport
//
// The COMMIT whose lost answer is resolved (Transaction::commit() and Transaction::executeWithOutcome()).
//

#ifndef BlueTusk_Detail_ResolvedCommit_INCLUDED
#define BlueTusk_Detail_ResolvedCommit_INCLUDED

#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/Session.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

std::vector<QueryResult> commitResolved(Session& session, const std::string& prefix, bool serializable, CommitOutcomeResolver& resolver,
	const CommitRecord* beginRecord);
	/// Sends prefix + CommitRecord::CAPTURE_SQL and COMMIT in one write (Session::executeSimpleSequence)
	/// and returns the first query's results (prefix's statements, then the capture). A connection lost
	/// before COMMIT's answer is resolved (Transaction::commit()); a server error propagates. beginRecord
	/// (or null): the record taken with BEGIN, resolved when not even the capture was answered.

void checkCommitAnswer(const Session& session, const std::vector<QueryResult>& commitResults);
	/// Throws BlueTuskServerException 25P02 when COMMIT answered ROLLBACK (the transaction had failed).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ResolvedCommit_INCLUDED
