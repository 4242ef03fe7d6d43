//
// TcpProxy.cpp
//
// Library: BlueTusk test peers
//

#include "TcpProxy.h"
#include "BlackHoleListener.h"
#include "Poco/Exception.h"
#include <chrono>
#include <poll.h>

using Poco::Net::StreamSocket;

namespace BlueTusk {
namespace Test {


struct TcpProxy::Connection
{
	int id = 0;
	StreamSocket client;
	std::atomic<bool> kill{false};
	std::atomic<bool> reset{false};
};


TcpProxy::TcpProxy(const Poco::Net::SocketAddress& target, const std::string& host, Poco::UInt16 port, Mode mode):
	_mode(mode),
	_target(target)
{
	// Bind once here to learn the port (and fail in the caller's thread); the controller owns it afterwards.
	_listener = Detail::listenOn(Poco::Net::SocketAddress(host, port), 64);
	_address = _listener.address();
	_listenerKind = ListenerKind::Normal;
	_requestedGeneration = 0;
	_controller = std::thread([this] { controlLoop(); });
	std::unique_lock<std::mutex> lock(_mutex);
	_applied.wait(lock, [this] { return _appliedGeneration == _requestedGeneration; });
}


TcpProxy::~TcpProxy()
{
	_stop.request();
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_applied.notify_all();
	}
	if (_controller.joinable()) _controller.join();
	_threads.joinAll();
	Detail::closeQuietly(_listener);
	_blackHole.reset();
}


void TcpProxy::setMode(Mode mode, int delayMs)
{
	std::unique_lock<std::mutex> lock(_mutex);
	_mode = mode;
	_delayMs = delayMs;
	int generation = ++_requestedGeneration;
	_applied.notify_all();
	_applied.wait(lock, [&] { return _appliedGeneration >= generation || _stop.requested(); });
	if (!_error.empty())
	{
		std::string error;
		error.swap(_error);
		throw Poco::IOException("TcpProxy: " + error);
	}
}


TcpProxy::Mode TcpProxy::mode() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _mode;
}


void TcpProxy::setTarget(const Poco::Net::SocketAddress& target)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_target = target;
}


Poco::Net::SocketAddress TcpProxy::address() const
{
	return _address;
}


std::string TcpProxy::host() const
{
	return _address.host().toString();
}


Poco::UInt16 TcpProxy::port() const
{
	return _address.port();
}


std::string TcpProxy::hostAndPort() const
{
	return _address.toString();
}


BlueTuskHostEndpoint TcpProxy::endpoint() const
{
	return BlueTuskHostEndpoint(host(), port());
}


int TcpProxy::connectionsAccepted() const
{
	return _accepted;
}


int TcpProxy::activeConnections() const
{
	return _active;
}


bool TcpProxy::waitForActiveConnections(int count, const Poco::Timespan& timeout) const
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout.totalMicroseconds());
	for (;;)
	{
		if (_active == count) return true;
		if (std::chrono::steady_clock::now() >= deadline) return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	}
}


void TcpProxy::closeAllConnections(bool reset)
{
	std::lock_guard<std::mutex> lock(_mutex);
	for (auto& entry: _connections)
	{
		entry.second->reset = reset;
		entry.second->kill = true;
	}
}


void TcpProxy::reconcile()
	/// Called by the controller with _mutex held: makes the listener match _mode.
{
	ListenerKind wanted = ListenerKind::Normal;
	if (_mode == Mode::Refuse) wanted = ListenerKind::None;
	else if (_mode == Mode::BlackHole) wanted = ListenerKind::BlackHole;
	if (wanted == _listenerKind) return;

	if (_listenerKind == ListenerKind::Normal) Detail::closeQuietly(_listener);
	_blackHole.reset();
	_listenerKind = ListenerKind::None;
	try
	{
		if (wanted == ListenerKind::Normal)
			_listener = Detail::listenOn(_address, 64);
		else if (wanted == ListenerKind::BlackHole)
			_blackHole.reset(new BlackHoleListener(_address.host().toString(), _address.port()));
		_listenerKind = wanted;
	}
	catch (Poco::Exception& exc)
	{
		_error = exc.displayText();
	}
}


void TcpProxy::controlLoop()
{
	while (!_stop.requested())
	{
		_threads.reap();
		{
			std::unique_lock<std::mutex> lock(_mutex);
			if (_appliedGeneration != _requestedGeneration)
			{
				reconcile();
				_appliedGeneration = _requestedGeneration;
				_applied.notify_all();
			}
			if (_listenerKind != ListenerKind::Normal)
			{
				_applied.wait_for(lock, std::chrono::milliseconds(Detail::POLL_INTERVAL_MS), [this]
				{
					return _appliedGeneration != _requestedGeneration || _stop.requested();
				});
				continue;
			}
		}
		try
		{
			if (!_listener.poll(Poco::Timespan(0, Detail::POLL_INTERVAL_MS * 1000), Poco::Net::Socket::SELECT_READ)) continue;
			StreamSocket client = _listener.acceptConnection();
			Mode mode;
			int delayMs;
			Poco::Net::SocketAddress target;
			{
				std::lock_guard<std::mutex> lock(_mutex);
				mode = _mode;
				delayMs = _delayMs;
				target = _target;
			}
			client.setBlocking(true);
			client.setNoDelay(true);
			++_accepted;
			if (mode == Mode::Reset)
			{
				Detail::closeQuietly(client, true);
				continue;
			}
			auto connection = std::make_shared<Connection>();
			connection->client = client;
			{
				std::lock_guard<std::mutex> lock(_mutex);
				connection->id = ++_nextId;
				_connections[connection->id] = connection;
			}
			++_active;
			_threads.start([this, connection, mode, delayMs, target] { handle(connection, mode, delayMs, target); });
		}
		catch (Poco::Exception&)
		{
		}
	}
	std::lock_guard<std::mutex> lock(_mutex);
	_applied.notify_all();
}


void TcpProxy::handle(std::shared_ptr<Connection> connection, Mode mode, int delayMs, Poco::Net::SocketAddress target)
{
	auto abort = [&] { return connection->kill || _stop.requested(); };
	StreamSocket upstream;
	bool connected = false;
	bool resetClient = false;
	if (mode == Mode::Delay && delayMs > 0)
		_stop.waitFor(delayMs, [&] { return connection->kill.load(); });
	if (!abort())
	{
		try
		{
			upstream.connect(target, Poco::Timespan(2, 0));
			upstream.setNoDelay(true);
			connected = true;
		}
		catch (Poco::Exception&)
		{
			resetClient = true;
		}
	}
	if (connected)
	{
		char buffer[16384];
		pollfd fds[2];
		fds[0].fd = connection->client.impl()->sockfd();
		fds[1].fd = upstream.impl()->sockfd();
		StreamSocket* sockets[2] = {&connection->client, &upstream};
		bool open = true;
		while (open && !abort())
		{
			fds[0].events = fds[1].events = POLLIN;
			fds[0].revents = fds[1].revents = 0;
			int ready = ::poll(fds, 2, Detail::POLL_INTERVAL_MS);
			if (ready < 0) break;
			for (int i = 0; i < 2 && open; ++i)
			{
				if (!(fds[i].revents & (POLLIN | POLLERR | POLLHUP))) continue;
				int n = 0;
				try
				{
					n = sockets[i]->receiveBytes(buffer, sizeof(buffer));
				}
				catch (Poco::Exception&)
				{
					n = -1;
					resetClient = (i == 1); // upstream reset: pass the reset on
				}
				if (n <= 0 || !Detail::sendAll(*sockets[1 - i], std::string(buffer, static_cast<std::size_t>(n))))
					open = false;
			}
		}
	}
	bool reset = connection->reset || resetClient;
	Detail::closeQuietly(upstream, connection->reset);
	Detail::closeQuietly(connection->client, reset);
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_connections.erase(connection->id);
	}
	--_active;
}

} } // namespace BlueTusk::Test
