//
// PeerSupport.h
//
// Library: BlueTusk test peers
//
// Implementation detail shared by the fault-injection peers: a stop signal threads wait on, a group of
// joinable threads, and socket helpers that never block longer than a poll interval without checking the
// stop signal. Not for use by tests directly.
//

#ifndef BlueTusk_PeerSupport_INCLUDED
#define BlueTusk_PeerSupport_INCLUDED

#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace BlueTusk {
namespace Test {
namespace Detail {

constexpr int POLL_INTERVAL_MS = 20;
	/// How often a blocked peer thread re-checks its stop signal.


class StopSignal
	/// A flag set once when a peer shuts down, plus a condition variable every peer thread may wait on for
	/// other events too (cancel requests, mode changes). Thread-safe.
{
public:
	void request();
		/// Sets the flag and wakes every waiter.

	bool requested() const;

	void notifyAll();
		/// Wakes every waiter so it re-evaluates its predicate.

	bool waitFor(int milliseconds, const std::function<bool()>& wake = {});
		/// Waits up to milliseconds (negative: without limit) until stop is requested or wake() returns true.
		/// Returns true when interrupted (stop or wake), false when the time ran out.

private:
	mutable std::mutex _mutex;
	std::condition_variable _condition;
	bool _requested = false;
};


class ThreadGroup
	/// The threads of one peer. start() runs a function in a new thread; reap() joins the finished ones;
	/// joinAll() joins every thread (call it after the stop signal was requested). Thread-safe.
{
public:
	ThreadGroup() = default;
	ThreadGroup(const ThreadGroup&) = delete;
	ThreadGroup& operator = (const ThreadGroup&) = delete;
	~ThreadGroup();
		/// Joins every remaining thread.

	void start(std::function<void()> function);
	void reap();
	void joinAll();
	std::size_t size() const;

private:
	struct Entry
	{
		std::thread thread;
		std::shared_ptr<bool> done;
	};
	mutable std::mutex _mutex;
	std::list<Entry> _entries;
	std::shared_ptr<std::mutex> _doneMutex = std::make_shared<std::mutex>();
};


using AbortCheck = std::function<bool()>;
	/// Returns true when a blocked read or wait must give up (peer stopping, connection killed).

bool waitReadable(const Poco::Net::Socket& socket, const AbortCheck& abort, int timeoutMs = -1);
	/// Polls socket for readability every POLL_INTERVAL_MS until it is readable (true), abort() returns
	/// true or timeoutMs (negative: no limit) ran out (false).

bool readExact(Poco::Net::StreamSocket& socket, char* buffer, std::size_t length, const AbortCheck& abort);
	/// Reads exactly length bytes. False on EOF, socket error or abort.

bool sendAll(Poco::Net::StreamSocket& socket, const std::string& bytes);
	/// Sends every byte (MSG_NOSIGNAL: a closed peer never raises SIGPIPE). False on any error.

void closeQuietly(Poco::Net::Socket& socket, bool reset = false);
	/// Closes the socket, with an RST (SO_LINGER 0) when reset; never throws.

Poco::Net::ServerSocket listenOn(const Poco::Net::SocketAddress& address, int backlog);
	/// A listening socket bound to address (port 0: ephemeral) with SO_REUSEADDR, non-blocking so that
	/// acceptConnection() after a successful poll never hangs.

std::string lower(const std::string& text);
std::string trim(const std::string& text);

} } } // namespace BlueTusk::Test::Detail

#endif // BlueTusk_PeerSupport_INCLUDED
