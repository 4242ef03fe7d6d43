//
// FakeBackend.h
//
// Library: BlueTusk test peers
//
// A scripted fake PostgreSQL server (protocol 3.0) on a loopback address, for fault tests.
//
//   FakeBackend primary(BackendScript::primary(), "127.0.0.1");           // ephemeral port
//   FakeBackend standby(BackendScript::standby(), "127.0.0.2");
//   FakeBackend down(BackendScript::startingUp(), "127.0.0.3");
//   std::string hosts = primary.hostAndPort() + "," + standby.hostAndPort(); // "127.0.0.1:41234,127.0.0.2:40112"
//   ... open a connection ...
//   CPPUNIT_ASSERT_EQUAL(1, standby.connectionsAccepted());
//

#ifndef BlueTusk_FakeBackend_INCLUDED
#define BlueTusk_FakeBackend_INCLUDED

#include "BackendScript.h"
#include "PeerSupport.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Timespan.h"
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Test {

class FakeBackend
	/// Listens on host:port (port 0: ephemeral; see port()) from construction until destruction. Each
	/// accepted connection is served by its own thread following the BackendScript (see there): SSLRequest
	/// and GSSENCRequest are answered 'N', CancelRequest is honoured for delayed queries, the StartupMessage
	/// is read, then the script's action runs. A serving session answers simple and extended queries:
	///   - "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')" (any statement that
	///     mentions pg_is_in_recovery) -> one row: t/f and on/off from the current script's role, and
	///     the session's BackendKeyData process id for a pg_backend_pid() in it;
	///   - "SHOW transaction_read_only" -> on/off;
	///   - a statement listed in the script's answers -> that answer;
	///   - other SELECT/SHOW/VALUES/WITH -> the script's defaultAnswer (one row "1");
	///   - BEGIN/COMMIT/ROLLBACK/DISCARD ALL/SET/... -> their command tag, with the transaction status
	///     tracked in ReadyForQuery.
	/// Terminate closes the session.
	///
	/// The destructor closes the listener and every connection and joins every thread. All member
	/// functions are thread-safe. Counters are cumulative since construction or resetCounters().
{
public:
	explicit FakeBackend(const BackendScript& script = BackendScript::primary(), const std::string& host = "127.0.0.1", Poco::UInt16 port = 0);
		/// Binds and starts accepting. Throws Poco::Net::NetException when the address cannot be bound.

	~FakeBackend();

	FakeBackend(const FakeBackend&) = delete;
	FakeBackend& operator = (const FakeBackend&) = delete;

	void setScript(const BackendScript& script);
		/// Replaces the script: new connections follow it; open sessions use its answers and role for their
		/// next queries.

	BackendScript script() const;

	Poco::Net::SocketAddress address() const;  /// the bound address
	std::string host() const;                  /// "127.0.0.1"
	Poco::UInt16 port() const;                 /// the bound port
	std::string hostAndPort() const;           /// "127.0.0.1:41234", usable in a Host list
	BlueTuskHostEndpoint endpoint() const;     /// {host(), port()}

	int connectionsAccepted() const;  /// TCP connections accepted (CancelRequest connections included)
	int startupMessages() const;      /// StartupMessages read (one per real connection attempt)
	int sslRequests() const;          /// SSLRequests (and GSSENCRequests) answered 'N'
	int sessionsReady() const;        /// sessions that reached ReadyForQuery after startup (counted before it is sent)
	int passwordsReceived() const;    /// password / SASL messages received
	int cancelRequests() const;       /// CancelRequests received
	int terminates() const;           /// Terminate messages received
	int queriesPipelined() const;
		/// Simple Query messages read while the client's next message was already there (sent in the same
		/// write, before this one was answered: no round trip between them).
	int activeConnections() const;    /// connections open right now
	std::vector<std::string> queries() const;
		/// Every statement received (simple Query text, or the SQL of each extended Execute), in order.
	int queryCount() const;
	std::map<std::string, std::string> lastStartupParameters() const;
		/// The parameters of the last StartupMessage (user, database, application_name, ...).
	int lastProtocolMinor() const;
		/// The minor protocol version the last StartupMessage asked for (0 for 3.0, 2 for 3.2); -1 before any.
	std::string lastCancelKey() const;
		/// The secret key bytes of the last CancelRequest received ("" before any).
	int matchedCancelRequests() const;
	int directTlsSessions() const;
		/// Connections whose direct TLS handshake (BackendScript::directTls) completed.
		/// CancelRequests whose process id and whole key matched a session of this backend.

	/// Counters move when the peer thread acts: connectionsAccepted, startupMessages, sslRequests,
	/// sessionsReady and passwordsReceived are final by the time the client gets any answer (or EOF);
	/// a bare TCP connect, terminates and cancelRequests may lag the client by a moment (use
	/// waitForConnectionsAccepted, waitUntil or waitForActiveConnections).

	bool waitForActiveConnections(int count, const Poco::Timespan& timeout) const;
		/// Waits until activeConnections() == count; false when timeout ran out first.
	bool waitForConnectionsAccepted(int count, const Poco::Timespan& timeout) const;
		/// Waits until connectionsAccepted() >= count; false when timeout ran out first.

	void closeAllConnections(bool reset = false);
		/// Breaks every open connection (EOF, or RST when reset), as a crashed server would. Returns at once;
		/// the connections are gone within a few milliseconds (see waitForActiveConnections).

	void resetCounters();
		/// Sets every counter to zero and forgets the recorded queries and startup parameters.

private:
	struct Connection;

	void acceptLoop();
	void serve(std::shared_ptr<Connection> connection);
	void serveStartup(Connection& connection, const BackendScript& script);
	bool authenticate(Connection& connection, const BackendScript& script, const std::string& user);
	void serveQueries(Connection& connection);
	int answerStatement(Connection& connection, const std::string& sql, bool withRowDescription);
	std::string roleChanges(Connection& connection);
		/// ParameterStatus messages for in_hot_standby / default_transaction_read_only values that changed
		/// (setScript) since the session last reported them, noted as reported.
		/// 1 answered, 0 answered with an error, -1 connection gone.
	int answerCopy(Connection& connection, const QueryAnswer& answer);
		/// The COPY sub-protocol of answer (PostgreSQL docs 55.2.6); returns as answerStatement().
	QueryAnswer resolve(const std::string& sql, Poco::Int32 processId = 0) const;
		/// The answer to sql; processId answers pg_backend_pid() in the role probe.
	bool readMessage(Connection& connection, char& type, std::string& body);
	bool send(Connection& connection, const std::string& bytes);
	bool aborted(const Connection& connection) const;
	bool pause(Connection& connection, int milliseconds, bool cancellable);
	void handleCancel(Poco::Int32 processId, const std::string& secretKey);

	Poco::Net::ServerSocket _server;
	std::thread _acceptor;
	Poco::Net::SocketAddress _address;
	Detail::StopSignal _stop;
	Detail::ThreadGroup _threads;

	mutable std::mutex _mutex;
	BackendScript _script;
	std::map<int, std::shared_ptr<Connection>> _connections;
	std::vector<std::string> _queries;
	std::map<std::string, std::string> _lastStartup;
	int _lastProtocolMinor = -1;
	std::string _lastCancelKey;
	std::atomic<int> _matchedCancels{0};
	std::atomic<int> _directTlsSessions{0};
	int _nextId = 0;
	Poco::Int32 _nextProcessId;

	std::atomic<int> _accepted{0};
	std::atomic<int> _startups{0};
	std::atomic<int> _sslRequests{0};
	std::atomic<int> _ready{0};
	std::atomic<int> _passwords{0};
	std::atomic<int> _cancels{0};
	std::atomic<int> _terminates{0};
	std::atomic<int> _queriesPipelined{0};
	std::atomic<int> _active{0};
};

bool waitUntil(const std::function<bool()>& condition, const Poco::Timespan& timeout);
	/// Polls condition every 2 ms until it is true (returns true) or timeout ran out (false). For counters
	/// that a peer thread updates after the client has moved on (terminates(), cancelRequests(), ...):
	///   CPPUNIT_ASSERT(waitUntil([&] { return backend.terminates() == 1; }, Poco::Timespan(1, 0)));


} } // namespace BlueTusk::Test

#endif // BlueTusk_FakeBackend_INCLUDED
