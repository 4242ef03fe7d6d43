//
// OpenCancellation.h
//
// Library: BlueTusk/Transport
//
// The flag that abandons an open in progress (SessionFactory::openCancellable()).
//

#ifndef BlueTusk_OpenCancellation_INCLUDED
#define BlueTusk_OpenCancellation_INCLUDED

#include "BlueTusk/Foundation.h"
#include <atomic>
#include <mutex>

namespace BlueTusk {

class StartupGate;
class CancellationWatch;


class BlueTusk_Transport_API OpenCancellation
	/// A flag another thread raises to abandon a SessionFactory::openCancellable() in progress: the router
	/// cancels the losing attempts of a parallel race (Host Order=parallel) so that no socket or thread
	/// outlives the open (doc/routing.md). Thread-safe.
{
public:
	OpenCancellation() = default;

	void cancel() noexcept;
		/// Asks the open to give up: raises the flag and, when a CancellationWatch watches this open, shuts
		/// its sockets down at once (in the calling thread), so a blocked connect, TLS handshake or receive
		/// fails within microseconds.

	bool isCancelled() const noexcept
		/// True once cancel() was called.
	{
		return _cancelled.load();
	}

	void setStartupGate(StartupGate* gate) noexcept
		/// The gate of the race this attempt belongs to (StartupGate.h), or null (no pacing). Set before
		/// the open starts; the gate must outlive it.
	{
		_gate = gate;
	}

	StartupGate* startupGate() const noexcept
		/// The gate given to setStartupGate(), or null.
	{
		return _gate;
	}

private:
	OpenCancellation(const OpenCancellation&) = delete;
	OpenCancellation& operator = (const OpenCancellation&) = delete;

	friend class CancellationWatch;

	std::atomic<bool> _cancelled{false};
	StartupGate* _gate = nullptr;
	mutable std::mutex _watchMutex;             /// guards _watch
	mutable CancellationWatch* _watch = nullptr; /// the watch of the open in progress, or null
};

} // namespace BlueTusk

#endif // BlueTusk_OpenCancellation_INCLUDED
