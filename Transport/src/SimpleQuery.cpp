//
// SimpleQuery.cpp
//
// Library: BlueTusk/Transport
//
// The simple query protocol (PostgreSQL docs 55.2.2) and the unnamed-statement extended query with text
// parameters of a ProtocolSession.
//

#include "BlueTusk/ProtocolSession.h"

namespace BlueTusk {

std::vector<QueryResult> ProtocolSession::executeSimple(const std::string& sql)
{
	ensureUsable();
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
	return runCycle();
}


QueryResult ProtocolSession::execute(const std::string& sql, const std::vector<FieldValue>& parameters)
{
	ensureUsable();
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
	std::vector<QueryResult> results = runCycle();
	if (results.empty()) return QueryResult();
	return std::move(results.front());
}

} // namespace BlueTusk
