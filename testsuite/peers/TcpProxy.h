//
// TcpProxy.h
//
// Library: BlueTusk test peers
//
// A TCP forwarder on a loopback address whose behaviour a test switches at run time.
//
//   FakeBackend backend(BackendScript::primary());
//   TcpProxy proxy(backend.address(), "127.0.0.5");
//   ... connect to proxy.hostAndPort(): reaches the backend ...
//   proxy.setMode(TcpProxy::Mode::BlackHole);   // new connects now hang until the client's timeout
//   proxy.closeAllConnections(true);            // and open sessions see "connection reset"
//

#ifndef BlueTusk_TcpProxy_INCLUDED
#define BlueTusk_TcpProxy_INCLUDED

#include "PeerSupport.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Timespan.h"
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace BlueTusk {
namespace Test {

class BlackHoleListener;

class TcpProxy
	/// Listens on host:port (port 0: ephemeral, kept across mode changes) and, per mode, for each new
	/// connection:
	///   Forward    connects to the target and copies bytes both ways until either side closes (a refused
	///              target resets the client);
	///   Delay      as Forward, but waits delayMs after accepting before connecting to the target;
	///   Reset      accepts and closes at once with RST (SO_LINGER 0): "connection reset by peer";
	///   Refuse     closes the listener: connects are refused (ECONNREFUSED);
	///   BlackHole  listens with a full accept queue (see BlackHoleListener): connects hang until timeout.
	/// A mode change affects new connections only; closeAllConnections() breaks established ones. Every
	/// member function is thread-safe; the destructor closes everything and joins every thread.
{
public:
	enum class Mode
	{
		Forward,
		Delay,
		Reset,
		Refuse,
		BlackHole
	};

	explicit TcpProxy(const Poco::Net::SocketAddress& target, const std::string& host = "127.0.0.1", Poco::UInt16 port = 0, Mode mode = Mode::Forward);
		/// Throws Poco::Net::NetException when the address cannot be bound.

	~TcpProxy();

	TcpProxy(const TcpProxy&) = delete;
	TcpProxy& operator = (const TcpProxy&) = delete;

	void setMode(Mode mode, int delayMs = 0);
		/// Switches the mode; when it returns, new connects see the new mode.

	Mode mode() const;

	void setTarget(const Poco::Net::SocketAddress& target);
		/// Where later forwarded connections go.

	Poco::Net::SocketAddress address() const;
	std::string host() const;
	Poco::UInt16 port() const;
	std::string hostAndPort() const;           /// "127.0.0.5:39001"
	BlueTuskHostEndpoint endpoint() const;

	int connectionsAccepted() const;           /// connections accepted (Forward, Delay and Reset modes)
	int activeConnections() const;             /// forwarded connections open right now
	bool waitForActiveConnections(int count, const Poco::Timespan& timeout) const;

	void closeAllConnections(bool reset = false);
		/// Breaks every forwarded connection on both sides (FIN, or RST when reset).

private:
	struct Connection;

	void controlLoop();
	void reconcile();
	void handle(std::shared_ptr<Connection> connection, Mode mode, int delayMs, Poco::Net::SocketAddress target);

	Poco::Net::SocketAddress _address;
	Detail::StopSignal _stop;
	Detail::ThreadGroup _threads;
	std::thread _controller;

	mutable std::mutex _mutex;
	std::condition_variable _applied;
	Mode _mode;
	int _delayMs = 0;
	Poco::Net::SocketAddress _target;
	int _requestedGeneration = 0;
	int _appliedGeneration = -1;
	std::string _error;

	// owned by the controller thread
	enum class ListenerKind { None, Normal, BlackHole };
	ListenerKind _listenerKind = ListenerKind::None;
	Poco::Net::ServerSocket _listener;
	std::unique_ptr<BlackHoleListener> _blackHole;

	std::map<int, std::shared_ptr<Connection>> _connections;
	int _nextId = 0;
	std::atomic<int> _accepted{0};
	std::atomic<int> _active{0};
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_TcpProxy_INCLUDED
