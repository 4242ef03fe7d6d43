//
// AddressAttempt.h
//
// Library: BlueTusk/Foundation
//
// One attempt to reach one socket address of a host endpoint: the per-address diagnostics record.
//

#ifndef BlueTusk_AddressAttempt_INCLUDED
#define BlueTusk_AddressAttempt_INCLUDED

#include "BlueTusk/Foundation.h"
#include <string>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Foundation_API AddressAttempt
	/// What happened when one resolved address of an endpoint was tried (doc/transport.md).
	/// Plain data; never contains a password or authentication payload.
{
	enum Outcome
	{
		CONNECTED,     /// the TCP (or Unix socket) connection and everything after it succeeded
		REFUSED,       /// ECONNREFUSED, or no socket file for a Unix socket
		TIMED_OUT,     /// the shared host deadline ran out during this address
		UNREACHABLE,   /// host or network unreachable
		RESET,         /// connection reset by peer
		CLOSED,        /// the server closed the connection (EOF) before the session was ready
		TLS_FAILURE,   /// the TLS handshake or certificate verification failed, or TLS was refused
		PROTOCOL_ERROR,/// the server sent something that is not valid protocol 3.0
		SERVER_ERROR,  /// the server answered with an ErrorResponse (see errorText for SQLSTATE)
		NOT_ATTEMPTED, /// the deadline had already run out before this address was tried
		OTHER          /// any other local error
	};

	std::string address;    /// "127.0.0.1:5432", "[::1]:5432" or "/tmp/.s.PGSQL.5432"
	Outcome outcome = OTHER;
	std::string errorText;  /// the operating system's or server's error text
	double elapsedMs = 0;   /// milliseconds spent on this address

	std::string toString() const;
		/// "127.0.0.1:5432 refused (Connection refused) after 0.3 ms".

	static std::string outcomeName(Outcome outcome);
		/// "refused", "timed out", "unreachable", "reset", "closed", "TLS failure", "protocol error",
		/// "server error", "not attempted", "error", "connected".
};

using AddressAttemptList = std::vector<AddressAttempt>;

} // namespace BlueTusk

#endif // BlueTusk_AddressAttempt_INCLUDED
