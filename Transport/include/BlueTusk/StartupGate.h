//
// StartupGate.h
//
// Library: BlueTusk/Transport
//
// Paces the server-side work of the attempts of one parallel race (Host Order=parallel).
//

#ifndef BlueTusk_StartupGate_INCLUDED
#define BlueTusk_StartupGate_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Timespan.h"
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

namespace BlueTusk {

class OpenCancellation;
class Deadline;


class BlueTusk_Transport_API StartupGate
	/// Shared by the attempts of one parallel race. Every attempt resolves and connects its TCP socket at
	/// once, so a dead or black-holed host costs the race nothing; the costly part that follows (TLS
	/// handshake, startup, authentication, the server initialising a backend, the role probe) is paced:
	/// an attempt whose socket is connected enters when no other attempt is in that part, or when the
	/// attempt that entered last has been in it for the stagger time or longer, in the order the sockets
	/// connected (first connected, first served). It leaves when its open fails, or when the router has
	/// classified its session and decided to go on (a Fallback kept or a Reject); once a session is
	/// accepted the gate is closed and every waiting attempt gives up at once.
	///
	/// This is the connection-attempt delay of Happy Eyeballs (RFC 8305, section 5) applied to the
	/// PostgreSQL startup rather than to TCP connects: a healthy winner's servers are not slowed down by a
	/// second backend starting for nothing on every other host, while a host that accepts connections but
	/// hangs in startup delays the race by at most the stagger. Thread-safe.
{
public:
	explicit StartupGate(Poco::Timespan stagger);
		/// stagger: how long the attempt that entered last runs alone before the next one may enter as
		/// well; 0 lets every attempt in at once (a plain race).

	~StartupGate();

	bool enter(const OpenCancellation& attempt, const Deadline& deadline);
		/// Waits until attempt may start its startup, then records it as inside. Returns false, without
		/// entering, when attempt is cancelled or the gate closed meanwhile; throws Poco::TimeoutException
		/// when deadline (the attempt's Timeout) expires first. Entering twice is a no-op returning true.

	void leave(const OpenCancellation& attempt);
		/// attempt is done with its startup (it failed, or its session was classified and the race goes
		/// on): the next waiting attempt may enter. Idempotent; unknown attempts are ignored.

	void close();
		/// The race is decided (or abandoned): waiting attempts give up, later enter() calls return false.

	bool isInside(const OpenCancellation& attempt) const;
		/// Whether attempt has entered and not left.

	Poco::Timespan stagger() const;

	void wakeUp();
		/// Wakes waiting attempts so that they notice a cancellation raised since they began to wait.

private:
	StartupGate(const StartupGate&) = delete;
	StartupGate& operator = (const StartupGate&) = delete;

	using Clock = std::chrono::steady_clock;

	bool mayEnterLocked(const OpenCancellation& attempt, Clock::time_point now, Clock::time_point& retryAt) const;

	const Poco::Timespan _stagger;
	mutable std::mutex _mutex;
	std::condition_variable _changed;
	std::deque<const OpenCancellation*> _waiting;   /// in the order their sockets connected
	std::vector<const OpenCancellation*> _inside;
	Clock::time_point _lastEntry;
	bool _closed = false;
};

} // namespace BlueTusk

#endif // BlueTusk_StartupGate_INCLUDED
