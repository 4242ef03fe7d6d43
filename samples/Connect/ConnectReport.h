//
// ConnectReport.h
//
// bluetusk-connect: everything it prints, as JSON lines (--json) or as text for a person.
//

#ifndef BlueTusk_Samples_ConnectReport_INCLUDED
#define BlueTusk_Samples_ConnectReport_INCLUDED

#include "ConnectStream.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/Exception.h"
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Samples {

class ConnectReport
	/// Prints bluetusk-connect's events. JSON mode: one object per line on out, errors included. Text mode:
	/// readable lines on out, errors on err. Thread-safe (one event is printed as a whole).
{
public:
	ConnectReport(bool json, std::ostream& out, std::ostream& err);

	void connected(int number, const BlueTuskConnection& connection, ServerRole role, double elapsedMs, const QueryResult* result);
		/// A successful open number (1-based), with the query's result when one ran.

	void connectedStreaming(int number, const BlueTuskConnection& connection, ServerRole role, double elapsedMs,
		const std::vector<std::string>& columns, const std::function<std::string(ResultStream&)>& produce);
		/// As connected() with a result of these columns that produce() hands to the stream row by row
		/// (finding 9: nothing is held but the text mode's first ResultStream::HELD_ROWS rows); produce()
		/// returns the command tag. Holds the report's lock throughout. An exception from produce() ends
		/// the output cleanly (JSON: "command_tag":"" and "incomplete":true) and propagates.

	void error(int number, const Poco::Exception& exc);
		/// A failed open or query (number 0: not tied to an open, e.g. loading a plugin).

	void stats(const BlueTuskDataSource& dataSource);
		/// The aggregate and per-endpoint pool statistics.

	void summary(int opens, int failures, double elapsedMs, const std::map<std::string, int>& perEndpoint);
		/// How many opens, how many failed, and how the successful ones spread over the endpoints.

	void policies(RoutingContext& connector);
		/// The policy names of each family.

private:
	void printConnection(int number, const BlueTuskConnection& connection, ServerRole role, double elapsedMs);
	void printTable(const QueryResult& result);
	static void writeResult(ResultStream& stream, const QueryResult& result);
		/// begin(), row() of every row, finish(): one held result through a ResultStream (JSON or text).

	bool _json;
	std::ostream& _out;
	std::ostream& _err;
	std::mutex _mutex;
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_ConnectReport_INCLUDED
