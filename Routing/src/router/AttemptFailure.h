//
// AttemptFailure.h
//
// Library: BlueTusk/Routing
//
// The failure classes of doc/routing.md, step 3, and the short outcome texts of the attempt log.
//

#ifndef BlueTusk_Detail_AttemptFailure_INCLUDED
#define BlueTusk_Detail_AttemptFailure_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "Poco/Exception.h"
#include <string>

namespace BlueTusk {
namespace Detail {

struct AttemptFailure
	/// How the router treats a failed attempt on one endpoint.
{
	enum Kind
	{
		AUTHENTICATION, /// class 28, BlueTuskAuthenticationException: stop the whole open at once
		UNAVAILABLE,    /// network, timeout, closed before ready, protocol error, 57P01/57P02/57P03/08xxx:
		                /// mark the endpoint down, go on
		CAPACITY,       /// 53300 too many connections: the server is up but full; not marked down; a pooled
		                /// checkout waits for that endpoint's sessions (its pool backs off), a direct open goes on
		SERVER_ERROR,   /// any other ErrorResponse during startup (e.g. 3D000): go on, not marked down
		CANCELLED       /// a racing attempt abandoned because another endpoint won
	};

	Kind kind = UNAVAILABLE;
	std::string detail;    /// "refused", "timed out after 2000 ms", "57P03 the database system is starting up"
	std::string fullText;  /// the exception's displayText() (per-address diagnostics included)

	static AttemptFailure classify(const Poco::Exception& exc, const ConnectionSettings& settings, bool cancelled = false);
		/// Classifies exc (as thrown by SessionFactory::open or SessionControl::probeRole).
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_AttemptFailure_INCLUDED
