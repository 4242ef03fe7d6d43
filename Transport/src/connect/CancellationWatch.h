//
// CancellationWatch.h
//
// Library: BlueTusk/Transport
//
// Turns an OpenCancellation flag into the prompt shutdown of the sockets of one open in progress.
//

#ifndef BlueTusk_CancellationWatch_INCLUDED
#define BlueTusk_CancellationWatch_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Net/StreamSocket.h"
#include <atomic>
#include <mutex>
#include <vector>

namespace BlueTusk {

class OpenCancellation;


class BlueTusk_Transport_API CancellationWatch
	/// Watches an OpenCancellation (OpenCancellation.h) while one SessionFactory::openCancellable() runs: it
	/// registers itself with the cancellation, and OpenCancellation::cancel() shuts down every socket
	/// registered with add() (shutdown(2) on both directions) in the cancelling thread, which wakes any
	/// connect, TLS handshake or receive blocked on it at once. No thread, no polling: a cancelled race
	/// loser gives up within microseconds (doc/performance.md, row 7c). The Dialer and ProtocolSession register their
	/// sockets through Deadline::watch(). The destructor unregisters it: nothing outlives the open.
	/// Thread-safe.
{
public:
	explicit CancellationWatch(const OpenCancellation& cancellation);
		/// Starts watching (at most one watch per cancellation at a time).

	~CancellationWatch();
		/// Stops watching.

	bool isCancelled() const;
		/// True once the cancellation was raised.

	void add(const Poco::Net::StreamSocket& socket);
		/// Registers socket to be shut down on cancellation (at once when already cancelled).

	bool remove(const Poco::Net::StreamSocket& socket);
		/// Unregisters socket (and any registered socket on the same descriptor, e.g. the plain socket a
		/// TLS socket was attached to). Call before closing it, so the watch never touches a closed
		/// descriptor. Returns true when the watch had already shut the socket down (it is then unusable).

private:
	CancellationWatch(const CancellationWatch&) = delete;
	CancellationWatch& operator = (const CancellationWatch&) = delete;

	friend class OpenCancellation;

	void fire();
		/// From OpenCancellation::cancel(): marks the watch fired and shuts every registered socket down.
	void shutdownAll();

	const OpenCancellation& _cancellation;
	std::vector<Poco::Net::StreamSocket> _sockets;
	std::atomic<bool> _fired{false};
	mutable std::mutex _mutex;
};

} // namespace BlueTusk

#endif // BlueTusk_CancellationWatch_INCLUDED
