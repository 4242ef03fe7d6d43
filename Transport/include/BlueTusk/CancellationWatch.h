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
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace BlueTusk {

class OpenCancellation;


class BlueTusk_Transport_API CancellationWatch
	/// Watches an OpenCancellation (Session.h) while one SessionFactory::openCancellable() runs. A helper
	/// thread checks the flag every 10 ms; once it is raised, every socket registered with add() is shut
	/// down (shutdown(2) on both directions), which wakes any connect, TLS handshake or receive blocked
	/// on it at once, so the open fails within a few milliseconds. The Dialer and ProtocolSession register
	/// their sockets through Deadline::watch(). The destructor stops and joins the thread: nothing
	/// outlives the open. Thread-safe.
{
public:
	explicit CancellationWatch(const OpenCancellation& cancellation);
		/// Starts watching (one thread).

	~CancellationWatch();
		/// Stops watching and joins the thread.

	bool isCancelled() const;
		/// True once the flag was seen raised (or is raised now).

	void add(const Poco::Net::StreamSocket& socket);
		/// Registers socket to be shut down on cancellation (at once when already cancelled).

	bool remove(const Poco::Net::StreamSocket& socket);
		/// Unregisters socket (and any registered socket on the same descriptor, e.g. the plain socket a
		/// TLS socket was attached to). Call before closing it, so the watch never touches a closed
		/// descriptor. Returns true when the watch had already shut the socket down (it is then unusable).

private:
	CancellationWatch(const CancellationWatch&) = delete;
	CancellationWatch& operator = (const CancellationWatch&) = delete;

	void run();
	void shutdownAll();

	const OpenCancellation& _cancellation;
	std::vector<Poco::Net::StreamSocket> _sockets;
	std::atomic<bool> _fired{false};
	bool _stop = false;
	mutable std::mutex _mutex;
	std::condition_variable _wakeUp;
	std::thread _thread;
};

} // namespace BlueTusk

#endif // BlueTusk_CancellationWatch_INCLUDED
