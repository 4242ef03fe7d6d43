//
// ResolvedCommit.cpp
//
// Library: BlueTusk/Transport
//
// The COMMIT whose lost answer is resolved (doc/outcomes.md): COMMIT travels in one write behind the query
// that reports the transaction id, and a connection lost before COMMIT's answer becomes success, a definite
// rollback or "outcome unknown", as the resolver finds.
//

#include "ResolvedCommit.h"
#include "SessionSupport.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Exception.h"
#include <memory>

namespace BlueTusk {
namespace Detail {

namespace {

[[noreturn]] void rolledBack(const std::string& text, const Poco::Exception& cause)
{
	throw BlueTuskTransactionRolledBackException(text, cause);
}


std::vector<QueryResult> resolve(const CommitRecord& record, CommitOutcomeResolver& resolver, const Poco::Exception& cause,
	std::vector<QueryResult> results)
	/// Asks resolver about record; returns results when it committed, else throws the outcome's exception.
{
	std::string explanation;
	const CommitOutcome outcome = resolver.resolve(record, explanation);
	transportLogger().notice("the COMMIT of %s was not answered (%s); resolved: %s (%s)", record.toString(), cause.displayText(),
		toString(outcome), explanation);
	if (outcome == CommitOutcome::Committed) return results;
	if (outcome == CommitOutcome::RolledBack)
		rolledBack("the COMMIT of " + record.toString() + " was not answered, and the transaction did not commit: " + explanation, cause);
	throw BlueTuskCommitOutcomeUnknownException("the COMMIT of " + record.toString() + " was not answered, and its outcome could not be "
		"resolved: " + explanation, cause);
}


std::vector<QueryResult> lostAnswer(Session& session, const std::vector<std::vector<QueryResult>>& answers, bool serializable,
	CommitOutcomeResolver& resolver, const Poco::Exception& cause, const CommitRecord* beginRecord)
	/// The connection failed before COMMIT's answer arrived (cause). answers: what arrived before.
{
	const std::string where = session.endpoint().toString();
	if (answers.empty())
	{
		// The transaction id never arrived. A FATAL in its place ended the session before COMMIT ran; any
		// other loss leaves it open whether the server got as far as COMMIT (its answer to the first query
		// may be what was lost).
		const BlueTuskServerException* fatal = dynamic_cast<const BlueTuskServerException*>(&cause);
		if (fatal) rolledBack("the transaction on " + where + " was rolled back: the server ended the session (" + fatal->sqlState() +
			") before it ran COMMIT", cause);
		if (beginRecord) return resolve(*beginRecord, resolver, cause, std::vector<QueryResult>());
		throw BlueTuskCommitOutcomeUnknownException("the connection to " + where + " was lost before the transaction id query sent with "
			"COMMIT was answered: whether COMMIT ran is unknown", cause);
	}
	if (answers.front().empty())
	{
		// The first query failed (an ERROR, then the connection went): the transaction was aborted, and a
		// COMMIT of an aborted transaction rolls it back.
		rolledBack("the transaction on " + where + " failed before COMMIT (its last query raised an error) and the connection "
			"was lost; it was rolled back", cause);
	}
	CommitRecord record = CommitRecord::fromCapture(session.endpoint(), answers.front().back());
	if (!record.hasXid())
	{
		// Nothing was written: committing and rolling back leave the same database. A serializable
		// transaction must still be re-run, as its reads are only valid if it commits (SSI can fail it
		// at COMMIT, PostgreSQL docs 13.2.3).
		if (serializable) rolledBack("the serializable transaction on " + where + " wrote nothing and its COMMIT was not answered; "
			"run it again", cause);
		transportLogger().information("the COMMIT of a transaction on %s that wrote nothing was not answered (%s); nothing to resolve", where, cause.displayText());
		return answers.front();
	}
	return resolve(record, resolver, cause, answers.front());
}

} // namespace


void checkCommitAnswer(const Session& session, const std::vector<QueryResult>& commitResults)
{
	if (commitResults.empty() || commitResults.back().commandTag != "ROLLBACK") return;
	BlueTuskServerException::Fields fields;
	fields.severity = "ERROR";
	fields.sqlState = "25P02";
	fields.message = "the transaction on " + session.endpoint().toString() +
		" had failed (an earlier statement raised an error); COMMIT rolled it back";
	throw BlueTuskServerException(fields, true);
}


std::vector<QueryResult> commitResolved(Session& session, const std::string& prefix, bool serializable, CommitOutcomeResolver& resolver,
	const CommitRecord* beginRecord)
{
	if (session.isBroken())
	{
		// COMMIT is never sent: a server ends a lost connection's open transaction by rolling it back.
		throw BlueTuskTransactionRolledBackException("the session to " + session.endpoint().toString() +
			" broke before COMMIT was sent; the server rolls the transaction back");
	}
	std::vector<std::vector<QueryResult>> answers;
	std::unique_ptr<Poco::Exception> cause;
	try
	{
		session.executeSimpleSequence({prefix + CommitRecord::CAPTURE_SQL, "COMMIT"}, answers);
	}
	catch (BlueTuskServerException& exc)
	{
		if (exc.sessionUsable()) throw;   // an ERROR: the transaction is over, rolled back
		cause.reset(exc.clone());         // FATAL: the session ended; did COMMIT run first?
	}
	catch (BlueTuskSessionBrokenException& exc)
	{
		cause.reset(exc.clone());
	}
	catch (BlueTuskProtocolException& exc)
	{
		cause.reset(exc.clone());
	}
	catch (Poco::TimeoutException& exc)
	{
		cause.reset(exc.clone());
	}
	if (cause) return lostAnswer(session, answers, serializable, resolver, *cause, beginRecord);
	checkCommitAnswer(session, answers.back());
	return std::move(answers.front());
}

} } // namespace BlueTusk::Detail
