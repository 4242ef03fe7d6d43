//
// HostAttempt.h
//
// Library: BlueTusk/Routing
//
// What happened to one endpoint during one open (the attempt log of doc/routing.md, step 6).
//

#ifndef BlueTusk_HostAttempt_INCLUDED
#define BlueTusk_HostAttempt_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include <string>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Routing_API HostAttempt
	/// One endpoint tried during an open, in attempt order. Plain data; never contains a password or an
	/// authentication payload.
{
	enum Outcome
	{
		ACCEPTED,          /// the session was accepted and returned
		FALLBACK_RETAINED, /// a fallback session kept open while the search went on
		FALLBACK_RELEASED, /// a later fallback, released (pooled) or closed because one was already kept
		REJECTED,          /// the role does not suit the target ("standby, target primary")
		FAILED,            /// a network failure, timeout, early close or availability error: marked down
		AUTH_FAILED,       /// authentication rejected: the open stopped here
		LOST_RACE          /// a parallel attempt that finished after the winner (released or closed)
	};

	BlueTuskHostEndpoint endpoint;    /// the endpoint (host as written, port)
	Outcome outcome = FAILED;
	ServerRole role = ServerRole::Unknown; /// the role found, when the session got that far
	bool reused = false;              /// an idle pooled session was used rather than a new connection
	std::string detail;               /// "refused", "timed out after 2000 ms", "standby, target primary",
	                                  /// "57P03 the database system is starting up", "primary"
	std::string nestedText;           /// the full text of the underlying exception (per-address detail), or ""
	double elapsedMs = 0;             /// milliseconds spent on this endpoint
	int pass = 1;                     /// the pass of the host list this attempt belongs to: 1 for the first;
	                                  /// Failover Timeout runs further passes (2, 3, ...) after a pass found
	                                  /// nothing acceptable (doc/routing.md, step 5)

	std::string toString() const;
		/// "127.0.0.2:5432: standby, target primary" (the endpoint's display form, then detail).

	std::string detailedText() const;
		/// The detail (the outcome name when there is none), then " [<nestedText>]" when the underlying
		/// exception's text says more: "refused [Transport failure: could not connect to a:5432: 10.0.0.1:5432
		/// refused (Connection refused) after 0.4 ms]". Never contains a password.

	static std::string outcomeName(Outcome outcome);
		/// "accepted", "fallback retained", "fallback released", "rejected", "failed",
		/// "authentication failed", "lost race".
};

using HostAttemptList = std::vector<HostAttempt>;

} // namespace BlueTusk

#endif // BlueTusk_HostAttempt_INCLUDED
