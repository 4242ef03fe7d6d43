//
// BackendScript.h
//
// Library: BlueTusk test peers
//
// What a FakeBackend does with a connection: a plain value built from a preset and chainable modifiers.
//
//   BackendScript::primary()                              AuthenticationOk, role parameters, queries answered
//   BackendScript::standby().withoutRoleParameters()      PostgreSQL 13 style: the client must probe
//   BackendScript::startingUp()                           FATAL 57P03 after the StartupMessage
//   BackendScript::primary().delayStartup(2000)           answers the StartupMessage 2 s late
//   BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "secret")
//

#ifndef BlueTusk_BackendScript_INCLUDED
#define BlueTusk_BackendScript_INCLUDED

#include "PeerWire.h"
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace BlueTusk {
namespace Test {

struct QueryAnswer
	/// How the fake backend answers one SQL statement: a result (columns of type text, rows, command tag),
	/// an ErrorResponse (severity ERROR; the session stays usable), or a dropped connection. An optional
	/// delay comes first; a CancelRequest for the session ends the delay with 57014.
{
	std::vector<std::string> columns;  /// column names; empty: a command without rows
	std::vector<Poco::UInt32> columnTypes; /// type OIDs per column; missing entries are text (25)
	std::vector<Wire::TextRow> rows;
	std::string commandTag;            /// "" = "SELECT <rows>" when there are columns
	std::string errorSqlState;         /// non-empty: answer with ErrorResponse ERROR instead
	std::string errorMessage;
	int delayMs = 0;                   /// wait before answering (interrupted by a CancelRequest or a kill)
	bool ignoreCancel = false;         /// a frozen server: a CancelRequest does not end the delay
	int trickleMs = 0;                 /// > 0: send the answer one byte every trickleMs (cancel ignored)
	bool disconnect = false;           /// close the connection instead of answering (a broken session)
	bool disconnectAfterReady = false; /// simple Query only: close the connection right after its ReadyForQuery
	                                   /// (a server that answered, then died)
	enum class Copy { None, In, Out };
	Copy copy = Copy::None;            /// In: CopyInResponse, then read CopyData until CopyDone ("COPY <n>") or
	                                   /// CopyFail (57014); Out: CopyOutResponse, copyData, CopyDone, "COPY <n>"
	std::vector<std::string> copyData; /// Copy::Out: the CopyData chunks sent (text rows, with their newline)
	int copyDisconnectAfter = -1;      /// >= 0: close the connection after this many CopyData messages
	                                   /// (received for In, sent for Out): a server dying mid-COPY
	std::string rawReply;              /// non-empty: these bytes instead of the answer's messages (a hostile
	                                   /// server after startup), then ReadyForQuery as usual
	std::string afterReady;            /// simple Query only: bytes sent after its ReadyForQuery (an
	int afterReadyTrickleMs = 0;       /// asynchronous message, say), one byte every afterReadyTrickleMs

	static QueryAnswer value(const std::string& value, const std::string& column = "?column?");
		/// One row, one text column.
	static QueryAnswer command(const std::string& tag);
		/// No rows, CommandComplete tag only ("SET", "DISCARD ALL").
	static QueryAnswer error(const std::string& sqlState, const std::string& message);
	static QueryAnswer dropConnection();
	QueryAnswer& thenDisconnect();
		/// Answers, then closes the connection after the ReadyForQuery (disconnectAfterReady).
	static QueryAnswer copyIn(int disconnectAfter = -1);
		/// COPY ... FROM STDIN, text format, one column.
	static QueryAnswer copyOut(const std::vector<std::string>& chunks, int disconnectAfter = -1);
		/// COPY ... TO STDOUT, text format, one column.
	static QueryAnswer raw(const std::string& bytes);
		/// Sends bytes as they are (any framing, valid or not) in place of the answer (rawReply).
	QueryAnswer& delay(int milliseconds);
	QueryAnswer& frozen(int milliseconds);
	QueryAnswer& thenTrickle(const std::string& bytes, int millisecondsPerByte);
		/// After the ReadyForQuery of the simple Query that got this answer, sends bytes one every
		/// millisecondsPerByte (a server trickling an asynchronous message to an idle session).
	QueryAnswer& trickle(int millisecondsPerByte);
		/// Sends the answer one byte every millisecondsPerByte, ignoring a CancelRequest.
		/// delay(milliseconds) that a CancelRequest does not interrupt (a SIGSTOPped server).
};


struct BackendScript
	/// The behaviour of a FakeBackend for each new connection. The startup phase follows the script that
	/// was current when the connection was accepted; queries of an open session always use the current
	/// script's answers and role (so setScript() can "promote" a standby under existing sessions).
{
	enum class Action
	{
		Serve,             /// complete the startup (after authentication) and answer queries until Terminate
		StartupError,      /// send ErrorResponse(error*) after the StartupMessage (or after authentication), close
		CloseOnAccept,     /// close right after accepting, before reading anything
		CloseAfterStartup, /// read the StartupMessage, then close (EOF) without a word
		ResetAfterStartup, /// read the StartupMessage, then close with RST (SO_LINGER 0)
		Garbage,           /// read the StartupMessage, send garbageBytes, then close
		Hang               /// read the StartupMessage and never answer (until the client or the peer closes)
	};

	enum class Authentication
	{
		Trust,        /// AuthenticationOk at once
		Cleartext,    /// AuthenticationCleartextPassword (code 3)
		Md5,          /// AuthenticationMD5Password (code 5) with a random salt
		ScramSha256   /// SASL SCRAM-SHA-256 (RFC 5802/7677), 4096 iterations, server signature sent
	};

	Action action = Action::Serve;
	int startupDelayMs = 0;              /// delay after the StartupMessage, before any answer (every action)
	Authentication authentication = Authentication::Trust;
	std::string password;                /// the password the client must send (Cleartext, Md5, ScramSha256)
	bool rejectPassword = false;         /// every password is rejected: FATAL 28P01
	bool corruptServerSignature = false; /// SCRAM: send a server signature that does not verify
	bool stallTls = false;               /// answer 'S' to SSLRequest, then stay silent (a stalled TLS handshake)
	int protocolMinor = 0;
		/// The newest minor version of protocol 3 the server speaks (0, or 2 as PostgreSQL 18). A StartupMessage
		/// asking for more is answered with NegotiateProtocolVersion offering this (PostgreSQL docs 54.2.1).
	std::vector<std::string> unsupportedOptions;
		/// Protocol options (_pq_.*) NegotiateProtocolVersion lists as unsupported; not empty: the message is
		/// sent even when the minor version is supported.
	int negotiateOffer = -1;
		/// >= 0: NegotiateProtocolVersion is always sent and offers this minor version (a hostile server may
		/// offer a higher one than was asked for).
	bool directTls = false;
		/// Speak TLS at once, as PostgreSQL 17 does for sslnegotiation=direct (a certificate made in memory,
		/// PeerTls.h), then serve the script over TLS. A client that sends an SSLRequest gets nothing.
	std::string directTlsAlpn = "postgresql";
		/// The ALPN protocol a directTls backend selects when offered ("": none, like a server before 17).
	int cancelKeyLength = 4;
		/// Bytes of the BackendKeyData secret key (4 in 3.0; PostgreSQL 18 sends 32 in 3.2; up to 256 allowed).
	int scramIterations = 4096;          /// SCRAM: the iteration count of the server-first-message
	Authentication downgradeTo = Authentication::Trust;
		/// Not Trust: a downgrade attempt. After the first round of `authentication` (Cleartext, Md5: the
		/// password read; ScramSha256: the client-first-message read) ask for this method instead of
		/// finishing; whatever the client answers is accepted (AuthenticationOk).
	Wire::ErrorFields error;             /// the ErrorResponse of Action::StartupError
	bool errorAfterAuthentication = false; /// StartupError: authenticate first (as 53300 is in PostgreSQL)
	std::string garbageBytes = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
	std::vector<std::pair<std::string, std::string>> parameters; /// ParameterStatus, in this order
	Poco::Int32 processIdBase = 0;       /// BackendKeyData process ids start here (0: a per-backend default)
	bool inRecovery = false;             /// role probe answer: pg_is_in_recovery()
	bool transactionReadOnly = false;    /// role probe answer: current_setting('transaction_read_only')
	std::map<std::string, QueryAnswer> answers; /// exact statement text (trimmed, no trailing ';') -> answer
	QueryAnswer defaultAnswer = QueryAnswer::value("1");
		/// The answer to any other SELECT/SHOW/VALUES/WITH (other statements get their command tag).

	// Presets. Every Serve preset sends server_version, server_encoding, client_encoding, DateStyle,
	// integer_datetimes, standard_conforming_strings, TimeZone, application_name (the client's),
	// in_hot_standby and default_transaction_read_only, like PostgreSQL 15.
	static BackendScript primary(const std::string& serverVersion = "15.4");
		/// Read-write primary: in_hot_standby=off, default_transaction_read_only=off; probe f / off.
	static BackendScript standby(const std::string& serverVersion = "15.4");
		/// Hot standby: in_hot_standby=on, default_transaction_read_only=off; probe t / on.
	static BackendScript readOnlyPrimary(const std::string& serverVersion = "15.4");
		/// Primary with default_transaction_read_only=on: in_hot_standby=off; probe f / on.
	static BackendScript startupError(const std::string& sqlState, const std::string& message, const std::string& severity = "FATAL");
	static BackendScript startingUp();      /// FATAL 57P03 "the database system is starting up" (before auth)
	static BackendScript tooManyClients();  /// FATAL 53300 "sorry, too many clients already" (after auth)
	static BackendScript adminShutdown();   /// FATAL 57P01 "terminating connection due to administrator command"
	static BackendScript passwordFailure();
		/// Asks for a cleartext password and rejects every one with FATAL 28P01
		/// "password authentication failed for user \"<user>\"".
	static BackendScript closeOnAccept();
	static BackendScript closeAfterStartup();
	static BackendScript resetAfterStartup();
	static BackendScript garbage(const std::string& bytes = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
	static BackendScript hang();

	// Modifiers (return *this).
	BackendScript& withoutRoleParameters();
		/// Omit in_hot_standby and default_transaction_read_only (server_version 13.11): forces the probe.
	BackendScript& delayStartup(int milliseconds);
	BackendScript& requirePassword(Authentication method, const std::string& expectedPassword);
	BackendScript& parameter(const std::string& name, const std::string& value);
		/// Sets (or appends) one ParameterStatus value.
	BackendScript& removeParameter(const std::string& name);
	BackendScript& answer(const std::string& sql, const QueryAnswer& answer);
	BackendScript& role(bool inRecovery, bool transactionReadOnly);
		/// Sets the probe answer and, when present, the in_hot_standby / default_transaction_read_only values.

	std::string parameterValue(const std::string& name) const;
		/// The configured ParameterStatus value, or "".
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_BackendScript_INCLUDED
