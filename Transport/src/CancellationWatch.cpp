//
// CancellationWatch.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/CancellationWatch.h"
#include "BlueTusk/Session.h"
#include <chrono>
#include <sys/socket.h>

namespace BlueTusk {

CancellationWatch::CancellationWatch(const OpenCancellation& cancellation):
	_cancellation(cancellation)
{
	if (_cancellation.isCancelled()) _fired = true;
	_thread = std::thread([this] { run(); });
}


CancellationWatch::~CancellationWatch()
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_stop = true;
	}
	_wakeUp.notify_all();
	_thread.join();
}


bool CancellationWatch::isCancelled() const
{
	return _fired || _cancellation.isCancelled();
}


void CancellationWatch::add(const Poco::Net::StreamSocket& socket)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_sockets.push_back(socket);
	if (_fired)
	{
		poco_socket_t fd = socket.impl()->sockfd();
		if (fd != POCO_INVALID_SOCKET) ::shutdown(fd, SHUT_RDWR);
	}
}


bool CancellationWatch::remove(const Poco::Net::StreamSocket& socket)
{
	std::lock_guard<std::mutex> lock(_mutex);
	bool found = false;
	const poco_socket_t fd = socket.impl()->sockfd();
	for (auto it = _sockets.begin(); it != _sockets.end();)
	{
		// A TLS socket wraps the descriptor of the plain socket it was attached to: drop both.
		if (it->impl() == socket.impl() || (fd != POCO_INVALID_SOCKET && it->impl()->sockfd() == fd))
		{
			it = _sockets.erase(it);
			found = true;
		}
		else
		{
			++it;
		}
	}
	return found && _fired;
}


void CancellationWatch::run()
{
	std::unique_lock<std::mutex> lock(_mutex);
	while (!_stop)
	{
		if (!_fired && _cancellation.isCancelled())
		{
			_fired = true;
			shutdownAll();
		}
		_wakeUp.wait_for(lock, std::chrono::milliseconds(1)); // a cancelled race loser leaves within ~1 ms (issue 7, row 7c)
	}
}


void CancellationWatch::shutdownAll()
{
	// Called with _mutex held. shutdown(2) only: the owner closes its sockets itself after remove().
	for (const auto& socket: _sockets)
	{
		poco_socket_t fd = socket.impl()->sockfd();
		if (fd != POCO_INVALID_SOCKET) ::shutdown(fd, SHUT_RDWR);
	}
}

} // namespace BlueTusk
