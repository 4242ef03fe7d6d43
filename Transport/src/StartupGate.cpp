//
// StartupGate.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/StartupGate.h"
#include "BlueTusk/Deadline.h"
#include "BlueTusk/Session.h"
#include "Poco/Exception.h"
#include <algorithm>

namespace BlueTusk {

namespace {

// A waiting attempt re-checks its cancellation flag at least this often, in case the router raised it
// without calling wakeUp() (a race abandoned by an exception).
constexpr std::chrono::milliseconds CANCELLATION_POLL(5);

} // namespace


StartupGate::StartupGate(Poco::Timespan stagger):
	_stagger(stagger < 0 ? Poco::Timespan(0) : stagger)
{
}


StartupGate::~StartupGate()
{
}


bool StartupGate::mayEnterLocked(const OpenCancellation& attempt, Clock::time_point now, Clock::time_point& retryAt) const
{
	// First come, first served: only the longest-waiting attempt may enter.
	if (_waiting.empty() || _waiting.front() != &attempt) return false;
	if (_inside.empty()) return true;
	const Clock::time_point due = _lastEntry + std::chrono::microseconds(_stagger.totalMicroseconds());
	if (now >= due) return true;
	retryAt = due;
	return false;
}


bool StartupGate::enter(const OpenCancellation& attempt, const Deadline& deadline)
{
	std::unique_lock<std::mutex> lock(_mutex);
	if (std::find(_inside.begin(), _inside.end(), &attempt) != _inside.end()) return true;
	_waiting.push_back(&attempt);
	struct Unqueue
	{
		std::deque<const OpenCancellation*>& waiting;
		const OpenCancellation* attempt;
		std::condition_variable& changed;
		~Unqueue()
		{
			auto it = std::find(waiting.begin(), waiting.end(), attempt);
			if (it != waiting.end())
			{
				const bool wasFront = it == waiting.begin();
				waiting.erase(it);
				if (wasFront) changed.notify_all();   // the next one may be able to enter now
			}
		}
	} unqueue{_waiting, &attempt, _changed};

	const Clock::time_point expires = deadline.isUnlimited() ? Clock::time_point::max() :
		Clock::now() + std::chrono::microseconds(deadline.remaining().totalMicroseconds());
	for (;;)
	{
		if (_closed || attempt.isCancelled() || deadline.isCancelled()) return false;
		const Clock::time_point now = Clock::now();
		if (now >= expires)
			throw Poco::TimeoutException("timed out waiting for the other attempts of the parallel race to finish their startup");
		Clock::time_point retryAt = now + CANCELLATION_POLL;
		if (mayEnterLocked(attempt, now, retryAt))
		{
			_inside.push_back(&attempt);
			_lastEntry = now;
			return true;   // unqueue removes it from _waiting and lets the next one check
		}
		_changed.wait_until(lock, std::min({retryAt, now + CANCELLATION_POLL, expires}));
	}
}


void StartupGate::leave(const OpenCancellation& attempt)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto it = std::find(_inside.begin(), _inside.end(), &attempt);
		if (it == _inside.end()) return;
		_inside.erase(it);
	}
	_changed.notify_all();
}


void StartupGate::close()
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_closed = true;
	}
	_changed.notify_all();
}


bool StartupGate::isInside(const OpenCancellation& attempt) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return std::find(_inside.begin(), _inside.end(), &attempt) != _inside.end();
}


Poco::Timespan StartupGate::stagger() const
{
	return _stagger;
}


void StartupGate::wakeUp()
{
	_changed.notify_all();
}

} // namespace BlueTusk
