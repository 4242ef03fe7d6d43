//
// SampleJson.h
//
// BlueTusk samples: the JSON objects bluetusk-connect and the pool monitor print (doc/samples.md).
//

#ifndef BlueTusk_Samples_SampleJson_INCLUDED
#define BlueTusk_Samples_SampleJson_INCLUDED

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/JSON/Array.h"
#include "Poco/JSON/Object.h"
#include <string>

namespace BlueTusk {
namespace Samples {

Poco::JSON::Object::Ptr newObject();
	/// An object that keeps its keys in insertion order.

std::string toLine(const Poco::JSON::Object::Ptr& object);
	/// The object as one line of compact JSON (no newline at the end), valid UTF-8 (invalid bytes from a
	/// server or the input become U+FFFD; control characters are escaped by Poco).

double roundedMs(double ms);
	/// ms rounded to 0.1.

Poco::JSON::Object::Ptr statisticsJson(const PoolStatistics& stats, bool withRole);
	/// {"total","idle","busy","pending","max","min","created","closed","evicted","checkout_timeouts",
	///  "connect_failures","draining"[,"role"]}

Poco::JSON::Object::Ptr statsEvent(const BlueTuskDataSource& dataSource);
	/// {"event":"stats","aggregate":{...},"hosts":{"127.0.0.1:55432":{...,"role":"primary"},...}}

Poco::JSON::Array::Ptr attemptsJson(const HostAttemptList& attempts);
	/// [{"endpoint","outcome","message","elapsed_ms"[,"reused"]}, ...] (HostAttempt::outcomeName, detail)

Poco::JSON::Object::Ptr connectedEvent(const BlueTuskConnection& connection, ServerRole role, double elapsedMs);
	/// {"event":"connected","endpoint":"127.0.0.2:55432","host":"127.0.0.2","port":55432,"role":"standby",
	///  "elapsed_ms":1.9,"pooled":false,"attempts":[...]}

void addResult(Poco::JSON::Object& object, const QueryResult& result);
	/// Adds "columns":[names], "rows":[[text or null, ...], ...] and "command_tag":"SELECT 1" (the command tag, not the SQL).

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_SampleJson_INCLUDED
