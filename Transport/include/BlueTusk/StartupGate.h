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
#include <functional>
#include <mutex>
#include <vector>

namespace BlueTusk {

class OpenCancellation;
class Deadline;


class BlueTusk_Transport_API StartupGate
	/// Shared by the attempts of one parallel race; paces them so that one winner does not cost every
	/// other server a backend (PostgreSQL forks one for each TCP connection it accepts), while a dead,
	/// black-holed or hanging host still costs the race almost nothing. Two phases:
	///
	/// - Connect: the attempts, enrolled in plan order, begin their TCP connects one after the other at
	///   the connect stagger (a millisecond or two): at once when the previous attempt has ended, and not
	///   at all while another attempt is in its startup (below), unless that one has been there for the
	///   stagger. A black-holed first host delays the second by one connect stagger only; a host that
	///   connects at once keeps the others from connecting (no backend forked for nothing).
	/// - Startup: an attempt whose socket is connected enters (TLS handshake, startup, authentication,
	///   backend start, role probe) when no other attempt is in there, or when the attempt that entered
	///   last has been in there for the stagger, first connected, first served.
	///
	/// An attempt leaves when its open fails, or when the router has classified its session and goes on
	/// (a Fallback kept or a Reject); once a session is accepted the gate is closed and every waiting
	/// attempt gives up at once. This is the connection attempt delay of Happy Eyeballs (RFC 8305,
	/// section 5), applied to PostgreSQL's startup. Thread-safe.
{
public:
	explicit StartupGate(Poco::Timespan stagger, Poco::Timespan connectStagger = 0);
		/// stagger: how long the attempt that entered its startup last runs alone before the next one may
		/// enter as well; 0 lets every attempt in at once (a plain race, and connects are not held back).
		/// connectStagger: the interval between the TCP connects of enrolled attempts (0: all at once).

	void enroll(const OpenCancellation& attempt);
		/// Registers attempt for the connect phase; call for every attempt, in plan order, before any of
		/// them starts. Attempts never enrolled skip the connect phase.

	bool awaitConnect(const OpenCancellation& attempt, const Deadline& deadline);
		/// Waits until attempt may begin its TCP connect (see the class description), then records that
		/// it did. Returns false when attempt is cancelled or the gate closed meanwhile; throws
		/// Poco::TimeoutException when deadline expires first. Not enrolled: returns true at once.

	~StartupGate();

	bool enter(const OpenCancellation& attempt, const Deadline& deadline);
		/// Waits until attempt may start its startup, then records it as inside. Returns false, without
		/// entering, when attempt is cancelled or the gate closed meanwhile; throws Poco::TimeoutException
		/// when deadline (the attempt's Timeout) expires first. Entering twice is a no-op returning true.

	void leave(const OpenCancellation& attempt);
		/// attempt is done (it failed, or its session was classified and the race goes on): the next
		/// waiting attempt may connect or enter. Idempotent; unknown attempts are ignored.

	void close();
		/// The race is decided (or abandoned): waiting attempts give up, later enter() calls return false.

	bool isInside(const OpenCancellation& attempt) const;
		/// Whether attempt has entered and not left.

	std::size_t waiting() const;
		/// How many attempts wait in enter() now (diagnostics; tests use it to queue attempts in a known order).

	Poco::Timespan stagger() const;

	void wakeUp();
		/// Wakes waiting attempts so that they notice a cancellation raised since they began to wait.

private:
	StartupGate(const StartupGate&) = delete;
	StartupGate& operator = (const StartupGate&) = delete;

	using Clock = std::chrono::steady_clock;

	struct Enrolled
	{
		const OpenCancellation* attempt = nullptr;
		bool connecting = false;         /// began its TCP connect
		bool ended = false;              /// left (failed, or classified)
		Clock::time_point connectAt;
	};

	bool mayEnterLocked(const OpenCancellation& attempt, Clock::time_point now, Clock::time_point& retryAt) const;
	bool mayConnectLocked(std::size_t index, Clock::time_point now, Clock::time_point& retryAt) const;
	bool startupHeldLocked(Clock::time_point now, Clock::time_point& retryAt) const;
		/// Whether an attempt inside its startup still runs alone (entered less than the stagger ago).
	bool waitLocked(std::unique_lock<std::mutex>& lock, const OpenCancellation& attempt, const Deadline& deadline,
		const std::function<bool(Clock::time_point, Clock::time_point&)>& ready);

	const Poco::Timespan _stagger;
	const Poco::Timespan _connectStagger;
	std::vector<Enrolled> _enrolled;                /// plan order
	mutable std::mutex _mutex;
	std::condition_variable _changed;
	std::deque<const OpenCancellation*> _waiting;   /// in the order their sockets connected
	std::vector<const OpenCancellation*> _inside;
	Clock::time_point _lastEntry;
	bool _closed = false;
};

} // namespace BlueTusk

#endif // BlueTusk_StartupGate_INCLUDED
