//
// LibpqPools.cpp
//
// The thread curve's anchor pools (LibpqPools.h).
//

#include "LibpqPools.h"

namespace BlueTusk {
namespace Bench {


LibpqPool::LibpqPool(const std::vector<std::string>& conninfos, Order order):
	_order(order)
{
	for (const auto& conninfo: conninfos) _connections.emplace_back(conninfo);
	for (const auto& connection: _connections) _idle.push_back(connection.get());
}


PGconn* LibpqPool::checkout()
{
	std::unique_lock<std::mutex> lock(_mutex);
	if (_order == Order::BARGING)
	{
		_returned.wait(lock, [this] { return !_idle.empty(); });
		PGconn* connection = _idle.back();
		_idle.pop_back();
		return connection;
	}
	if (_waiters.empty() && !_idle.empty())
	{
		PGconn* connection = _idle.back();
		_idle.pop_back();
		return connection;
	}
	Waiter me;
	_waiters.push_back(&me);
	lock.unlock();
	std::unique_lock<std::mutex> mine(me.mutex);
	me.granted.wait(mine, [&me] { return me.connection != nullptr; });
	return me.connection;
}


void LibpqPool::checkin(PGconn* connection)
{
	std::unique_lock<std::mutex> lock(_mutex);
	if (_order == Order::BARGING || _waiters.empty())
	{
		_idle.push_back(connection);
		lock.unlock();
		if (_order == Order::BARGING) _returned.notify_one();
		return;
	}
	Waiter* oldest = _waiters.front();
	_waiters.pop_front();
	lock.unlock();
	// The waiter cannot leave before this guard releases its mutex, so it outlives the hand-over.
	std::lock_guard<std::mutex> theirs(oldest->mutex);
	oldest->connection = connection;
	oldest->granted.notify_one();
}

} } // namespace BlueTusk::Bench
