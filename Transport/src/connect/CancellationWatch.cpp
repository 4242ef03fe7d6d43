//
// CancellationWatch.cpp
//
// Library: BlueTusk/Transport
//

#include "CancellationWatch.h"
#include "BlueTusk/OpenCancellation.h"
#include <sys/socket.h>

namespace BlueTusk {

void OpenCancellation::cancel() noexcept
{
	_cancelled.store(true);
	std::lock_guard<std::mutex> lock(_watchMutex);
	if (_watch) _watch->fire();
}


CancellationWatch::CancellationWatch(const OpenCancellation& cancellation):
	_cancellation(cancellation)
{
	std::lock_guard<std::mutex> lock(_cancellation._watchMutex);
	_cancellation._watch = this;
	if (_cancellation.isCancelled()) _fired = true;
}


CancellationWatch::~CancellationWatch()
{
	std::lock_guard<std::mutex> lock(_cancellation._watchMutex);
	if (_cancellation._watch == this) _cancellation._watch = nullptr;
}


bool CancellationWatch::isCancelled() const
{
	return _fired || _cancellation.isCancelled();
}


void CancellationWatch::fire()
{
	// Lock order: the cancellation's _watchMutex (held by cancel()), then _mutex; nothing takes them the
	// other way round.
	std::lock_guard<std::mutex> lock(_mutex);
	_fired = true;
	shutdownAll();
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
