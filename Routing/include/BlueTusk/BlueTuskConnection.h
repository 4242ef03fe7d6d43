//
// BlueTuskConnection.h
//
// Library: BlueTusk/Routing
//
// A session chosen by the router: an unpooled connection, or a lease from a BlueTuskDataSource.
//

#ifndef BlueTusk_BlueTuskConnection_INCLUDED
#define BlueTusk_BlueTuskConnection_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/PoolManager.h"
#include "BlueTusk/QueryResult.h"
#include "BlueTusk/Session.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

class RoutingContext;
class BlueTuskDataSource;
class HostStateRegistry;

namespace Detail {
struct ConnectionState;
class FreshnessState;
class Router;
}


class BlueTusk_Routing_API BlueTuskConnection
	/// One session to the server the router chose (doc/routing.md).
	///
	/// BlueTuskConnection::open(connectionString) is unpooled: it walks the host list with the connection
	/// string's Host Order and Target Session Attributes, and close() (or the destructor) closes the
	/// physical session. BlueTuskDataSource::open() returns a lease: close() (or the destructor) hands the
	/// session back to the EndpointPool that owns it (a broken session is discarded there).
	///
	/// Move-only. A moved-from or closed connection is not open: isOpen() is false and the accessors
	/// throw Poco::InvalidAccessException. Not thread-safe: one thread at a time (like Session).
	///
	/// Example:
	///     auto conn = BlueTuskConnection::open("Host=db-a,db-b;Username=app;Target Session Attributes=primary");
	///     conn.executeSimple("INSERT INTO t VALUES (1)");
	///     std::cout << conn.connectedEndpoint().toString() << " " << toString(conn.role());
{
public:
	static BlueTuskConnection open(const std::string& connectionString);
		/// Opens an unpooled connection through RoutingContext::defaultContext().
		/// Throws BlueTuskConnectionStringException (bad string), BlueTuskPluginException (unknown Host
		/// Order), BlueTuskAuthenticationException (a server rejected the credentials: later hosts are not
		/// tried), BlueTuskNoAcceptableHostException (every endpoint failed or was rejected: the message
		/// lists each endpoint in attempt order with its outcome; thrown as HostAttemptsException, whose
		/// attempts() gives every attempt of every pass as data).

	static BlueTuskConnection open(const std::string& connectionString, RoutingContext& connector);
		/// As above, through the given connector (its plugins, session factory and host states).

	static BlueTuskConnection open(const ConnectionSettings& settings, RoutingContext& connector);
		/// As above, with settings already parsed.

	BlueTuskConnection();
		/// A connection that is not open.

	BlueTuskConnection(BlueTuskConnection&& other) noexcept;
	BlueTuskConnection& operator = (BlueTuskConnection&& other) noexcept;
		/// Closes (or returns) the session this connection held, then takes over other's.

	~BlueTuskConnection();
		/// close().

	bool isOpen() const;
		/// True until close(), or until moved from.

	bool isPooled() const;
		/// True for a lease from a BlueTuskDataSource.

	const BlueTuskHostEndpoint& connectedEndpoint() const;
		/// The endpoint chosen: the host exactly as written in the connection string, and its port.

	ServerRole role() const;
		/// The server's role. Known after any targeted open; for target any it is determined on first call
		/// (from the ParameterStatus values the server sent, else one round trip).

	Session& session();
		/// The physical session (for anything the convenience functions do not cover).

	std::vector<QueryResult> executeSimple(const std::string& sql);
		/// session().executeSimple(sql): the simple query protocol, one result per statement. A
		/// BlueTuskException from the session (server error, protocol error, broken session) is rethrown
		/// with the same type and " (server <endpoint>)" added to its message, redacted.

	QueryResult execute(const std::string& sql, const std::vector<FieldValue>& parameters = {});
		/// session().execute(sql, parameters): the extended query protocol, text parameters $1, $2...
		/// Errors as executeSimple().

	QueryResult query(const std::string& sql, const Parameters& parameters = {});
		/// session().query(sql, parameters): typed parameters, through the session's statement cache (Max
		/// Auto Prepare, Auto Prepare Min Usages); read rows with result.row(i).get<T>(). See Session::query().

	PreparedStatement prepare(const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes = {});
		/// session().prepare(sql): one round trip (Parse + Describe + Sync). The statement belongs to the
		/// physical session: a lease's next checkout may get another session, where the handle throws
		/// BlueTuskUsageException (use query() for statements that should follow the lease).

	QueryResult execute(const PreparedStatement& statement, const Parameters& parameters = {});
		/// session().execute(statement, parameters): Bind + Execute + Sync, binary results.

	Lsn walPosition();
		/// The read-your-writes token (doc/freshness.md): on a primary the WAL position after everything
		/// this session has committed, pg_current_wal_insert_lsn(); on a standby how far it has replayed,
		/// pg_last_wal_replay_lsn(). One round trip, only when called. Call it after the commit (in a
		/// transaction the position does not cover what is not committed yet). Pass the token to
		/// BlueTuskDataSource::open(target, token), in this process or, as Lsn::toString(), in another.
		/// With Read Your Writes=true a data source's write lease does this by itself when it is closed.
		/// Throws like executeSimple().

	void close();
		/// Unpooled: closes the physical session. Lease: returns it to its owning EndpointPool (reset
		/// there; discarded when broken). Never throws; safe to call twice. The object keeps settings()
		/// and attemptLog() readable until it is destroyed (for a lease, it holds the data source's
		/// bookkeeping, not a session, until then). A write lease (target primary, read-write,
		/// prefer-primary or any) of a data source with Read Your Writes=true that is on a read-write
		/// primary with no transaction open first learns its walPosition() for the data source (one round
		/// trip; a failure there is logged at debug level and otherwise ignored).

	const HostAttemptList& attemptLog() const;
		/// The endpoints tried by the open that produced this connection, in attempt order, with outcomes
		/// (a lease served from an idle session has one entry with reused == true). Kept after close().

	const ConnectionSettings& settings() const;
		/// The settings this connection was opened with (Password kept but never printed).

private:
	explicit BlueTuskConnection(std::unique_ptr<Detail::ConnectionState> state);
		/// A routed or unpooled open: takes the lease and the owner out of state and keeps the rest.

	BlueTuskConnection(PoolEntryPtr entry, std::shared_ptr<void> owner, const ConnectionSettings& settings,
		const HostAttemptList& attempts, HostStateRegistry* hostStates);
		/// The idle fast path of BlueTuskDataSource::open(): a lease with no allocation; settings and
		/// attempts live in the data source state that owner keeps alive.

	BlueTuskConnection(const BlueTuskConnection&) = delete;
	BlueTuskConnection& operator = (const BlueTuskConnection&) = delete;

	void checkOpen() const;
	bool relearnRole();
		/// close() for a session with SessionControl::roleChangeSuspected(): one forced role probe, whose result
		/// becomes the endpoint's learned role (pool and host states). False when the session broke.

	PoolEntryPtr _entry;                         /// the session, until close()
	std::shared_ptr<void> _owner;                /// a lease: the data source state (owns the pool, and what
	                                             /// _settings and _attempts point to); kept until destruction
	const ConnectionSettings* _settings = nullptr;
	const HostAttemptList* _attempts = nullptr;
	std::unique_ptr<Detail::ConnectionState> _state; /// routed and unpooled opens: what they own, or null
	HostStateRegistry* _hostStates = nullptr;    /// the connector's learned host states (wrong-node answers)
	bool _pooled = false;
	Detail::FreshnessState* _freshness = nullptr;  /// a lease of a data source with Read Your Writes: where
	                                               /// walPosition() notes the token (owned by _owner's state)
	bool _writeLease = false;                      /// ... and close() asks for it (a write target's lease)

	friend class Detail::Router;
	friend class BlueTuskDataSource;
};

} // namespace BlueTusk

#endif // BlueTusk_BlueTuskConnection_INCLUDED
