//
// HostAttemptsException.h
//
// Library: BlueTusk/Routing
//
// BlueTuskNoAcceptableHostException with the attempt log as data, and HostAttempt, one entry of that log
// (doc/routing.md, step 6).
//

#ifndef BlueTusk_HostAttemptsException_INCLUDED
#define BlueTusk_HostAttemptsException_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include <string>
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/TargetSessionAttributes.h"
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


class BlueTusk_Routing_API HostAttemptsException: public BlueTuskNoAcceptableHostException
	/// The BlueTuskNoAcceptableHostException that BlueTuskConnection::open and BlueTuskDataSource::open
	/// throw: no endpoint of the host list gave an acceptable session, in any pass (doc/routing.md,
	/// step 6). It adds attempts(), every endpoint attempted, in attempt order, over every pass that
	/// Failover Timeout ran, so that a catcher reads the outcomes as data instead of parsing text.
	///
	/// The class lives in Routing because HostAttempt does; Foundation's BlueTuskNoAcceptableHostException
	/// stays the type to catch. Catch either type:
	///     try { conn = BlueTuskConnection::open(connectionString); }
	///     catch (BlueTuskNoAcceptableHostException& exc)
	///     {
	///         if (const auto* failed = dynamic_cast<const HostAttemptsException*>(&exc))
	///             for (const HostAttempt& attempt: failed->attempts()) ...
	///     }
	///
	/// Everything else is that of the base: name() is "No acceptable host" (so displayText() reads as it
	/// always did), the message lists the last pass in full and summarises earlier passes (doc/routing.md,
	/// "Errors"), and the nested exceptions hold one per endpoint of the last pass with its full detail.
	/// clone() and rethrow() keep the attempts and the dynamic type (Poco clones exceptions to carry them
	/// across threads).
	///
	/// Neither the message nor the attempts ever contain a password or an authentication payload (HostAttempt
	/// holds none). Like any exception object: immutable after construction, so its const functions may be
	/// called from several threads at once; not synchronised otherwise.
{
public:
	HostAttemptsException(const std::string& msg, const HostAttemptList& attempts, int passes);
		/// msg as the message, no nested exception; attempts over passes passes (at least 1).

	HostAttemptsException(const std::string& msg, const Poco::Exception& nested, const HostAttemptList& attempts, int passes);
		/// As above, with a copy (clone) of nested as the nested exception.

	HostAttemptsException(const HostAttemptsException& exc);
	~HostAttemptsException() noexcept;
	HostAttemptsException& operator = (const HostAttemptsException& exc);

	const char* name() const noexcept;
		/// "No acceptable host", as BlueTuskNoAcceptableHostException: the same error, with more data.

	const char* className() const noexcept;
		/// The mangled type name (typeid), as Poco's exceptions do.

	Poco::Exception* clone() const;
		/// A new HostAttemptsException with the same message, nested exception, code and attempts; the
		/// caller deletes it.

	void rethrow() const;
		/// Throws a copy of this HostAttemptsException (so a catch by the base or by this type both see it).

	const HostAttemptList& attempts() const;
		/// Every endpoint attempted, in attempt order (a parallel race: host-list order), over every pass;
		/// HostAttempt::pass numbers them from 1. Empty when no endpoint could be attempted.

	void redactDetails(const SecretRedactor& redactor);
		/// Redacts each attempt's endpoint host, detail and nested text (SecretRedactor::redact()).

	int passes() const;
		/// How many passes over the host list the router ran (1 without Failover Timeout). A pass may have
		/// attempted nothing (every endpoint draining), so this can exceed the highest HostAttempt::pass.

private:
	HostAttemptList _attempts;
	int _passes;
};

} // namespace BlueTusk

#endif // BlueTusk_HostAttemptsException_INCLUDED
