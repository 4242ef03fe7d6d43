//
// ErrorReport.h
//
// BlueTusk samples: an exception as data (type, message, the endpoints attempted).
//

#ifndef BlueTusk_Samples_ErrorReport_INCLUDED
#define BlueTusk_Samples_ErrorReport_INCLUDED

#include "Poco/Exception.h"
#include "Poco/JSON/Object.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Samples {

struct AttemptReport
	/// One endpoint attempted by a failed open.
{
	std::string endpoint; /// "127.0.0.1:55432"
	std::string outcome;  /// "failed", "rejected", "authentication failed", "fallback released", "lost race"
	std::string message;  /// "refused", "standby, target primary", "timed out after 2000 ms [...detail...]"
};


struct ErrorReport
	/// What bluetusk-connect and the pool monitor print for an exception.
{
	std::string type;     /// the class without the BlueTusk namespace: "BlueTuskNoAcceptableHostException",
	                      /// "Poco::TimeoutException"
	std::string message;  /// the exception's message (BlueTusk messages never hold a password)
	std::string sqlState; /// for a BlueTuskServerException, else ""
	std::vector<AttemptReport> attempts;

	static ErrorReport from(const Poco::Exception& exc);
		/// The report for exc. The attempts come from a HostAttemptsException (the
		/// BlueTuskNoAcceptableHostException the router throws): the last pass's HostAttempt records, the ones
		/// its message lists in full, each as endpoint, HostAttempt::outcomeName and HostAttempt::detailedText.
		/// For a BlueTuskAuthenticationException: the endpoint of "authentication failed at <endpoint>".

	Poco::JSON::Object::Ptr toJson() const;
		/// {"event":"error","type":..,"message":..,["sqlstate":..,]"attempts":[{"endpoint","outcome","message"}]}

	std::string toText() const;
		/// Several lines for a person: "error: <type>: <message>" then one line per attempt.

	static std::string typeName(const std::exception& exc);
		/// The demangled class name of exc, "BlueTusk::" removed; "BlueTuskNoAcceptableHostException" for a
		/// HostAttemptsException (the documented type to catch; the subclass only adds data).
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_ErrorReport_INCLUDED
