//
// HostAttemptsException.h
//
// Library: BlueTusk/Routing
//
// BlueTuskNoAcceptableHostException with the attempt log as data (doc/routing.md, step 6).
//

#ifndef BlueTusk_HostAttemptsException_INCLUDED
#define BlueTusk_HostAttemptsException_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttempt.h"
#include <string>

namespace BlueTusk {

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
