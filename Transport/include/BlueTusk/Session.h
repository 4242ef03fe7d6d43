//
// Session.h
//
// Library: BlueTusk/Transport
//
// One physical session with one server: the interface the pools and the router work with.
//

#ifndef BlueTusk_Session_INCLUDED
#define BlueTusk_Session_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/CopyIn.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/NoticeHandler.h"
#include "BlueTusk/Notification.h"
#include "BlueTusk/Parameter.h"
#include "BlueTusk/Pipeline.h"
#include "BlueTusk/PreparedStatement.h"
#include "BlueTusk/QueryResult.h"
#include "BlueTusk/OpenCancellation.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Timestamp.h"
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {

enum class TransactionStatus
	/// The transaction status indicator of the last ReadyForQuery (PostgreSQL docs 55.7).
{
	Idle,          /// 'I': not in a transaction block
	InTransaction, /// 'T': in a transaction block
	Failed         /// 'E': in a failed transaction block
};


struct BlueTusk_Transport_API StatementCounters
	/// StatementStatistics that several sessions add to and another thread reads (a pool's sums).
	/// Thread-safe (relaxed atomics: each counter is exact, a snapshot is not one instant).
{
	std::atomic<Poco::UInt64> prepared{0};
	std::atomic<Poco::UInt64> cacheHits{0};
	std::atomic<Poco::UInt64> evictions{0};
	std::atomic<Poco::UInt64> reprepared{0};

	StatementStatistics snapshot() const;
};


class BlueTusk_Transport_API Session
	/// One physical connection to one server, authenticated and ready for queries. The real
	/// implementation is ProtocolSession (the PostgreSQL protocol 3.0); tests may provide their own.
	///
	/// Thread-safety: a session is used by one thread at a time; only cancel() may be called from another
	/// thread while a query runs.
{
public:
	using Ptr = std::unique_ptr<Session>;

	virtual ~Session();

	virtual const BlueTuskHostEndpoint& endpoint() const = 0;
		/// The endpoint this session is connected to (host as written, port).

	virtual std::string connectedAddress() const = 0;
		/// The socket address actually connected ("127.0.0.1:5432", "/tmp/.s.PGSQL.5432").

	virtual ServerRole role() const = 0;
		/// The last known role (ServerRole::Unknown until probed).

	virtual ServerRole reportedRole() const;
		/// The role the server's ParameterStatus values give (in_hot_standby, default_transaction_read_only;
		/// PostgreSQL 14+ sends both at startup and on change), with no I/O; ServerRole::Unknown when it did
		/// not send both. As of the last message received: an idle session does not see a promotion.

	virtual bool roleChangeSuspected() const;
		/// True after the server refused a command with SQLSTATE 25006 (read_only_sql_transaction) while the
		/// session's known role (or, unprobed, its reported role) was Primary: a wrong-node answer, e.g. a
		/// server made read-only under the session, or a proxy that moved the connection to a standby (the
		/// known role is then Unknown); or after a ParameterStatus (in_hot_standby,
		/// default_transaction_read_only) changed the known role, e.g. a standby promoted while a strict
		/// standby lease ran a query (role() then gives the new role). probeRole() clears it. The error
		/// itself reaches the caller as usual (nothing is re-run). BlueTuskConnection::close() re-probes
		/// such a session and records the role for its endpoint (doc/high-availability.md). Default: false.

	virtual ServerRole probeRole(bool force) = 0;
		/// Determines the role: unless force, from the ParameterStatus values in_hot_standby and
		/// default_transaction_read_only when the server sent them (the real session: once a probe has
		/// shown the peer is the server, not a pooler replaying them, doc/poolers.md), or from a probe
		/// answered since the session's last other command (the startup's, for a session just opened);
		/// otherwise (or when forced) with one round trip
		/// "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), pg_backend_pid()",
		/// bounded by the settings' Timeout unless a shorter Command Timeout bounds it.
		/// Throws BlueTuskSessionBrokenException / BlueTuskServerException on failure.

	virtual ServerRole probeRoleAndWal(Lsn& replayed, Lsn& received);
		/// As probeRole(true), in the same one round trip, also the session's WAL positions (for the
		/// freshness rules, doc/freshness.md): on a standby replayed is pg_last_wal_replay_lsn() and
		/// received pg_last_wal_receive_lsn(); 0/0 on a primary (where both are NULL) or when the server
		/// did not say. "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'),
		/// pg_last_wal_replay_lsn(), pg_last_wal_receive_lsn()" (executable by any user). The default implementation
		/// calls probeRole(true) and leaves both 0/0. Throws like probeRole().

	virtual ServerRole refreshRole();
		/// Refreshes the role with the cheapest round trip that gives a fresh one (doc/pooling.md, "Role
		/// refresh"): a PostgreSQL 14+ server reports in_hot_standby and default_transaction_read_only in
		/// ParameterStatus messages in front of a ReadyForQuery whenever they changed (it rechecks recovery
		/// at each ReadyForQuery, so a promotion shows), so a bare Sync does, or the deferred reset when one
		/// is pending (its ReadyForQuery carries them too). A server that did not report both at startup
		/// (before 14) gets probeRole(true). A primary becomes a standby only by a restart, which ends the
		/// connection: the round trip then fails. Throws like probeRole(). The default calls probeRole(true).

	virtual bool roleConfirmedWithin(const Poco::Timespan& window) const;
		/// True when the server reports its role in ParameterStatus (PostgreSQL 14+), no role change is
		/// suspected, and the session's last ReadyForQuery, which confirmed role(), arrived less than window
		/// ago (monotonic clock): Role Recheck Milliseconds then trusts role() without a round trip. False for
		/// a window of 0 and in the default implementation.

	virtual bool isBroken() const = 0;
		/// True once the connection has failed (EOF, reset, protocol error, timeout mid-message) or was
		/// closed; a broken session must never be reused.

	virtual TransactionStatus transactionStatus() const = 0;

	virtual void reset(bool discardAll) = 0;
		/// Prepares the session for reuse by another user: ROLLBACK when a transaction is open, then
		/// DISCARD ALL when discardAll. Throws on failure (the session is then broken).

	virtual bool deferReset();
		/// Prepares an idle session (no transaction open) for reuse without a round trip now: DISCARD ALL is
		/// sent in front of the next command, in the same write, and its answer is read before that
		/// command's (Npgsql's lazy reset). Returns false when the session cannot defer (not idle, broken,
		/// or an implementation without pipelining: the default), and the caller then uses reset().
		/// Should that DISCARD ALL fail (e.g. under the previous user's statement_timeout), the server
		/// still runs the command, on the unreset session state: its result is withheld, the session is
		/// closed (logged; isBroken() true) and the command throws BlueTuskSessionBrokenException, as for a
		/// connection lost after sending (the command's effects, if any, are on the server). Until the
		/// next command the server keeps the session state (temporary tables, prepared statements,
		/// session-level advisory locks) while the session is idle in its pool; closing it drops them too.

	virtual bool endLease();
		/// Called by the pool when a lease ends, before it decides on the reset, whatever No Reset On Close
		/// says: ends what the lease left open on the session (a beginFetch() portal, whose implicit
		/// transaction would otherwise hold its snapshot and locks, and rows read ahead of it: endFetch())
		/// and puts back what the lease changed on the client side only (ProtocolSession's command
		/// timeout and notice handler; notifications it did not take are dropped), so the next lease
		/// starts as a new session would. Returns false when the session cannot
		/// be reused: it is broken, or a COPY FROM STDIN is still open on it (the server is in COPY mode;
		/// the session is then marked broken and the CopyIn refuses further use). Throws when ending the
		/// portal fails (the session is then broken). Default: endFetch() while isFetching(), then
		/// !isBroken().

	virtual bool isResetPending() const;
		/// True while a deferred DISCARD ALL has not been sent yet (the default: never).

	virtual bool ranSinceReset() const;
		/// True when the session ran a command since it started or since its last reset completed
		/// (BlueTusk's own role probes and the role refresh do not count: they change no session state).
		/// deferReset() of a session that ran nothing leaves nothing pending: a lease that ran nothing costs
		/// its next lease no reset. The default: always true.

	virtual void close() = 0;
		/// Sends Terminate and closes the socket. Never throws; safe to call twice.

	virtual std::vector<QueryResult> executeSimple(const std::string& sql) = 0;
		/// Runs sql with the simple query protocol (several statements allowed), one result per
		/// statement. Throws BlueTuskServerException on an ErrorResponse (the session stays usable),
		/// BlueTuskSessionBrokenException when the connection fails.

	virtual void executeSimpleSequence(const std::vector<std::string>& queries, std::vector<std::vector<QueryResult>>& answers);
		/// Sends each element of queries as its own simple Query message, all in one write, and reads their
		/// answers in order: one round trip for the lot. The server runs each only after it answered (and
		/// flushed, at ReadyForQuery) the one before, so the answers to the first queries are on their way
		/// before a later one runs (the COMMIT of a transaction whose outcome is resolved, CommitOutcome.h).
		/// answers gets one element per query as its answer completes. A broken connection throws
		/// BlueTuskSessionBrokenException (or a FATAL BlueTuskServerException) at once, answers holding the
		/// answers read so far; an ERROR in one query (the session usable) does not stop the others (each is
		/// its own cycle): every answer is read (the failed one's element empty) and the first error thrown.
		/// The default implementation runs executeSimple() per query (a round trip each).

	virtual QueryResult execute(const std::string& sql, const std::vector<FieldValue>& parameters) = 0;
		/// Runs one statement with the extended query protocol (Parse/Bind/Describe/Execute/Sync),
		/// parameters in text format ($1, $2, ...; std::nullopt is NULL), results in text format, with
		/// the unnamed statement (not cached).

	virtual QueryResult query(const std::string& sql, const Parameters& parameters = {});
		/// Runs one statement with the extended query protocol and typed parameters (Parameter.h: binary
		/// where the C++ type has a PostgreSQL type, text for strings), through the statement cache:
		/// the first executions of a text use the unnamed statement (results in text format); once a text
		/// was run Auto Prepare Min Usages times it is prepared (in the same round trip) and later runs
		/// only Bind/Execute/Sync with binary results for the types BlueTusk decodes. Read the rows with
		/// QueryResult::row(i).get<T>(), which reads either format. Throws BlueTuskServerException (session
		/// usable), BlueTuskTypeException (a value that cannot be sent as the server's type; nothing
		/// sent), BlueTuskSessionBrokenException. The default implementation throws BlueTuskUsageException.

	virtual PreparedStatement prepare(const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes = {});
		/// Prepares sql as a named statement: Parse + Describe + Sync in one write, one round trip
		/// (PostgreSQL docs 55.2.3). parameterTypes (TypeOid.h) may fix the placeholders' types; missing
		/// or 0 entries are inferred by the server. The statement lives until unprepare() or the end of
		/// the session, also across pool checkouts (the pool's reset then keeps prepared statements).
		/// Throws BlueTuskServerException for an invalid statement (e.g. 42601 syntax error; the session
		/// stays usable). The default implementation throws BlueTuskUsageException.

	virtual QueryResult execute(const PreparedStatement& statement, const Parameters& parameters = {});
		/// Executes a statement prepared on this session: Bind/Execute/Sync in one round trip, results in
		/// binary for the types BlueTusk decodes. Throws BlueTuskUsageException before sending anything
		/// when the handle belongs to another session, is closed, or the parameter count differs from
		/// the statement's; BlueTuskTypeException when a value cannot be sent as its placeholder's type;
		/// BlueTuskServerException from the server. The default implementation throws BlueTuskUsageException.

	virtual PreparedStatement prepareCached(const std::string& sql);
		/// As prepare(), through the statement cache: the cached statement for this text (parameter types
		/// inferred) when the cache holds one, with no round trip; else it is prepared (one round trip) and
		/// kept in the cache, whose least recently used statements are closed beyond Max Auto Prepare (a
		/// handle whose statement was evicted reports !isValid(): prepare it again). With Max Auto Prepare=0
		/// it prepares an uncached statement. Used by the Poco::Data connector, whose statements compile
		/// anew each time an application writes `session << sql`. The default calls prepare().

	virtual Poco::UInt64 executeBatch(const PreparedStatement& statement, const std::vector<Parameters>& rows);
		/// Executes statement once per element of rows, pipelined: Bind/Execute for each, in chunks (each
		/// chunk one write and one read, Flush between chunks), then one Sync, so the batch costs about one
		/// round trip per 256 rows and the client buffers at most a chunk. All executions run in one
		/// implicit transaction (PostgreSQL docs 55.2.4, Pipelining): should one fail, the server skips
		/// the rest and rolls back the batch (inside an explicit transaction, the transaction is aborted);
		/// its BlueTuskServerException reaches the caller, with the failing row (1-based) in the message.
		/// Returns the sum of the rows affected. Rows the statement returns are discarded. Throws like
		/// execute(); BlueTuskUsageException for an empty rows. The default executes one at a time.

	virtual QueryResult beginFetch(const PreparedStatement& statement, const Parameters& parameters, std::size_t rows);
		/// Executes statement into the unnamed portal and returns at most rows of its rows (Execute with a
		/// row limit, then Flush: PostgreSQL docs 55.2.3); while isFetching(), fetch() returns the next
		/// rows, so a large result is read in pieces of bounded size instead of whole. The result's
		/// commandTag is empty until the last piece. The portal lives in the current transaction (an implicit
		/// one when none is open, ended by the Sync sent once the rows run out or at endFetch()). Another
		/// command on the session first reads the rest of the portal into the session (fetch() then returns
		/// it from there) and ends it. Throws like execute(). The default executes the whole statement.

	virtual QueryResult fetch(std::size_t rows);
		/// The next at most rows rows of the fetch begun last (empty when it is over). Throws
		/// BlueTuskUsageException when no fetch was begun.

	virtual bool isFetching() const;
		/// True while rows of the last beginFetch() remain (in the portal or read ahead).

	virtual Poco::UInt64 fetchId() const;
		/// Identifies the fetch begun last (each beginFetch() gets a new one); 0 for none. It changes too
		/// when rows of the fetch are dropped unread (endFetch(), the end of a lease), so that a reader
		/// holding the old one can tell its rest is gone.

	virtual void endFetch();
		/// Forgets the rest of the fetch and ends its portal (Sync). Never needed for correctness.

	virtual Poco::UInt64 queryEach(const std::string& sql, const Parameters& parameters, const std::function<bool(const RowView&)>& onRow);
		/// Runs sql (prepared through the statement cache, binary results) and hands each row to onRow as
		/// it is parsed, without keeping it: the client's memory stays bounded by one row plus the read
		/// buffer, whatever the result's size. onRow returning false stops the delivery: a CancelRequest
		/// stops the server and the rest is read and dropped (the session is usable afterwards). An
		/// exception from onRow does the same, then propagates. Returns the rows delivered. The default
		/// runs query() and walks its rows.

	virtual std::unique_ptr<CopyIn> copyIn(const std::string& sql, const std::vector<Poco::UInt32>& columnTypes = {});
		/// Starts sql, a COPY ... FROM STDIN (CopyIn.h). columnTypes: the type OIDs of the copied columns,
		/// for binary rows (optional). Throws BlueTuskServerException (bad COPY), BlueTuskUsageException (sql
		/// is not a COPY FROM STDIN; it ran to its end). The default throws BlueTuskUsageException.

	virtual Poco::UInt64 copyOut(const std::string& sql, const std::function<void(const char* data, std::size_t size)>& onData);
		/// Runs sql, a COPY ... TO STDOUT, and hands each chunk of its data (a CopyData message: for text
		/// and CSV one row) to onData as it arrives. Returns the rows copied. An exception from onData stops
		/// the delivery (the rest is read and dropped) and propagates; the session stays usable. The default
		/// throws BlueTuskUsageException.

	Poco::UInt64 copyOutRows(const std::string& sql, const std::vector<Poco::UInt32>& columnTypes, const std::function<void(const RowView&)>& onRow);
		/// Runs sql, a COPY ... TO STDOUT (FORMAT binary), through copyOut() and hands each row to onRow as
		/// a RowView whose columns have the types in columnTypes (TypeOid.h; the binary format carries
		/// none), decoded with get<T>() as query results are. One row is buffered at a time. Returns the
		/// rows copied. Throws BinaryCopyReader's exceptions (not binary data, a field count that differs
		/// from columnTypes) and onRow's; the rest of the data is then read and dropped and the session
		/// stays usable. Otherwise as copyOut().

	virtual bool waitForNotification(const Poco::Timespan& timeout, Notification& notification);
		/// The oldest notification received on this session (LISTEN; NotificationResponse, also those
		/// that arrived during other commands), waiting up to timeout for one without polling the server
		/// (the socket is watched for readability). False when none came in time. Throws
		/// BlueTuskSessionBrokenException when the connection fails while waiting. Default: false.

	virtual std::vector<Notification> takeNotifications();
		/// Every notification queued so far, oldest first (no I/O). The queue keeps at most 100,000; beyond
		/// that the oldest are dropped and notificationsDropped() counts them.

	virtual Poco::UInt64 notificationsDropped() const;

	virtual std::vector<PipelineResult> executePipeline(const std::vector<PipelineCommand>& commands);
		/// Runs a pipeline (Pipeline.h; use that class). The default throws BlueTuskUsageException.

	virtual void unprepare(const PreparedStatement& statement);
		/// Closes the statement on the server (the Close goes in front of the next extended-protocol
		/// command: no round trip of its own). The handle is invalid afterwards.

	virtual StatementStatistics statementStatistics() const;
		/// This session's prepared statement and cache counters (zero by default).

	virtual void setStatementCounters(std::shared_ptr<StatementCounters> counters);
		/// Counters this session also adds to (its pool's sums); null for none. Default: ignored.

	virtual Poco::UInt64 sessionId() const;
		/// An id unique among the sessions of this process (0 for implementations without statements).

	virtual void setCommandTimeout(const Poco::Timespan& timeout);
		/// The command timeout for later statements (0: none): when no answer arrives in time the query is
		/// cancelled and BlueTuskTimeoutException thrown (the connection string's Command Timeout, in
		/// seconds, is the default). On a pooled session it holds until the lease returns. The default
		/// implementation throws Poco::NotImplementedException; ProtocolSession implements it.

	virtual Poco::Timespan commandTimeout() const;
		/// The command timeout now in force (0: none). Default: 0.

	virtual void setNoticeHandler(const NoticeHandler& handler);
		/// Where NoticeResponse messages go (NoticeHandler.h; empty: Poco::Logger "BlueTusk.Transport").
		/// On a pooled session, until the lease returns. The default implementation throws
		/// Poco::NotImplementedException; the standard sessions implement it.

	virtual bool isTls() const;
		/// True when the session runs over TLS (SSL Mode; PostgreSQL docs 55.2.10). Default: false.

	virtual int protocolVersion() const;
		/// The minor version of protocol 3 the session speaks (0 for 3.0; like libpq's
		/// PQfullProtocolVersion() minus 30000). Default: 0.

	virtual void cancel() = 0;
		/// Sends a CancelRequest for the running query on a separate connection. Thread-safe.

	virtual std::string parameterStatus(const std::string& name) const = 0;
		/// The last ParameterStatus value for name ("server_version", "in_hot_standby"), or "".

	virtual Poco::Timestamp createdAt() const = 0;
		/// When the physical connection was established.
};


class BlueTusk_Transport_API SessionFactory
	/// Opens physical sessions. The real one is makeStandardSessionFactory()'s; pool tests use fakes.
	/// Implementations must be thread-safe.
{
public:
	using Ptr = std::shared_ptr<SessionFactory>;

	virtual ~SessionFactory();

	virtual Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) = 0;
		/// Opens one authenticated session to endpoint under the settings' connectTimeout (one deadline
		/// for resolving, every address, TLS, startup and authentication). Throws
		/// BlueTuskTransportException (every address failed), BlueTuskAuthenticationException,
		/// BlueTuskServerException (e.g. 57P03 during startup) or BlueTuskProtocolException.

	virtual Session::Ptr openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
		const OpenCancellation& cancellation)
		/// As open(), but gives up soon (within about 50 ms; e.g. by waiting on sockets in short slices and
		/// checking the flag) after cancellation.cancel(), throwing BlueTuskTransportException whose message
		/// says "cancelled", with every socket closed. Used by the router for racing attempts.
		/// The default implementation only checks the flag before starting, then calls open() (which then
		/// runs to its own deadline); the standard factory overrides it.
	{
		if (cancellation.isCancelled()) throw BlueTuskTransportException("connection attempt to " + endpoint.toString() + " cancelled");
		return open(endpoint, settings);
	}
};


BlueTusk_Transport_API SessionFactory::Ptr makeStandardSessionFactory();
	/// The real SessionFactory (PostgreSQL protocol 3.0, doc/transport.md): the system resolver, then
	/// every address of the endpoint, TLS, startup, authentication and, for a target other than any,
	/// the role probe, all under one deadline of settings.connectTimeout. openCancellable() gives up
	/// within milliseconds of the cancellation and honours its StartupGate. Thread-safe. What a
	/// Connector uses unless a test sets another factory.

} // namespace BlueTusk

#endif // BlueTusk_Session_INCLUDED
