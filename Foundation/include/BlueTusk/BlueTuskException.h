//
// BlueTuskException.h
//
// Library: BlueTusk/Foundation
//
// The BlueTusk exception family (doc/routing.md (errors)). Every exception derives from BlueTuskException,
// itself a Poco::Exception. Messages never contain a password or authentication payload.
//

#ifndef BlueTusk_BlueTuskException_INCLUDED
#define BlueTusk_BlueTuskException_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Exception.h"
#include <string>
#include <vector>

namespace BlueTusk {

// What a BlueTuskTransportException reports per address (attempts()).

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


class SecretRedactor;


class BlueTusk_Foundation_API BlueTuskException: public Poco::Exception
	/// The base of every BlueTusk exception. Declared as POCO_DECLARE_EXCEPTION would, plus what(),
	/// which carries the message, and redactDetails(), SecretRedactor's hook for data beyond the message.
{
public:
	BlueTuskException(int code = 0);
	BlueTuskException(const std::string& msg, int code = 0);
	BlueTuskException(const std::string& msg, const std::string& arg, int code = 0);
	BlueTuskException(const std::string& msg, const Poco::Exception& nested, int code = 0);
	BlueTuskException(const BlueTuskException& exc);
	~BlueTuskException() noexcept;
	BlueTuskException& operator = (const BlueTuskException& exc);
	const char* name() const noexcept;
	const char* className() const noexcept;
	Poco::Exception* clone() const;
	void rethrow() const;

	const char* what() const noexcept;
		/// displayText() ("Server error: FATAL: ... (SQLSTATE 28P01)"; "Transport failure: could not
		/// connect to db-a:5432: ..."), so that a std::exception handler sees the message, not just name()
		/// as Poco::Exception::what() gives. The text lives in the exception until the next call of what()
		/// on the same object; do not call what() on one object from several threads at once.

	void addContext(const std::string& context);
		/// Appends " (<context>)" to the message unless the message already contains context; BlueTusk
		/// uses it to name the server of an error raised on the query path ("server db-a:5432").

	virtual void redactDetails(const SecretRedactor& redactor);
		/// Redacts what the exception carries besides its message and nested exceptions (which
		/// SecretRedactor::redact() handles itself); the base carries nothing more. Subclasses with text
		/// data (endpoints, attempts) override it and call the base.

private:
	mutable std::string _what;
};

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskConnectionStringException, BlueTuskException)
	/// A connection string (or one of its keywords) is malformed. The message names the keyword or the
	/// position and what is wrong, never the value of Password.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskAuthenticationException, BlueTuskException)
	/// The server rejected the credentials (SQLSTATE class 28), the SCRAM server signature did not verify,
	/// or the server asked for an authentication method the client cannot do. Stops a multi-host open.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskNoAcceptableHostException, BlueTuskException)
	/// No host of the list gave an acceptable session. The message lists every endpoint attempted, in
	/// order, with its outcome; nested exceptions keep the per-host detail.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskPoolTimeoutException, BlueTuskException)
	/// A pooled checkout waited Checkout Timeout seconds without capacity; the message gives the
	/// per-endpoint counts.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskPluginException, BlueTuskException)
	/// A policy plugin could not be loaded, or no loaded plugin provides the policy name asked for
	/// (the message lists the available names).

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskProtocolException, BlueTuskException)
	/// The server sent a malformed, oversized or unexpected protocol message. The session is broken.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskSessionBrokenException, BlueTuskException)
	/// The session's connection was lost (EOF, reset, timeout mid-message) or the session was closed.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskTypeException, BlueTuskException)
	/// A value cannot be converted as asked: a result column read as a C++ type it cannot hold (text into
	/// an integer, an int8 beyond int32, NULL into a non-optional, infinity into a timestamp), or a
	/// parameter that cannot be sent as the type the server inferred. The message names the column (or
	/// parameter $n), its PostgreSQL type and the C++ type. Raised before anything is sent, or after the
	/// result was read completely: the session stays usable.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskUsageException, BlueTuskException)
	/// The API was used in a way that cannot work, detected before anything was sent (a prepared
	/// statement handle used on another session, a wrong parameter count, a finished transaction reused).
	/// The session stays usable.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskTransactionRolledBackException, BlueTuskException)
	/// The connection broke while COMMIT was in flight (sent, no answer) and BlueTusk found out that the
	/// transaction did not commit: the primary that answered the outcome question (pg_xact_status) reported
	/// it aborted, never saw its transaction id, or holds a history in which its commit is not (a lost
	/// timeline tail). Nothing of the transaction is on that server's history: running it again does not
	/// duplicate it (doc/outcomes.md says what this guarantees with asynchronous and synchronous
	/// replication). The message names the endpoint, the transaction id and the answer; the nested exception
	/// is the connection failure.

POCO_DECLARE_EXCEPTION(BlueTusk_Foundation_API, BlueTuskCommitOutcomeUnknownException, BlueTuskException)
	/// The connection broke while COMMIT was in flight and no server could say in time whether the
	/// transaction committed (no writable server answered within the resolution deadline, the transaction
	/// was still in progress there, or its id could not be judged across a timeline switch). The write may or
	/// may not be durable: the application must not re-run it blindly (doc/outcomes.md). The message names
	/// the endpoint, the transaction id (when known) and what each attempt found.

class BlueTusk_Foundation_API BlueTuskTransportException: public BlueTuskException
	/// Every address of a host endpoint failed (doc/transport.md). The message names the endpoint and
	/// each address with its outcome; the nested exception holds the same ordered per-address diagnostics,
	/// which attempts() also returns as data.
{
public:
	BlueTuskTransportException(int code = 0);
	BlueTuskTransportException(const std::string& msg, int code = 0);
	BlueTuskTransportException(const std::string& msg, const std::string& arg, int code = 0);
	BlueTuskTransportException(const std::string& msg, const Poco::Exception& nested, int code = 0);
	BlueTuskTransportException(const std::string& endpoint, const AddressAttemptList& attempts);
		/// Builds the message "could not connect to <endpoint>: <address> <outcome> (<text>) after N ms; ..."
		/// and a nested BlueTuskException holding one line per address, in order.
	BlueTuskTransportException(const BlueTuskTransportException& exc);
	~BlueTuskTransportException() noexcept;
	BlueTuskTransportException& operator = (const BlueTuskTransportException& exc);
	const char* name() const noexcept;
	const char* className() const noexcept;
	Poco::Exception* clone() const;
	void rethrow() const;

	const AddressAttemptList& attempts() const;
		/// The ordered per-address diagnostics (may be empty when the failure came after the connect).

	const std::string& endpoint() const;
		/// The endpoint's display form ("db-a:5432"), or empty.

	void redactDetails(const SecretRedactor& redactor);
		/// Redacts the endpoint and each attempt's address and error text.

private:
	std::string _endpoint;
	AddressAttemptList _attempts;
};


class BlueTusk_Foundation_API BlueTuskServerException: public BlueTuskException
	/// The server answered with an ErrorResponse (PostgreSQL docs, 55.8 "Error and Notice Message
	/// Fields"). Holds SQLSTATE, severity, message, detail, hint and position. The message text is
	/// "<SEVERITY>: <message> (SQLSTATE <code>)" plus detail and hint when present.
{
public:
	struct Fields
	{
		std::string severity;   /// "ERROR", "FATAL", "PANIC" (field V, else S)
		std::string sqlState;   /// five characters, e.g. "57P03"
		std::string message;    /// primary human-readable message (field M)
		std::string detail;     /// field D
		std::string hint;       /// field H
		int position = 0;       /// field P (1-based character index), 0 when absent
		std::string schema, table, column, constraint;
		std::string context;    /// field W: where it happened ("COPY orders, line 3, column id: ...")
	};

	BlueTuskServerException(int code = 0);
	BlueTuskServerException(const std::string& msg, int code = 0);
	BlueTuskServerException(const std::string& msg, const std::string& arg, int code = 0);
	BlueTuskServerException(const std::string& msg, const Poco::Exception& nested, int code = 0);
	explicit BlueTuskServerException(const Fields& fields, bool sessionUsable = true);
	BlueTuskServerException(const BlueTuskServerException& exc);
	~BlueTuskServerException() noexcept;
	BlueTuskServerException& operator = (const BlueTuskServerException& exc);
	const char* name() const noexcept;
	const char* className() const noexcept;
	Poco::Exception* clone() const;
	void rethrow() const;

	const Fields& fields() const;
	const std::string& sqlState() const;
	const std::string& severity() const;

	bool sessionUsable() const;
		/// True when the session that raised this error can still run commands (an ERROR answered by
		/// ReadyForQuery); false for FATAL/PANIC or an error during startup.

	bool isAvailabilityError() const;
		/// SQLSTATE 57P01, 57P02, 57P03, 53300 or class 08: the server is not available; a multi-host open
		/// moves on to the next host (doc/routing.md).

	bool isAuthenticationError() const;
		/// SQLSTATE class 28 (invalid authorization specification / invalid password).

	void redactDetails(const SecretRedactor& redactor);
		/// Redacts the text fields (message, detail, hint, context, schema, table, column, constraint):
		/// a server error may echo what the client sent (role "app password=s3cret" does not exist).

private:
	Fields _fields;
	bool _sessionUsable = true;
};


bool BlueTusk_Foundation_API isSessionUsable(const Poco::Exception& exc);
	/// Whether the session that threw exc can still be used: true for a BlueTuskServerException whose
	/// sessionUsable() is true (the server reported an ERROR and is ready for the next command), and for
	/// BlueTuskTypeException and BlueTuskUsageException (detected by the client, nothing out of step).


} // namespace BlueTusk

#endif // BlueTusk_BlueTuskException_INCLUDED
