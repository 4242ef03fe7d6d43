//
// EvictionWorkers.h
//
// Library: BlueTusk/Pooling
//
// Private: the few threads on which a site eviction policy is called, so that the pool's caller waits for
// it only up to EvictionCall::CALL_BOUND (doc/plugin-calls.md, "Where and how policies are called").
//

#ifndef BlueTusk_EvictionWorkers_INCLUDED
#define BlueTusk_EvictionWorkers_INCLUDED

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace BlueTusk {
namespace Detail {

class EvictionWorkers: public std::enable_shared_from_this<EvictionWorkers>
	/// Up to MAX_THREADS detached threads, started when first needed and kept while the owner lives: a call
	/// is posted only when a thread is free for it at once (a thread waits for its next call or is about to
	/// be started), never queued behind a slow one. stop() (the owner's destructor) ends the idle threads
	/// and never waits for a running call: that one ends its thread when it returns. The threads own this
	/// object (shared), so a late call may outlive the pool that posted it. Thread-safe.
{
public:
	static const int MAX_THREADS = 4;

	bool post(std::function<void()> call);
		/// Runs call on a free thread (starting one if fewer than MAX_THREADS run); false, with call not
		/// run, when every thread is busy with a call (slow ones), a thread cannot be started, or after stop().

	void stop();
		/// No more calls; idle threads end. Does not wait.

	int busy() const;
		/// Calls running or about to (for tests and messages).

private:
	void loop();

	mutable std::mutex _mutex;
	std::condition_variable _work;
	std::deque<std::function<void()>> _queue;   /// at most as long as there are free threads
	int _threads = 0;
	int _running = 0;
	bool _stopping = false;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_EvictionWorkers_INCLUDED
