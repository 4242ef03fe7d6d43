//
// FakeBackend.cpp
//
// Library: BlueTusk test peers
//
// The listener, the connection threads, counters and cancel handling. Start-up is in FakeBackendStartup.cpp,
// queries in FakeBackendQueries.cpp; the message flows follow PostgreSQL docs 55.2 "Message Flow".
//

#include "FakeBackendSupport.h"
#include <chrono>
#include <sys/socket.h>
#include <thread>

using Poco::Net::StreamSocket;

namespace BlueTusk {
namespace Test {


using namespace FakeBackendSupport;


FakeBackend::FakeBackend(const BackendScript& script, const std::string& host, Poco::UInt16 port):
	_server(Detail::listenOn(Poco::Net::SocketAddress(host, port), 64)),
	_address(_server.address()),
	_script(script),
	_nextProcessId(script.processIdBase ? script.processIdBase : 4000)
{
	_acceptor = std::thread([this] { acceptLoop(); });
}


FakeBackend::~FakeBackend()
{
	_stop.request();
	if (_acceptor.joinable()) _acceptor.join();
	_threads.joinAll();
	Detail::closeQuietly(_server);
}


void FakeBackend::setScript(const BackendScript& script)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_script = script;
}


BackendScript FakeBackend::script() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _script;
}


Poco::Net::SocketAddress FakeBackend::address() const
{
	return _address;
}


std::string FakeBackend::host() const
{
	return _address.host().toString();
}


Poco::UInt16 FakeBackend::port() const
{
	return _address.port();
}


std::string FakeBackend::hostAndPort() const
{
	return _address.toString();
}


BlueTuskHostEndpoint FakeBackend::endpoint() const
{
	return BlueTuskHostEndpoint(host(), port());
}


int FakeBackend::connectionsAccepted() const { return _accepted; }
int FakeBackend::startupMessages() const { return _startups; }
int FakeBackend::sslRequests() const { return _sslRequests; }
int FakeBackend::sessionsReady() const { return _ready; }
int FakeBackend::passwordsReceived() const { return _passwords; }
int FakeBackend::cancelRequests() const { return _cancels; }
int FakeBackend::terminates() const { return _terminates; }
int FakeBackend::queriesPipelined() const { return _queriesPipelined; }
int FakeBackend::activeConnections() const { return _active; }


std::vector<std::string> FakeBackend::queries() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _queries;
}


int FakeBackend::queryCount() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return static_cast<int>(_queries.size());
}


std::map<std::string, std::string> FakeBackend::lastStartupParameters() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _lastStartup;
}


int FakeBackend::lastProtocolMinor() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _lastProtocolMinor;
}


std::string FakeBackend::lastCancelKey() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _lastCancelKey;
}


int FakeBackend::matchedCancelRequests() const
{
	return _matchedCancels;
}


int FakeBackend::directTlsSessions() const
{
	return _directTlsSessions;
}


bool waitUntil(const std::function<bool()>& condition, const Poco::Timespan& timeout)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout.totalMicroseconds());
	for (;;)
	{
		if (condition()) return true;
		if (std::chrono::steady_clock::now() >= deadline) return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	}
}


bool FakeBackend::waitForActiveConnections(int count, const Poco::Timespan& timeout) const
{
	return waitUntil([&] { return _active == count; }, timeout);
}


bool FakeBackend::waitForConnectionsAccepted(int count, const Poco::Timespan& timeout) const
{
	return waitUntil([&] { return _accepted >= count; }, timeout);
}


void FakeBackend::closeAllConnections(bool reset)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		for (auto& entry: _connections)
		{
			entry.second->reset = reset;
			entry.second->kill = true;
		}
	}
	_stop.notifyAll();
}


void FakeBackend::resetCounters()
{
	_accepted = 0;
	_startups = 0;
	_sslRequests = 0;
	_ready = 0;
	_passwords = 0;
	_cancels = 0;
	_terminates = 0;
	_queriesPipelined = 0;
	std::lock_guard<std::mutex> lock(_mutex);
	_queries.clear();
	_lastStartup.clear();
}


void FakeBackend::acceptLoop()
{
	while (!_stop.requested())
	{
		_threads.reap();
		try
		{
			if (!_server.poll(Poco::Timespan(0, Detail::POLL_INTERVAL_MS * 1000), Poco::Net::Socket::SELECT_READ)) continue;
			StreamSocket socket = _server.acceptConnection();
			socket.setBlocking(true);
			socket.setNoDelay(true);
			socket.setSendTimeout(Poco::Timespan(2, 0));
			auto connection = std::make_shared<Connection>();
			connection->socket = socket;
			{
				std::lock_guard<std::mutex> lock(_mutex);
				connection->id = ++_nextId;
				_connections[connection->id] = connection;
			}
			++_active;
			++_accepted;
			_threads.start([this, connection] { serve(connection); });
		}
		catch (Poco::Exception&)
		{
			// EAGAIN after a vanished client, or a failed setsockopt: keep accepting
		}
	}
}


void FakeBackend::serve(std::shared_ptr<Connection> connection)
{
	BackendScript script = this->script();
	try
	{
		if (script.action == BackendScript::Action::CloseOnAccept)
		{
			// FIN at once, then wait for the client to go (so unread client bytes never turn it into RST).
			try
			{
				connection->socket.shutdownSend();
			}
			catch (Poco::Exception&)
			{
			}
			char buffer[256];
			auto abort = [&] { return aborted(*connection); };
			for (int i = 0; i < 50 && Detail::waitReadable(connection->socket, abort, 1000); ++i)
			{
				int n = 0;
				try
				{
					n = connection->socket.receiveBytes(buffer, sizeof(buffer));
				}
				catch (Poco::Exception&)
				{
				}
				if (n <= 0) break;
			}
		}
		else
		{
			serveStartup(*connection, script);
		}
	}
	catch (std::exception&)
	{
	}
	Detail::closeQuietly(connection->socket, connection->reset);
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_connections.erase(connection->id);
	}
	--_active;
}


bool FakeBackend::aborted(const Connection& connection) const
{
	return connection.kill || _stop.requested();
}


bool FakeBackend::send(Connection& connection, const std::string& bytes)
{
	if (aborted(connection)) return false;
	return Detail::sendAll(connection.socket, bytes);
}


bool FakeBackend::pause(Connection& connection, int milliseconds, bool cancellable)
	/// Waits milliseconds (negative: until aborted). Returns false when the peer is stopping, the connection
	/// was killed or the client closed it; true when the time ran out or (cancellable) a cancel arrived.
{
	auto start = std::chrono::steady_clock::now();
	for (;;)
	{
		if (aborted(connection)) return false;
		if (cancellable && connection.cancelled) return true;
		int slice = Detail::POLL_INTERVAL_MS;
		if (milliseconds >= 0)
		{
			auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
			if (elapsed >= milliseconds) return true;
			slice = static_cast<int>(std::min<long long>(slice, milliseconds - elapsed));
		}
		bool readable = false;
		try
		{
			readable = connection.socket.poll(Poco::Timespan(0, slice * 1000), Poco::Net::Socket::SELECT_READ);
		}
		catch (Poco::Exception&)
		{
			return false;
		}
		if (readable)
		{
			char byte;
			int n = 0;
			try
			{
				n = connection.socket.receiveBytes(&byte, 1, MSG_PEEK);
			}
			catch (Poco::Exception&)
			{
				return false;
			}
			if (n <= 0) return false; // the client went away
			std::this_thread::sleep_for(std::chrono::milliseconds(slice)); // data waits for later
		}
	}
}


bool FakeBackend::readMessage(Connection& connection, char& type, std::string& body)
{
	char header[5];
	auto abort = [&] { return aborted(connection); };
	if (!Detail::readExact(connection.socket, header, sizeof(header), abort)) return false;
	type = header[0];
	Poco::Int32 length = Wire::MessageReader(std::string(header + 1, 4)).int32();
	if (length < 4 || length > MAX_MESSAGE_LENGTH)
	{
		send(connection, Wire::errorResponse(fatal("08P01", "invalid message length")));
		return false;
	}
	body.assign(static_cast<std::size_t>(length - 4), '\0');
	return body.empty() || Detail::readExact(connection.socket, &body[0], body.size(), abort);
}


void FakeBackend::handleCancel(Poco::Int32 processId, const std::string& secretKey)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_lastCancelKey = secretKey;
		for (auto& entry: _connections)
		{
			if (entry.second->processId == processId && entry.second->secretKey == secretKey)
			{
				entry.second->cancelled = true;
				++_matchedCancels;
			}
		}
	}
	_stop.notifyAll();
}

} } // namespace BlueTusk::Test
