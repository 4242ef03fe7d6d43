//
// ProtocolSession.h
//
// Library: BlueTusk/Transport
//
// One physical session speaking the PostgreSQL frontend/backend protocol 3.0 over a Poco socket.
//

#ifndef BlueTusk_ProtocolSession_INCLUDED
#define BlueTusk_ProtocolSession_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "connect/Deadline.h"
#include "protocol/MessageReader.h"
#include "protocol/MessageWriter.h"
#include "connect/ScramClient.h"
#include "BlueTusk/Session.h"
#include "StatementCache.h"
#include "Poco/Mutex.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Clock.h"
#include "Poco/Timespan.h"
#include <atomic>
#include <deque>
#include <map>
#include <string>

namespace BlueTusk {

namespace Detail {
class ProtocolCopyIn;
class GssClient;
}


class BlueTusk_Transport_API ProtocolSession: public Session, public SessionControl
	/// A Session over the PostgreSQL protocol 3.0 (PostgreSQL docs chapter 55), created by
	/// ProtocolSessionFactory (which calls startup() on a connected socket under the host deadline).
	///
	/// Startup (startup()): per SSL Mode an SSLRequest and the TLS upgrade, the StartupMessage (user,
	/// database, application_name, client_encoding=UTF8), authentication (trust, cleartext, MD5,
	/// SCRAM-SHA-256, SCRAM-SHA-256-PLUS over TLS; the SCRAM server signature is verified), then
	/// ParameterStatus, BackendKeyData and ReadyForQuery.
	///
	/// Queries: executeSimple() (simple query protocol, several statements, one QueryResult each) and
	/// execute() (extended protocol with the unnamed statement and portal, text parameters). An
	/// ErrorResponse becomes a BlueTuskServerException once the server is ready again (sessionUsable()
	/// true); FATAL/PANIC errors, EOF, resets, protocol errors and unanswered command timeouts mark the
	/// session broken (isBroken()) and throw BlueTuskServerException (sessionUsable() false) or
	/// BlueTuskSessionBrokenException.
	///
	/// Command timeout (setCommandTimeout(), default settings.commandTimeout): when no answer arrives in
	/// time, a CancelRequest is sent and the server gets a grace period (the command timeout again, at
	/// least 1 s, at most 10 s; sending the cancel counts against it) to report the cancel (SQLSTATE
	/// 57014, thrown as BlueTuskServerException whose message names the command timeout); when it does
	/// not answer, the session is broken (BlueTuskSessionBrokenException, code TIMED_OUT).
	///
	/// Thread-safety: one thread at a time; cancel() and isBroken() may be called from any thread.
{
public:
	using Ptr = std::unique_ptr<ProtocolSession>;

	ProtocolSession(const BlueTuskHostEndpoint& endpoint);
		/// A session object for endpoint, not connected yet (isBroken() true until startup() succeeds).

	~ProtocolSession();
		/// Closes the session (Terminate) if still open.

	void startup(Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress& address, const ConnectionSettings& settings, const Deadline& deadline);
		/// Runs the whole session start on a connected socket (see above) within deadline, and keeps the
		/// socket. socket is replaced by the TLS socket when TLS is used. sslmode allow and prefer may
		/// reconnect to address (allow: plain rejected by pg_hba, retried with TLS; prefer: TLS handshake
		/// failed, retried plain). The password is settings.password, or the passfile entry for this host.
		/// Throws: Poco network exceptions / Poco::TimeoutException / Poco::Net::SSLException (network
		/// class: the Dialer tries the next address), BlueTuskSessionBrokenException (closed before the
		/// session was ready; code() is the AddressAttempt::Outcome), BlueTuskProtocolException,
		/// BlueTuskServerException (ErrorResponse; sessionUsable() false), BlueTuskAuthenticationException
		/// (credentials rejected, SQLSTATE class 28, SCRAM signature mismatch, unsupported method, no
		/// password available). When settings.targetSessionAttributes is not Any, the role is probed
		/// (probeRole(false)) before it returns, under the same deadline.

	// Session (and SessionControl: the role, reset and lease hooks among them)

	SessionControl& control() override;
	const BlueTuskHostEndpoint& endpoint() const override;
	std::string connectedAddress() const override;
	ServerRole role() const override;
	ServerRole reportedRole() const override;
		/// Session's once a role probe has shown the peer is the server itself (pg_backend_pid() equal to
		/// BackendKeyData's process id), else Unknown, and always Unknown with transaction pooling: a pooler
		/// may replay in_hot_standby and default_transaction_read_only from its cache at login; the role
		/// then comes from the probe query (RoleSource.cpp).
	ServerRole probeRole(bool force);
	bool roleChangeSuspected() const;
	ServerRole probeRoleAndWal(Lsn& replayed, Lsn& received);
	ServerRole refreshRole();
	bool roleConfirmedWithin(const Poco::Timespan& window) const;
	bool isBroken() const;
	TransactionStatus transactionStatus() const;
	void reset(bool discardAll);
	bool deferReset();
	bool endLease();
	bool isResetPending() const;
	bool ranSinceReset() const;
	void close();
	std::vector<QueryResult> executeSimple(const std::string& sql);
	void executeSimpleSequence(const std::vector<std::string>& queries, std::vector<std::vector<QueryResult>>& answers);
	QueryResult execute(const std::string& sql, const std::vector<FieldValue>& parameters);
	QueryResult query(const std::string& sql, const Parameters& parameters = {});
	PreparedStatement prepare(const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes = {});
	QueryResult execute(const PreparedStatement& statement, const Parameters& parameters = {});
	PreparedStatement prepareCached(const std::string& sql);
	Poco::UInt64 executeBatch(const PreparedStatement& statement, const std::vector<Parameters>& rows);
	QueryResult beginFetch(const PreparedStatement& statement, const Parameters& parameters, std::size_t rows);
	QueryResult fetch(std::size_t rows);
	bool isFetching() const;
	Poco::UInt64 fetchId() const;
	void endFetch();
	void unprepare(const PreparedStatement& statement);
	Poco::UInt64 queryEach(const std::string& sql, const Parameters& parameters, const std::function<bool(const RowView&)>& onRow);
	std::unique_ptr<CopyIn> copyIn(const std::string& sql, const std::vector<Poco::UInt32>& columnTypes = {});
	Poco::UInt64 copyOut(const std::string& sql, const std::function<void(const char* data, std::size_t size)>& onData);
	std::vector<PipelineResult> executePipeline(const std::vector<PipelineCommand>& commands);
	bool waitForNotification(const Poco::Timespan& timeout, Notification& notification);
	std::vector<Notification> takeNotifications();
	Poco::UInt64 notificationsDropped() const;
	StatementStatistics statementStatistics() const;
	void setStatementCounters(std::shared_ptr<StatementCounters> counters);
	Poco::UInt64 sessionId() const;
	void cancel();
	std::string parameterStatus(const std::string& name) const;
	Poco::Timestamp createdAt() const;

	// ProtocolSession

	const std::map<std::string, std::string>& parameterStatuses() const;
		/// Every ParameterStatus received so far (name -> latest value).

	void setNoticeHandler(const NoticeHandler& handler) override;
		/// Where NoticeResponse messages go (empty: Poco::Logger "BlueTusk.Transport"). On a pooled session,
		/// until the lease returns (endLease()).

	void setCommandTimeout(const Poco::Timespan& timeout) override;
		/// The command timeout for later queries (0: none). See the class description. On a pooled
		/// session, until the lease returns: endLease() puts the connection string's back.

	Poco::Timespan commandTimeout() const override;

	bool isTls() const override;
		/// True when the session runs over TLS.

	int protocolVersion() const override;
		/// The minor version of protocol 3 the session speaks: what the StartupMessage asked for (Max Protocol
		/// Version), or the lower one the server answered with NegotiateProtocolVersion (PostgreSQL 15 answers
		/// 3.0 to 3.2). Like libpq's PQfullProtocolVersion() minus 30000.

	std::size_t cancelKeyLength() const;
		/// The length in bytes of the secret key BackendKeyData gave (4 in 3.0; 32 from PostgreSQL 18 in 3.2).

	const std::string& authenticationMethod() const;
		/// What the server asked for and the client did: "trust", "cleartext", "MD5", "SCRAM-SHA-256",
		/// "SCRAM-SHA-256-PLUS".

	Poco::Int32 backendProcessId() const;
		/// The server process id from BackendKeyData (0 if none was sent).

	const AddressAttemptList& addressAttempts() const;
		/// The per-address attempts of the open that produced this session (the last is CONNECTED).

	void setAddressAttempts(const AddressAttemptList& attempts);
		/// Stores the attempts (ProtocolSessionFactory does).

	void markBroken();
		/// Marks the session broken (it is never reused); the socket is closed on close().

	void configureStatementCache(std::size_t maxAutoPrepare, std::size_t autoPrepareMinUsages);
		/// Sets the statement cache's limits (startup() applies the settings' Max Auto Prepare and Auto
		/// Prepare Min Usages); forgets what it held (statements already on the server are closed).

	const StatementCache& statementCache() const;
		/// The automatically prepared statements.

	void setTransactionPooling(bool on);
		/// Server Pooling=transaction (doc/poolers.md): with on, no statement stays on the server between
		/// commands (prepare() describes the statement and each run parses it again as the unnamed statement,
		/// in the same write as its Bind: no round trip of its own), the statement cache is emptied and off,
		/// reset() rolls back but sends no DISCARD ALL, and refreshRole() asks the server instead of trusting
		/// ParameterStatus a pooler may replay from its cache. Statements already prepared are forgotten
		/// without a Close (behind a transaction pooler the Close could reach another client's statement).
		/// startup() applies the settings' Server Pooling.

	bool transactionPooling() const;

	std::string resetSql() const;
		/// What the pool's reset runs: "DISCARD ALL", or, while this session holds prepared statements,
		/// the equivalent that keeps them (CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL;
		/// UNLISTEN *; SELECT pg_advisory_unlock_all(); DISCARD SEQUENCES; DISCARD TEMP), as Npgsql does.

private:
	ProtocolSession(const ProtocolSession&) = delete;
	ProtocolSession& operator = (const ProtocolSession&) = delete;

	// SessionStartup.cpp
	void negotiate(Poco::Net::StreamSocket& socket, const ConnectionSettings& settings, SslMode mode, bool tls);
	void reconnect(Poco::Net::StreamSocket& socket);
	void authenticate(const BackendMessage& message, const ConnectionSettings& settings);
	void startTls(Poco::Net::StreamSocket& socket, const ConnectionSettings& settings, SslMode mode);
	void negotiateProtocolVersion(const BackendMessage& message, const ConnectionSettings& settings);
	void backendKey(const BackendMessage& message);
	[[noreturn]] void startupError(const BackendMessage& message);
	std::string password(const ConnectionSettings& settings, const std::string& method) const;

	// RoleSource.cpp
	ServerRole parameterRole() const;
		/// What in_hot_standby and default_transaction_read_only say, confirmed or not (a change reported
		/// during the session is the server's own); Unknown with transaction pooling.
	bool peerIsServer();
		/// True when the session has shown that it talks to the server itself (a role probe's
		/// pg_backend_pid() equal to BackendKeyData's process id), or shows it now: outside a transaction
		/// block it runs the role probe (one round trip). A 26000 on one of the session's own statements is
		/// then the application's own DEALLOCATE ALL or DISCARD ALL, not the sign of a transaction pooler.
		/// Never throws (a failed probe: false).
	void notePeerProcess(const std::string* backendPid);
		/// The role probe's pg_backend_pid() (nullptr: NULL): equal to BackendKeyData's process id, the
		/// session's ParameterStatus is the server's own and reportedRole() may use it.

	// ProtocolSession.cpp
	std::string where() const;
	void sendCancel(const Poco::Timespan& timeout);
	void ensureUsable();
	void closeSocket();
	void setReceiveTimeout(const Poco::Timespan& timeout);
	void handleReady(const BackendMessage& message);
	void handleReady(char status);
		/// The transaction status of a ReadyForQuery ('I', 'T', 'E').
	bool handleAsync(const BackendMessage& message);
	BlueTuskServerException::Fields errorOrFatal(const BackendMessage& message);
		/// An ErrorResponse's fields; for FATAL or PANIC the session is broken and the error thrown
		/// (BlueTuskServerException, sessionUsable() false).
	BackendMessage receiveInCycle();
	void receiveInCycle(BackendMessage& message);
		/// As receiveInCycle(), into message (its body's capacity is reused: no allocation per DataRow).
	void awaitInCycle();
		/// Waits until the reader holds a whole message, under the command timeout or deadline, with the
		/// cancel and broken-session handling of receiveInCycle(); the message stays in the reader.
	void awaitBeforeExpiry();
		/// awaitInCycle() while _commandExpiryArmed: every read waits only until _commandExpiry, so a
		/// server that trickles its answer byte by byte is bounded too (Poco::TimeoutException at expiry).
	void sendWriter();
		/// Sends what the writer holds under the command timeout (or the startup deadline); a failure
		/// breaks the session (BlueTuskSessionBrokenException).
	void applySocketTimeouts();
		/// The socket's send and receive timeouts for the next command: the running deadline's time left,
		/// else the command timeout.
	void sendWriter(std::size_t end);
		/// sendWriter() for the writer's bytes up to end only (MessageWriter::send(socket, end)).
	[[noreturn]] void sendFailed(const Poco::Exception& exc);
		/// For a catch block of a failed send: clears the writer, breaks the session and rethrows (during
		/// startup, under a deadline) or throws BlueTuskSessionBrokenException naming the endpoint.
	void sendWriterReading(std::size_t end);
		/// sendWriter(end) that never blocks a server waiting for its answers to be read: on a plain
		/// socket it sends what the socket takes, waits in poll(2) for room or answers, and reads answers
		/// into the reader meanwhile (the command timeout, or the deadline, bounds each wait); on TLS,
		/// sendWriter(end).
	std::vector<QueryResult> runCycle(const std::vector<ColumnDescription>* columns = nullptr);
		/// Sends what the writer holds and reads the answer up to ReadyForQuery; with a deferred DISCARD
		/// ALL in front (writePendingReset()), reads its answer first. columns: the RowDescription of a
		/// prepared statement executed without Describe (its rows arrive without one).
	void runCycle(std::vector<QueryResult>& results, const std::vector<ColumnDescription>* columns = nullptr);
		/// runCycle() into results (cleared first; its capacity kept): the one-result paths pass
		/// _cycleResults and allocate no vector per command (doc/performance.md, row 13f).
	QueryResult runCycleForOne(const std::vector<ColumnDescription>* columns = nullptr);
		/// runCycle() of a command with at most one result: that result (empty when none came).
	void hintRows(const std::string& sql);
		/// Sets _rowsHint for sql: the row count of its previous run when that was large (rememberRows()),
		/// so readCycle() reserves the rows vector once instead of growing it (doc/performance.md, "Pass 3").
	void rememberRows(const std::string& sql, const std::vector<QueryResult>& results);
		/// Remembers sql's row count when its first result had at least 1,024 rows; forgets it when fewer.
	std::vector<QueryResult> readCycle(const std::vector<ColumnDescription>* columns = nullptr);
		/// Reads one answer up to ReadyForQuery; throws its ErrorResponse as BlueTuskServerException.
	void readCycle(std::vector<QueryResult>& results, const std::vector<ColumnDescription>* columns);
		/// readCycle() into results (cleared first).
	template <typename OnMessage>
	void readToReady(const char* during, OnMessage&& onMessage);
		/// The one reader of backend messages up to ReadyForQuery (defined in src/session/ReadyReader.h),
		/// which every command's answer goes through: waits for each message under the command timeout or
		/// the deadline (awaitInCycle()) and hands it to onMessage, a bool(const MessageReader::View&) that
		/// returns false for a message it does not take; such a message is handled as an asynchronous one
		/// (handleAsync(): ParameterStatus, NoticeResponse, NotificationResponse), or else is a protocol
		/// violation ("unexpected ... from <server> <during>"). Returns after the ReadyForQuery
		/// (handleReady()). A BlueTuskProtocolException, the handler's too, breaks the session; the handler's
		/// other exceptions pass through unchanged.
	bool writePendingReset();
		/// Puts the deferred reset into the writer, in front of the command about to be written (DeferredReset.cpp):
		/// DISCARD ALL as Parse/Bind/Execute with no Sync of its own (pipelined: one cycle with the command),
		/// the statement-keeping reset as its own Query. Returns false when none was pending.
	void readAfterDeferredReset(std::vector<QueryResult>& results, const std::vector<ColumnDescription>* columns);
		/// runCycle()'s read when a deferred reset went in front: the reset's answer, then the command's.
		/// A failed reset closes the session and throws BlueTuskSessionBrokenException.
	std::string readPipelinedResetAnswer();
		/// Reads the pipelined DISCARD ALL's ParseComplete, BindComplete and CommandComplete (returns "") or
		/// its ErrorResponse (returns its text); the asynchronous messages between are handled as usual.
	std::vector<QueryResult> executeReadOnly(const std::string& sql);
		/// executeSimple() for BlueTusk's own probes, which change no session state: ranSinceReset() stays
		/// as it was (false when a pending reset went in front).
	void abandonWrite();
		/// Discards what the writer holds after an encoding error (nothing was sent): a deferred reset
		/// and pending Closes put into it stay pending.

	// ExtendedQuery.cpp
	using StatementPtr = std::shared_ptr<PreparedStatement::Description>;
	void writePendingCloses();
	StatementPtr newStatement(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes, bool cached);
	void parseAndDescribe(PreparedStatement::Description& statement, bool again);
		/// Parse + Describe + Sync of statement (with again, a named one's Close first): one round trip; the
		/// answer describes it and counts a (re)preparation.
	StatementPtr prepareNamed(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes, bool cached);
	void admit(const StatementPtr& statement);
		/// Puts a statement just prepared into the cache; the evicted ones are closed (in front of the next
		/// command) and their handles invalidated.
	void describe(PreparedStatement::Description& statement, const QueryResult& description);
	void reprepare(PreparedStatement::Description& statement);
	QueryResult runPrepared(PreparedStatement::Description& statement, const Parameters& parameters);
	QueryResult executeStatement(PreparedStatement::Description& statement, const Parameters& parameters);
	QueryResult prepareAndRun(const StatementPtr& statement, const Parameters& parameters);
	QueryResult parseAndRun(PreparedStatement::Description& statement, const Parameters& parameters, bool again);
		/// Parse + Describe + Bind + Execute + Sync in one write (again: a Close of the old statement first,
		/// for a statement marked stale); the rows of this run come in text.
	template <typename Run>
	auto retryIfStale(PreparedStatement::Description& statement, Run&& run) -> decltype(run());
		/// Runs run(); when it fails because the statement no longer matches the schema (StatementInvalidation.h),
		/// prepares the statement again and, outside a transaction block, runs it once more; inside one the
		/// error says what happened. A value its parameter types refused (nothing sent) is tried once more
		/// against freshly inferred types, in or out of a transaction.
	void noteSchemaChange(const std::string& commandTag);
		/// After a CommandComplete whose tag Detail::changesSchema() (DDL, DISCARD ALL, DEALLOCATE): marks the
		/// cached statements stale.
	QueryResult runUnnamed(const std::string& sql, const Parameters& parameters, const std::vector<Poco::UInt32>& types);
	void writeStatementBind(const PreparedStatement::Description& statement, const Parameters& parameters,
		const std::vector<Poco::Int16>& resultFormats);
		/// Bind of the unnamed portal to statement; for an unnamed statement (transaction pooling) its Parse
		/// goes in front, with the described parameter types.
	const std::string& serverName(const PreparedStatement::Description& statement) const;
		/// The name the server knows statement by: "" for an unnamed one, and for every one once the session
		/// is in transaction pooling (a handle prepared before the switch runs unnamed from then on).
	bool isUnnamed(const PreparedStatement::Description& statement) const;
	bool noticeTransactionPooler(const BlueTuskServerException& exc);
		/// Server Pooling=auto: when exc is the sign of a transaction pooler (PoolerDetection.h), switches this
		/// session to transaction pooling, records the endpoint for the process's other sessions (logged once,
		/// with the keyword to set) and returns true. False otherwise.
	void followTransactionPoolers();
		/// Server Pooling=auto: switches to transaction pooling when another session found this endpoint
		/// behind a transaction pooler since the last look (one atomic load when nothing changed).
	[[noreturn]] void throwPoolerInTransaction(const BlueTuskServerException& exc);
		/// The sign came inside a transaction block, which it aborted: the error, saying so and what to do.
	template <typename Run, typename Again>
	auto againIfPooler(Run&& run, Again&& again) -> decltype(run());
		/// run(); when Server Pooling=auto meets the sign of a transaction pooler in it, outside a transaction
		/// block again() (the command as the unnamed statement), inside one throwPoolerInTransaction()
		/// (PoolerRetry.h).
	template <typename Run>
	auto againIfPooler(Run&& run) -> decltype(run());
		/// againIfPooler(run, run): the same command once more, now unnamed.
	bool pipelineMetPooler(const std::vector<PipelineCommand>& commands, std::vector<PipelineResult>& results, bool outside);
		/// True when a pipeline can run again after its first sign of a transaction pooler (TransactionPoolerGuard.cpp).
	void refuseBehindPooler(const std::string& sql) const;
		/// In transaction pooling: BlueTuskUsageException, before anything is sent, for what cannot work there
		/// (PoolerRefusals.h; TransactionPoolerGuard.cpp).
	void countPrepared(bool again);
	void checkOwned(const StatementPtr& statement) const;
	[[noreturn]] void refuseParameterCount(const PreparedStatement::Description& statement, const Parameters& parameters) const;
		/// Throws BlueTuskUsageException: the count of values differs from the statement's placeholders.

	// PortalFetch.cpp
	QueryResult readPortal(std::size_t rows);
		/// Reads the answer to an Execute with a row limit: rows, then PortalSuspended (more to come) or
		/// CommandComplete (the end: the Sync is sent and its ReadyForQuery read).
	void finishPortal(bool keepRest);
		/// Ends an open portal before another command: keepRest reads its remaining rows into
		/// _fetchAhead first (Execute without a limit), else they are dropped. Then Sync.
	QueryResult takeAhead(std::size_t rows);

	// CopyStream.cpp, RowStream.cpp, Notifications.cpp
	// SessionMaintenance.cpp
	class MaintenanceScope;
	template <typename Operation>
	auto maintain(const char* what, Operation&& operation) -> decltype(operation());
		/// Runs one of BlueTusk's own round trips (what: "the session reset") bounded by the settings'
		/// Timeout unless a deadline runs already; a timeout or a lost connection then breaks the session
		/// and throws BlueTuskSessionBrokenException naming what.
	bool undoLeaseChanges();
		/// endLease()'s work when the lease changed the session (command timeout, notice handler, queued
		/// notifications, an open COPY or portal, read-ahead rows); out of line, so that the return of a
		/// lease that changed none of them pays a few loads only (doc/performance.md, row 6a).

	friend class Detail::ProtocolCopyIn;
	void handleBufferedAsync();
		/// Handles the notices, notifications and ParameterStatus messages already buffered in the reader
		/// (read while a send waited for room, sendWriterReading()), up to the first other message, which
		/// stays buffered for the cycle that reads it: a server sending many of them during a long COPY
		/// must not grow the reader without bound (libpq's pqPutCopyData() does the same).
	void startCopy(const std::string& sql, char expected, std::vector<Poco::Int16>* formats);
		/// Sends sql (simple query) and reads up to its CopyInResponse ('G') or CopyOutResponse ('H').
	void drainToReady();
		/// Reads and drops everything up to ReadyForQuery, swallowing an ErrorResponse (used after a cancel).
	void queueNotification(const BackendMessage& message);
	void writePipelineCommand(const PipelineCommand& command);
	bool readPipelineStatement(const PipelineCommand& command, PipelineResult& result);
		/// Reads one statement's answer; false when it failed (ErrorResponse).
	void readPipelineSync();
		/// Reads up to the ReadyForQuery that answers a pipeline's Sync.
	Poco::UInt64 runBatch(PreparedStatement::Description& statement, const std::vector<Parameters>& rows);
		/// executeBatch() of a statement that is prepared and current: its checks, chunks and answers.
	Poco::UInt64 readBatchChunk(std::size_t executions, std::size_t firstRow, bool outsideTransaction,
		std::unique_ptr<BlueTuskServerException>& error);

	BlueTuskHostEndpoint _endpoint;
	Poco::Net::StreamSocket _socket;
	Poco::Net::SocketAddress _address;
	MessageReader _reader;
	MessageWriter _writer;
	std::map<std::string, std::string> _parameters;
	Poco::Int32 _processId = 0;
	std::string _secretKey;             /// BackendKeyData's secret key bytes (4 in protocol 3.0, up to 256 in 3.2)
	int _protocolVersion = 0;           /// the minor version of protocol 3 in use (after NegotiateProtocolVersion)
	TransactionStatus _transactionStatus = TransactionStatus::Idle;
	ServerRole _role = ServerRole::Unknown;
	bool _roleChangeSuspected = false;   /// a 25006 arrived while the role was Primary (roleChangeSuspected())
	std::atomic<bool> _broken{true};
	std::string _brokenBy;               /// the FATAL or PANIC error that broke the session (ensureUsable() names it)
	bool _closed = false;
	bool _ready = false;
	bool _tls = false;
	bool _tlsHandshakeFailed = false;
	std::string _channelBinding;
	std::unique_ptr<ScramClient> _scram;
	std::shared_ptr<Detail::GssClient> _gss;  /// the GSSAPI exchange in progress (shared_ptr: GssClient is incomplete here)
	bool _scramVerified = false;
	std::string _authenticationMethod;
	std::string _username;
	std::string _phase = "connect";
	const Deadline* _deadline = nullptr;
	Poco::Timestamp _createdAt;
	NoticeHandler _noticeHandler;
	Poco::Timespan _commandTimeout;
	Poco::Timespan _defaultCommandTimeout;   /// the settings' Command Timeout: endLease() puts it back
	Poco::Timespan _maintenanceTimeout;      /// the settings' Timeout: bounds BlueTusk's own round trips (MaintenanceScope)
	bool _roleFromProbe = false;             /// _role came from the probe query and no cycle ran since (probeRole(false))
	bool _peerIsServer = false;              /// a role probe's pg_backend_pid() matched BackendKeyData (RoleSource.cpp)
	std::shared_ptr<int> _lifetime = std::make_shared<int>(0);   /// a CopyIn's weak_ptr to it tells it the session is gone
	Poco::Timespan _receiveTimeout;
	bool _receiveTimeoutSet = false;
	Poco::Timespan _sendTimeout;
	bool _sendTimeoutSet = false;
	bool _cancelSentForTimeout = false;
	bool _commandExpiryArmed = false;   /// a buffered command runs: Command Timeout bounds it as a whole
	Poco::Clock _commandExpiry;         /// when it runs out (then: when the cancel's grace runs out)
	bool _discardPending = false;   /// deferReset(): DISCARD ALL goes in front of the next command
	bool _discardInFlight = false;  /// the writer holds that DISCARD ALL: its answer comes first
	bool _resetPipelined = false;   /// ... as Parse/Bind/Execute without a Sync (writePendingReset())
	bool _ranSinceReset = false;    /// a command ran since the startup or the last reset (ranSinceReset())
	Poco::Clock _readyAt;           /// when the last ReadyForQuery arrived (roleConfirmedWithin())
	AddressAttemptList _attempts;
	mutable Poco::FastMutex _cancelMutex;
	std::vector<Poco::UInt32> _parameterDescription;   /// the last ParameterDescription received
	std::string _rowsHintSql;        /// the last statement that returned many rows (rememberRows())
	std::size_t _rowsHintCount = 0;  /// how many it returned; 0: none remembered
	std::size_t _rowsHint = 0;       /// rows to reserve for the first result of the running command
	StatementCache _statementCache{128, 2};
	std::vector<std::string> _pendingCloses;           /// statements to Close in front of the next extended command
	std::vector<std::string> _closesInFlight;          /// ... put into the writer (restored by abandonWrite())
	Poco::UInt64 _sessionId;
	Poco::UInt64 _nextStatement = 0;
	std::size_t _explicitStatements = 0;               /// prepare()d and not unprepare()d
	bool _transactionPooling = false;                   /// Server Pooling=transaction (setTransactionPooling())
	bool _autoPooling = false;                          /// Server Pooling=auto: follow the sign of a transaction pooler
	std::vector<QueryResult> _cycleResults;            /// runCycleForOne()'s results, their capacity kept between commands
	mutable std::string _allowedBehindPooler;          /// the last text refuseBehindPooler() let pass
	Poco::UInt64 _poolerGeneration = 0;                 /// Detail::transactionPoolerGeneration() when last followed
	StatementStatistics _statementStatistics;
	std::shared_ptr<StatementCounters> _statementCounters;
	bool _portalOpen = false;                           /// a beginFetch() portal is suspended on the server
	std::vector<ColumnDescription> _fetchColumns;       /// its columns
	QueryResult _fetchAhead;                            /// rows read ahead when another command ended the portal
	std::size_t _fetchAheadNext = 0;                    /// the next of those to hand out
	Poco::UInt64 _fetchId = 0;
	bool _copyInProgress = false;                       /// a CopyIn is open: no other command may run
	std::deque<Notification> _notifications;
	Poco::UInt64 _notificationsDropped = 0;
};

} // namespace BlueTusk

#endif // BlueTusk_ProtocolSession_INCLUDED
