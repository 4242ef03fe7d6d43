//
// FleetErrors.h
//
// bluetusk-fleet: what kind of failure an exception is, for the fleet's counts by kind (scripts/fleet,
// doc/high-availability.md "A fleet through a failover").
//

#ifndef BlueTusk_FleetErrors_INCLUDED
#define BlueTusk_FleetErrors_INCLUDED

#include "Poco/Exception.h"
#include <map>
#include <mutex>
#include <string>

namespace BlueTusk {
namespace Fleet {

bool carriesSqlState(const Poco::Exception& exc, const std::string& sqlState);
	/// True when exc, one of its nested exceptions, or one attempt of a HostAttemptsException among them
	/// is or mentions SQLSTATE sqlState (a BlueTuskServerException with that code, or the code in an
	/// attempt's detail or nested text: a 53300 that a multi-host open met on one endpoint and reported
	/// inside a "no acceptable host" failure is still a 53300 the application saw).

std::string errorKind(const Poco::Exception& exc);
	/// "53300" when exc carries SQLSTATE 53300 (carriesSqlState()); else the SQLSTATE of the first
	/// BlueTuskServerException in the nested chain; else the exception's name(), followed for a
	/// multi-host failure by the SQLSTATEs its attempts met ("No acceptable host (57P03)"). Never contains
	/// a password (names and SQLSTATEs only).

std::string jsonText(const std::string& text);
	/// text as a JSON string literal, quotes included.


class ErrorCounts
	/// Failures by kind; thread-safe.
{
public:
	void add(const std::string& kind);
		/// Counts one failure of kind.

	std::map<std::string, long> take();
		/// The counts since the last take(), and resets them.

	std::string json(const std::map<std::string, long>& counts) const;
		/// {"kind":n,...}

private:
	std::mutex _mutex;
	std::map<std::string, long> _counts;
};

} } // namespace BlueTusk::Fleet

#endif // BlueTusk_FleetErrors_INCLUDED
