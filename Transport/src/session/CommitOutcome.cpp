//
// CommitOutcome.cpp
//
// Library: BlueTusk/Transport
//
// The commit record, the judgement of a primary's pg_xact_status() answer and the timeline history
// (doc/outcomes.md).
//

#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/NumberFormatter.h"
#include "Poco/NumberParser.h"
#include "Poco/String.h"
#include <sstream>

namespace BlueTusk {

const char* const CommitRecord::CAPTURE_SQL =
	"SELECT pg_current_xact_id_if_assigned()::text, "
	"CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_insert_lsn()::text END, "
	"CASE WHEN pg_is_in_recovery() THEN NULL ELSE substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8) END";

const char* const CommitRecord::BEGIN_CAPTURE_SQL =
	"SELECT pg_current_xact_id()::text, "
	"CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_insert_lsn()::text END, "
	"CASE WHEN pg_is_in_recovery() THEN NULL ELSE substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8) END";

const char* const StatusAnswer::STATUS_SQL =
	"SELECT pg_xact_status($1::xid8), substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8)";

const char* const StatusAnswer::HISTORY_SQL = "SELECT pg_read_file($1)";


namespace {

Poco::UInt32 parseTimeline(const std::string& text, const char* what)
{
	unsigned value = 0;
	if (text.size() != 8 || !Poco::NumberParser::tryParseHex(text, value))
		throw BlueTuskProtocolException(std::string("unexpected ") + what + " \"" + text + "\" (8 hex digits expected)");
	return static_cast<Poco::UInt32>(value);
}

} // namespace


bool CommitRecord::hasXid() const
{
	return !xid.empty();
}


CommitRecord CommitRecord::fromCapture(const BlueTuskHostEndpoint& endpoint, const QueryResult& capture)
{
	if (capture.rows.size() != 1 || capture.rows[0].size() != 3)
		throw BlueTuskProtocolException("unexpected answer from " + endpoint.toString() + " to the transaction id query before COMMIT");
	const RowRef row = capture.rows[0];
	CommitRecord record;
	record.endpoint = endpoint;
	if (row[0])
	{
		Poco::UInt64 xid = 0;
		if (!Poco::NumberParser::tryParseUnsigned64(*row[0], xid))
			throw BlueTuskProtocolException("unexpected transaction id \"" + *row[0] + "\" from " + endpoint.toString());
		record.xid = *row[0];
	}
	if (row[1]) record.lsnBeforeCommit = Lsn::parse(*row[1]);
	if (row[2]) record.timeline = parseTimeline(*row[2], "timeline");
	return record;
}


std::string CommitRecord::toString() const
{
	std::string text = (hasXid() ? "xid " + xid : std::string("a transaction without xid")) + " on " + endpoint.toString();
	if (timeline) text += " (timeline " + Poco::NumberFormatter::format(timeline) + (takenAtBegin ? ", WAL at BEGIN " : ", WAL before COMMIT ") + lsnBeforeCommit.toString() + ")";
	return text;
}


std::string toString(CommitOutcome outcome)
{
	switch (outcome)
	{
	case CommitOutcome::Committed:  return "committed";
	case CommitOutcome::RolledBack: return "rolled back";
	case CommitOutcome::InProgress: return "in progress";
	case CommitOutcome::Unknown:    break;
	}
	return "unknown";
}


std::string StatusAnswer::historyFile(Poco::UInt32 timeline)
{
	return "pg_wal/" + Poco::NumberFormatter::formatHex(timeline, 8) + ".history";
}


Lsn timelineSwitchPoint(const std::string& history, Poco::UInt32 timeline, bool& found)
{
	found = false;
	std::istringstream lines(history);
	std::string line;
	while (std::getline(lines, line))
	{
		std::string trimmed = Poco::trim(line);
		if (trimmed.empty() || trimmed[0] == '#') continue;   // the format allows comments
		std::istringstream fields(trimmed);
		unsigned parent = 0;
		std::string lsn;
		if (!(fields >> parent >> lsn)) throw BlueTuskProtocolException("unexpected timeline history line \"" + trimmed + "\"");
		if (parent != timeline) continue;
		found = true;
		return Lsn::parse(lsn);
	}
	return Lsn();
}


CommitOutcome judgeCommit(const CommitRecord& record, const StatusAnswer& answer, std::string& explanation)
{
	const std::string who = answer.endpoint.toString();
	const std::string tli = Poco::NumberFormatter::format(answer.timeline);
	if (answer.xidInFuture)
	{
		explanation = who + " never assigned xid " + record.xid + " (\"in the future\"): its commit, if any, was on a lost WAL tail";
		return CommitOutcome::RolledBack;
	}
	const std::string status = answer.status ? *answer.status : std::string("NULL");
	if (answer.timeline == record.timeline || record.timeline == 0)
	{
		explanation = who + " (timeline " + tli + ") reports xid " + record.xid + " " + status;
		if (status == "committed") return CommitOutcome::Committed;
		if (status == "aborted") return CommitOutcome::RolledBack;
		if (status == "in progress") return CommitOutcome::InProgress;
		explanation += " (older than the commit log it keeps)";
		return CommitOutcome::Unknown;
	}
	if (answer.timeline < record.timeline)
	{
		explanation = who + " is on timeline " + tli + ", older than the transaction's " + Poco::NumberFormatter::format(record.timeline) +
			": it cannot speak for it";
		return CommitOutcome::Unknown;
	}
	if (answer.historyReadable)
	{
		bool found = false;
		Lsn end = timelineSwitchPoint(answer.history, record.timeline, found);
		if (!found)
		{
			explanation = who + " (timeline " + tli + ") does not descend from timeline " + Poco::NumberFormatter::format(record.timeline) +
				": the transaction's WAL is not on its history";
			return CommitOutcome::RolledBack;
		}
		if (end.value() <= record.lsnBeforeCommit.value())
		{
			explanation = "timeline " + Poco::NumberFormatter::format(record.timeline) + " ended at " + end.toString() + " on " + who +
				" (timeline " + tli + "), at or before the WAL position " + record.lsnBeforeCommit.toString() +
				(record.takenAtBegin ? " taken at BEGIN" : " taken before COMMIT") + ": the commit, if any, was on the lost tail (xid " + record.xid + " reads " + status + " there, which is not this transaction)";
			return CommitOutcome::RolledBack;
		}
		explanation = who + " (timeline " + tli + ", switched from " + Poco::NumberFormatter::format(record.timeline) + " at " + end.toString() +
			", after " + record.lsnBeforeCommit.toString() + ") reports xid " + record.xid + " " + status;
		if (status == "committed" && record.takenAtBegin)
		{
			// The position was taken before the transaction wrote anything: the switch after it does not
			// prove that the new primary saw the xid, which it may have given to a transaction of its own.
			explanation += ", but the xid was learned at BEGIN, before the transaction's WAL: it may be another transaction's";
			return CommitOutcome::Unknown;
		}
		if (status == "committed") return CommitOutcome::Committed;
		if (status == "aborted" || status == "in progress") return CommitOutcome::RolledBack;
		return CommitOutcome::Unknown;
	}
	explanation = who + " (timeline " + tli + ", the transaction ran on " + Poco::NumberFormatter::format(record.timeline) +
		"; its history is not readable by this role) reports xid " + record.xid + " " + status;
	if (status == "aborted" || status == "in progress") return CommitOutcome::RolledBack;
	if (status == "committed") explanation += ", which may be another transaction's under a reused id after a lost tail";
	return CommitOutcome::Unknown;
}


CommitOutcomeResolver::~CommitOutcomeResolver()
{
}

} // namespace BlueTusk
