//
// SimpleQuery.cpp
//
// Library: BlueTusk/Transport
//
// The simple query protocol (PostgreSQL docs 55.2.2) and the unnamed-statement extended query with text
// parameters of a ProtocolSession.
//

#include "ProtocolSession.h"
#include <algorithm>

namespace BlueTusk {

std::vector<QueryResult> ProtocolSession::executeSimple(const std::string& sql)
{
	ensureUsable();
	refuseBehindPooler(sql);
	try
	{
		writePendingReset();
		_writer.query(sql);
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	hintRows(sql);
	std::vector<QueryResult> results = runCycle();
	rememberRows(sql, results);
	return results;
}


void ProtocolSession::executeSimpleSequence(const std::vector<std::string>& queries, std::vector<std::vector<QueryResult>>& answers)
{
	answers.clear();
	if (queries.empty()) return;
	ensureUsable();
	for (const std::string& sql: queries) refuseBehindPooler(sql);
	try
	{
		writePendingReset();
		for (const auto& sql: queries) _writer.query(sql);   // one write: the lot costs one round trip
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	// Each Query is its own cycle up to its ReadyForQuery: an ERROR in one leaves the later ones to run,
	// so their answers must be read too before the session is in step again.
	std::unique_ptr<BlueTuskServerException> error;
	for (std::size_t i = 0; i < queries.size(); ++i)
	{
		try
		{
			answers.push_back(i == 0 ? runCycle() : readCycle());
		}
		catch (BlueTuskServerException& exc)
		{
			if (_broken) throw;
			if (!error) error.reset(new BlueTuskServerException(exc));
			answers.emplace_back();
		}
	}
	if (error) error->rethrow();
}

QueryResult ProtocolSession::execute(const std::string& sql, const std::vector<FieldValue>& parameters)
{
	ensureUsable();
	refuseBehindPooler(sql);
	try
	{
		writePendingReset();
		writePendingCloses();
		_writer.unnamedQuery(sql, parameters);   // Parse/Bind/Describe/Execute/Sync in one pass
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	hintRows(sql);
	std::vector<QueryResult> results = runCycle();
	rememberRows(sql, results);
	if (results.empty()) return QueryResult();
	return std::move(results.front());
}

namespace {

const std::size_t MANY_ROWS = 1024;          // fewer: the vector's growth costs little, nothing is remembered
const std::size_t MAX_ROWS_HINT = 1 << 20;   // 8 MB of row pointers (ResultRows) at the most, reserved on a hint

} // namespace


void ProtocolSession::hintRows(const std::string& sql)
{
	_rowsHint = _rowsHintCount > 0 && sql == _rowsHintSql ? std::min(_rowsHintCount, MAX_ROWS_HINT) : 0;
}


void ProtocolSession::rememberRows(const std::string& sql, const std::vector<QueryResult>& results)
{
	const std::size_t rows = results.empty() ? 0 : results.front().rows.size();
	if (rows >= MANY_ROWS)
	{
		if (_rowsHintSql != sql) _rowsHintSql = sql;
		_rowsHintCount = rows;
	}
	else if (_rowsHintCount > 0 && sql == _rowsHintSql)
	{
		_rowsHintCount = 0;
	}
}

} // namespace BlueTusk
