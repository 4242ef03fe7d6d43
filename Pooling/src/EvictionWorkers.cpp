//
// EvictionWorkers.cpp
//
// Library: BlueTusk/Pooling
//
// The threads a site eviction policy's calls run on, bounded by EvictionCall (doc/plugin-calls.md, "Where and
// how policies are called").
//

#include "EvictionWorkers.h"
#include <system_error>
#include <thread>

namespace BlueTusk {
namespace Detail {

bool EvictionWorkers::post(std::function<void()> call)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_stopping) return false;
	const int free = _threads - _running - static_cast<int>(_queue.size());
	if (free <= 0)
	{
		if (_threads >= MAX_THREADS) return false;
		try
		{
			std::shared_ptr<EvictionWorkers> self = shared_from_this();
			std::thread([self]() { self->loop(); }).detach();
		}
		catch (const std::system_error&)
		{
			return false;
		}
		++_threads;
	}
	_queue.push_back(std::move(call));
	_work.notify_one();
	return true;
}


void EvictionWorkers::stop()
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_stopping = true;
	}
	_work.notify_all();
}


int EvictionWorkers::busy() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _running + static_cast<int>(_queue.size());
}


void EvictionWorkers::loop()
{
	std::unique_lock<std::mutex> lock(_mutex);
	for (;;)
	{
		_work.wait(lock, [this]() { return _stopping || !_queue.empty(); });
		if (_queue.empty()) break;   // stopping, nothing left
		std::function<void()> call = std::move(_queue.front());
		_queue.pop_front();
		++_running;
		lock.unlock();
		call();   // never throws: EvictionCall's calls catch everything
		call = nullptr;
		lock.lock();
		--_running;
	}
	--_threads;
}

} } // namespace BlueTusk::Detail
