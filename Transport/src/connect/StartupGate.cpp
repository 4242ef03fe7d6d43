//
// StartupGate.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/StartupGate.h"
#include "Deadline.h"
#include "BlueTusk/OpenCancellation.h"
#include "Poco/Exception.h"
#include <algorithm>

namespace BlueTusk {

namespace {

// A waiting attempt re-checks its cancellation flag at least this often, in case the router raised it
// without calling wakeUp() or close() (a race abandoned by an exception).
constexpr std::chrono::milliseconds CANCELLATION_POLL(5);


std::chrono::microseconds micros(const Poco::Timespan& span)
{
	return std::chrono::microseconds(span.totalMicroseconds());
}

} // namespace


StartupGate::StartupGate(Poco::Timespan stagger, Poco::Timespan connectStagger):
	_stagger(stagger < 0 ? Poco::Timespan(0) : stagger),
	_connectStagger(connectStagger < 0 ? Poco::Timespan(0) : connectStagger)
{
}


StartupGate::~StartupGate()
{
}


void StartupGate::enroll(const OpenCancellation& attempt)
{
	std::lock_guard<std::mutex> lock(_mutex);
	Enrolled entry;
	entry.attempt = &attempt;
	_enrolled.push_back(entry);
}


bool StartupGate::startupHeldLocked(Clock::time_point now, Clock::time_point& retryAt) const
{
	if (_inside.empty() || _stagger.totalMicroseconds() == 0) return false;
	const Clock::time_point due = _lastEntry + micros(_stagger);
	if (now >= due) return false;
	retryAt = std::min(retryAt, due);
	return true;
}


bool StartupGate::mayEnterLocked(const OpenCancellation& attempt, Clock::time_point now, Clock::time_point& retryAt) const
{
	// First come, first served: only the longest-waiting attempt may enter.
	if (_waiting.empty() || _waiting.front() != &attempt) return false;
	return !startupHeldLocked(now, retryAt);
}


bool StartupGate::mayConnectLocked(std::size_t index, Clock::time_point now, Clock::time_point& retryAt) const
{
	if (index > 0)
	{
		// In plan order: after the previous attempt began its connect, by the connect stagger, or at once
		// when it has ended already.
		const Enrolled& previous = _enrolled[index - 1];
		if (!previous.ended)
		{
			if (!previous.connecting) return false;
			const Clock::time_point due = previous.connectAt + micros(_connectStagger);
			if (now < due)
			{
				retryAt = std::min(retryAt, due);
				return false;
			}
		}
	}
	// Not while another attempt runs its startup alone: its server is about to win, so connecting here
	// would only fork a backend for nothing.
	return !startupHeldLocked(now, retryAt);
}


bool StartupGate::waitLocked(std::unique_lock<std::mutex>& lock, const OpenCancellation& attempt, const Deadline& deadline,
	const std::function<bool(Clock::time_point, Clock::time_point&)>& ready)
{
	const Clock::time_point expires = deadline.isUnlimited() ? Clock::time_point::max() :
		Clock::now() + micros(deadline.remaining());
	for (;;)
	{
		if (_closed || attempt.isCancelled() || deadline.isCancelled()) return false;
		const Clock::time_point now = Clock::now();
		if (now >= expires)
			throw Poco::TimeoutException("timed out waiting for the other attempts of the parallel race to finish their startup");
		Clock::time_point retryAt = now + CANCELLATION_POLL;
		if (ready(now, retryAt)) return true;
		_changed.wait_until(lock, std::min(retryAt, expires));
	}
}


bool StartupGate::awaitConnect(const OpenCancellation& attempt, const Deadline& deadline)
{
	std::unique_lock<std::mutex> lock(_mutex);
	auto it = std::find_if(_enrolled.begin(), _enrolled.end(), [&attempt](const Enrolled& e) { return e.attempt == &attempt; });
	if (it == _enrolled.end()) return !_closed && !attempt.isCancelled();
	const std::size_t index = static_cast<std::size_t>(it - _enrolled.begin());
	const bool ready = waitLocked(lock, attempt, deadline, [this, index](Clock::time_point now, Clock::time_point& retryAt)
	{
		if (!mayConnectLocked(index, now, retryAt)) return false;
		_enrolled[index].connecting = true;
		_enrolled[index].connectAt = now;
		return true;
	});
	if (ready) _changed.notify_all();   // the next one's connect stagger starts now
	return ready;
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

	return waitLocked(lock, attempt, deadline, [this, &attempt](Clock::time_point now, Clock::time_point& retryAt)
	{
		if (!mayEnterLocked(attempt, now, retryAt)) return false;
		_inside.push_back(&attempt);
		_lastEntry = now;
		return true;   // unqueue removes it from _waiting and lets the next one check
	});
}


void StartupGate::leave(const OpenCancellation& attempt)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto it = std::find(_inside.begin(), _inside.end(), &attempt);
		if (it != _inside.end()) _inside.erase(it);
		for (Enrolled& entry: _enrolled)
		{
			if (entry.attempt == &attempt) entry.ended = true;
		}
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


std::size_t StartupGate::waiting() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _waiting.size();
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
