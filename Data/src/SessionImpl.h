//
// SessionImpl.h
//
// Library: BlueTusk/Data
//
// A Poco::Data session of the "bluetusk" connector: a lease from a BlueTuskDataSource.
//

#ifndef BlueTusk_Data_SessionImpl_INCLUDED
#define BlueTusk_Data_SessionImpl_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Data/AbstractSessionImpl.h"
#include "Poco/Data/StatementImpl.h"
#include <string>

namespace BlueTusk {
namespace Data {

class BlueTusk_Data_API SessionImpl: public Poco::Data::AbstractSessionImpl<SessionImpl>
	/// Poco::Data::Session("bluetusk", connectionString[, loginTimeoutSeconds]). The connection string goes
	/// verbatim to BlueTusk's parser (Npgsql style, libpq keyword/value or URL; every BlueTusk keyword),
	/// and sessions whose strings are the same apart from Target Session Attributes (and with the same
	/// login timeout) share one BlueTuskDataSource, so they draw leases from its per-endpoint pools: open()
	/// checks a lease out for the session's own string's Target Session Attributes (routing, Failover
	/// Timeout and all), close() returns it. The login timeout (seconds) bounds the checkout (Checkout
	/// Timeout is the smaller of the two).
	///
	/// Read Your Writes=true (doc/poco-data.md, "Read your writes"): since a writer session (a write
	/// target: primary, read-write, prefer-primary, any) and a reader session (prefer-standby, standby,
	/// read-only) share their data source, its token reaches the reader. The writer leaves a token after
	/// each statement it runs in autocommit and after each commit() (one round trip each, on a primary);
	/// the reader, on a standby, waits before each statement outside a transaction (and before begin())
	/// until its standby has replayed the data source's newest token, asking its own session (no new one),
	/// at most Read Your Writes Timeout; then it moves as reconnect() does (the checkout routes with the
	/// token: prefer-standby takes the primary, standby fails).
	///
	/// Transactions: begin() / commit() / rollback() send BEGIN / COMMIT / ROLLBACK; isTransaction() is
	/// the server's transaction status (ReadyForQuery), not bookkeeping. setTransactionIsolation() sets the
	/// session's default (read committed, repeatable read, serializable; read uncommitted is refused with
	/// Poco::InvalidArgumentException: PostgreSQL runs it as read committed). The feature "autoCommit"
	/// (default true) works as in Poco 1.11's PostgreSQL connector: turning it off begins a transaction at
	/// once, turning it on commits the open one; after a commit() or rollback() while it is off, the next
	/// statement begins a new transaction (so every statement runs inside one, as ODBC's autocommit off).
	/// With Poco 1.13 and later (whose Session::begin() turns autoCommit off itself), turning it off owes
	/// the BEGIN to the next statement or begin() instead, and turning it on inside a transaction throws
	/// Poco::InvalidAccessException (PocoVersionAdapter.h).
	///
	/// reset() (Poco's SessionPool calls it when a session comes back) rolls back an open transaction,
	/// restores autoCommit and the isolation level, and resets the server session (DISCARD ALL, or the
	/// equivalent that keeps prepared statements); it never throws (a failure closes the session, which is
	/// then not isGood()). isConnected() and isGood() answer without a round trip; isGood() is false once the
	/// session is broken (its server went away). reconnect() (close + open) routes anew.
	///
	/// Properties (getProperty): "endpoint" (std::string "host:port" of the server in use), "role"
	/// (std::string: primary, primary-read-only, standby, unknown), "connection" and "handle"
	/// (BlueTusk::BlueTuskConnection*, valid while connected), "dataSource" (BlueTusk::BlueTuskDataSource*,
	/// the shared data source: its walPosition() is the token to hand to another process). Feature "bulk"
	/// is on.
	///
	/// Property "connectorName" (std::string, default "bluetusk"): what connectorName(), and so
	/// Poco::Data::Session::connector(), answers; "bluetusk" or "postgresql" (any case). Poco's ActiveRecord
	/// picks its placeholders ($n) and its generated-key query (SELECT lastval()) by that name only, so a
	/// session it uses is set to "postgresql" (doc/poco-data.md, "ActiveRecord"). Nothing in BlueTusk
	/// changes with it.
	///
	/// connectionString(), and with it Session::uri() and Poco's exception texts, is the canonical form
	/// with Password=*** (ConnectionSettings::toString()). Not thread-safe (a Poco::Data::Session is used by
	/// one thread at a time).
{
public:
	SessionImpl(const std::string& connectionString, std::size_t loginTimeout = LOGIN_TIMEOUT_DEFAULT);
		/// Parses the string and opens the session. Throws BlueTusk::Data::ConnectionException (derived
		/// from Poco::Data::ConnectionFailedException) with BlueTusk's message and the BlueTusk exception
		/// nested, for a bad string or a failed checkout.

	~SessionImpl();
		/// close().

	Poco::SharedPtr<Poco::Data::StatementImpl> createStatementImpl();
	void open(const std::string& connectionString = "");
		/// Checks a lease out (again); connectionString, when given, must be the one of this session.
	void close();
		/// Returns the lease (an open transaction is rolled back by the pool's reset).
	bool isConnected() const;
	bool isGood() const;
	void setConnectionTimeout(std::size_t timeout);
		/// Seconds a command may run (Command Timeout); 0 = no limit.
	std::size_t getConnectionTimeout() const;
	void reset();
	void begin();
	void commit();
	void rollback();
	bool canTransact() const;
	bool isTransaction() const;
	void setTransactionIsolation(Poco::UInt32 ti);
	Poco::UInt32 getTransactionIsolation() const;
	bool hasTransactionIsolation(Poco::UInt32 ti) const;
	bool isTransactionIsolation(Poco::UInt32 ti) const;
	const std::string& connectorName() const;

	void setAutoCommit(const std::string& name, bool value);
	bool isAutoCommit(const std::string& name = "") const;
	void setBinaryExtraction(const std::string& name, bool value);
	bool isBinaryExtraction(const std::string& name = "") const;
		/// The feature "binaryExtraction" (Poco's postgresql connector has it since Poco 1.12): accepted
		/// and remembered, nothing else. BlueTusk asks for binary results for every type it decodes and
		/// text for the others, whatever its value; the values extracted are the same either way.

	BlueTuskConnection& connection();
		/// The lease. Throws Poco::Data::NotConnectedException (with the redacted connection string) when
		/// the session is closed.

	void beforeStatement();
		/// With Read Your Writes, outside a transaction on a standby: waits until the standby has replayed the
		/// data source's token (or moves the session). Then sends the BEGIN that autoCommit off owes the next
		/// statement, if any.

	void catchUp();
		/// Read Your Writes on a reader, outside a transaction on a standby: waits until the standby has
		/// replayed the data source's token, within Read Your Writes Timeout, else moves the session (as
		/// reconnect()). The wait of beforeStatement() and begin(), and of a statement's prepare (its
		/// Parse/Describe must see a table the writer just created). Does nothing once the token is seen.

	void afterStatement();
		/// With Read Your Writes, on a write session's primary with no transaction open (the statement
		/// committed in autocommit): leaves the session's WAL position with the data source.

	[[noreturn]] void fail(const Poco::Exception& error, const std::string& sql);
		/// Throws error as the connector's exception: a BlueTuskServerException as StatementException (with
		/// the SQL), a broken session as ConnectionException, a type problem as Poco::Data::BindingException
		/// or ExtractException, anything else unchanged.

private:
	void setReadOnly(const std::string& name, const Poco::Any& value);
	void setConnectorName(const std::string& name, const Poco::Any& value);
	Poco::Any getConnectorName(const std::string& name) const;
	Poco::Any getEndpoint(const std::string& name) const;
	Poco::Any getRole(const std::string& name) const;
	Poco::Any getConnection(const std::string& name) const;
	Poco::Any getDataSource(const std::string& name) const;
	Poco::Any getSharedDataSource(const std::string& name) const;
		/// BlueTuskDataSource::Ptr (std::shared_ptr) of the shared data source: what
		/// Metrics::PrometheusExporter::attach() takes.
	void run(const std::string& sql);
	void leaveToken();
		/// Read Your Writes on a writer: BlueTuskConnection::walPosition() when the session is on a primary
		/// with no transaction open (a failure to learn it is logged, not thrown: the commit happened).

	std::string _connectionString;        /// as given (with the password): the data source registry's key
	BlueTuskDataSource::Ptr _dataSource;
	TargetSessionAttributes _target = TargetSessionAttributes::Any;   /// this string's own target
	std::string _targetPolicy;   /// this string's own site target-session policy, or "" (doc/plugins.md)
	bool _writeSession = false;           /// Read Your Writes and a write target: leaves tokens (afterStatement())
	bool _readSession = false;            /// Read Your Writes and a target that may take a standby: waits for them
	Lsn _seen;                            /// the newest token the lease is known to have replayed
	BlueTuskConnection _connection;
	std::size_t _commandTimeout = 0;
	bool _autoCommit = true;
	bool _binaryExtraction = false;       /// the feature's value (changes nothing: see isBinaryExtraction())
	bool _beginOwed = false;              /// autoCommit off, the last transaction ended: BEGIN before the next statement
	Poco::UInt32 _isolation;
	std::string _connectorName = "bluetusk";
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_SessionImpl_INCLUDED
