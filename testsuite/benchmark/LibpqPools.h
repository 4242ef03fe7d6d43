//
// LibpqPools.h
//
// The anchors of the thread curve (row 14a): two minimal pools of libpq connections, as small as a pool can
// be, so that the curve shows what the waiting order itself costs past saturation on the benchmark machine,
// apart from anything BlueTusk's pool does.
//   FIFO     a returned connection goes straight to the oldest waiter, which is woken for it (first come,
//            first served: BlueTusk's order, doc/pooling.md)
//   barging  a returned connection goes idle and one waiter is woken to compete for it with the threads
//            still running (a mutex and one condition variable: the textbook pool; not first come, first
//            served, since a running thread may take the connection before the woken one gets a core)
// Both hold the same connections (Maximum Pool Size 4 on each of the three nodes: 12), all opened before
// timing. Benchmark code only: the library never uses libpq.
//

#ifndef BlueTusk_LibpqPools_INCLUDED
#define BlueTusk_LibpqPools_INCLUDED

#include "BenchmarkEnvironment.h"
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

namespace BlueTusk {
namespace Bench {

class LibpqPool
	/// A fixed set of open libpq connections handed out one per checkout. Thread-safe. Waits without a
	/// deadline (a benchmark's threads always return what they took).
{
public:
	enum class Order
	{
		FIFO,     /// a returned connection goes to the oldest waiter
		BARGING   /// a returned connection goes idle; one waiter is woken to compete for it
	};

	LibpqPool(const std::vector<std::string>& conninfos, Order order);
		/// Opens one connection per conninfo (throws std::runtime_error when one fails).

	PGconn* checkout();
		/// An idle connection, or the next one returned (FIFO: in order of arrival).

	void checkin(PGconn* connection);
		/// Returns connection (one checkout() gave).

private:
	struct Waiter
		/// A FIFO waiter: sleeps on its own mutex and condition variable, so that the returning thread hands
		/// over without the pool's mutex held while the waiter wakes.
	{
		std::mutex mutex;
		std::condition_variable granted;
		PGconn* connection = nullptr;
	};

	const Order _order;
	std::vector<LibpqConnection> _connections;
	std::mutex _mutex;
	std::condition_variable _returned;   // BARGING
	std::vector<PGconn*> _idle;
	std::deque<Waiter*> _waiters;         // FIFO
};

} } // namespace BlueTusk::Bench

#endif // BlueTusk_LibpqPools_INCLUDED
