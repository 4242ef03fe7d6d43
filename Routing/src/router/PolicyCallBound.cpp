//
// PolicyCallBound.cpp
//
// Library: BlueTusk/Routing
//
// A site policy's call on a helper thread, waited for until a deadline; at most MAX_CALLS at once
// (doc/plugins.md, "Where and how policies are called").
//

#include "PolicyCallBound.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

namespace BlueTusk {
namespace Detail {

const Poco::Timespan PolicyCallBound::BOUND_WITHOUT_DEADLINE(15, 0);
const Poco::Timespan PolicyCallBound::MIN_WAIT(0, 100000);

namespace {

struct CallSlots
	/// The process's slots: a helper thread holds one from its start to its call's return.
{
	std::mutex mutex;
	std::condition_variable freed;
	int running = 0;   /// helper threads whose call has not returned
	int late = 0;      /// of those, the ones whose caller stopped waiting
};


CallSlots& callSlots()
{
	static CallSlots* slots = new CallSlots;   // never destroyed: detached late calls may outlive main()
	return *slots;
}


struct PendingCall
	/// One call on a helper thread, shared by the caller (until it stops waiting) and the helper.
{
	std::mutex mutex;
	std::condition_variable done;
	bool finished = false;
	bool late = false;
	std::exception_ptr error;
};


Poco::Logger& boundLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}


[[noreturn]] void failBound(const std::string& text, const PolicyCallLimit& limit)
{
	const std::string message = limit.redactor.redact(text);
	boundLogger().error(message);
	throw BlueTuskPluginException(message);
}


std::string millisecondsText(Poco::Timespan::TimeDiff microseconds)
{
	return std::to_string((microseconds + 500) / 1000) + " ms";
}


std::chrono::system_clock::time_point timePoint(const Poco::Timestamp& at)
{
	return std::chrono::system_clock::time_point(std::chrono::microseconds(at.epochMicroseconds()));
}



} // namespace


std::exception_ptr PolicyCallBound::run(std::function<void()> call, const PolicyCallLimit& limit,
	const std::function<std::string()>& description, const std::string& function)
{
	Poco::Clock waited;
	Poco::Timestamp now;
	Poco::Timestamp deadline = limit.deadline;
	if (deadline == Poco::Timestamp(Poco::Timestamp::TIMEVAL_MAX)) deadline = now + BOUND_WITHOUT_DEADLINE.totalMicroseconds();
	// A call that starts at or after the deadline (the passes of Failover Timeout) still gets a moment.
	if (deadline < now + MIN_WAIT.totalMicroseconds()) deadline = now + MIN_WAIT.totalMicroseconds();

	CallSlots& slots = callSlots();
	{
		// The slot is taken here, at the call's start: the cap holds whatever the deadlines (hard).
		std::unique_lock<std::mutex> lock(slots.mutex);
		if (slots.late >= MAX_CALLS)
		{
			const int late = slots.late;
			lock.unlock();
			failBound(description() + " was not called: " + std::to_string(late) + " earlier calls of site policies have not "
				"returned by their deadline and still run (at most " + std::to_string(MAX_CALLS) + " run at once)", limit);
		}
		const bool free = slots.freed.wait_until(lock, timePoint(deadline),
			[&slots]() { return slots.running < MAX_CALLS || slots.late >= MAX_CALLS; });
		if (free && slots.running >= MAX_CALLS)
		{
			const int late = slots.late;
			lock.unlock();
			failBound(description() + " was not called: " + std::to_string(late) + " earlier calls of site policies have not "
				"returned by their deadline and still run (at most " + std::to_string(MAX_CALLS) + " run at once)", limit);
		}
		if (!free)
		{
			const int running = slots.running;
			const int late = slots.late;
			lock.unlock();
			failBound(description() + " was not called within " + millisecondsText(waited.elapsed()) + ", " + limit.deadlineText +
				": " + std::to_string(running) + " calls of site policies still run (" + std::to_string(late) + " past their deadline; at most " +
				std::to_string(MAX_CALLS) + " run at once)", limit);
		}
		++slots.running;
	}

	auto pending = std::make_shared<PendingCall>();
	try
	{
		std::thread([call, pending]()
		{
			std::exception_ptr error;
			try
			{
				call();
			}
			catch (...)
			{
				error = std::current_exception();
			}
			bool wasLate = false;
			{
				std::lock_guard<std::mutex> lock(pending->mutex);
				pending->error = std::move(error);   // no copy stays here (below)
				pending->finished = true;
				wasLate = pending->late;
			}
			pending->done.notify_all();
			CallSlots& slots = callSlots();
			{
				std::lock_guard<std::mutex> lock(slots.mutex);
				--slots.running;
				if (wasLate) --slots.late;
			}
			slots.freed.notify_all();
		}).detach();
	}
	catch (const std::system_error&)
	{
		{
			std::lock_guard<std::mutex> lock(slots.mutex);
			--slots.running;
		}
		slots.freed.notify_all();
		// No thread to be had: the call runs here, unbounded, rather than failing for it.
		try
		{
			call();
		}
		catch (...)
		{
			return std::current_exception();
		}
		return nullptr;
	}

	std::unique_lock<std::mutex> lock(pending->mutex);
	pending->done.wait_until(lock, timePoint(deadline), [&pending]() { return pending->finished; });
	if (!pending->finished)
	{
		pending->late = true;
		{
			// Under the call's lock: the helper counts it down only after it saw late.
			std::lock_guard<std::mutex> slotLock(slots.mutex);
			++slots.late;
		}
		lock.unlock();
		failBound(description() + " did not return from " + function + " within " + millisecondsText(waited.elapsed()) + ", " +
			limit.deadlineText + "; BlueTusk stops waiting for it (the late call runs on, its result dropped)", limit);
	}
	// Moved out under the call's lock, so the exception is released on this thread: its reference count lives in
	// libstdc++, which ThreadSanitizer does not see, and a last release on the worker after this thread read
	// the exception's text was reported as a race (a clean run's TargetSessionCallTest).
	return std::move(pending->error);
}


int PolicyCallBound::lateCalls()
{
	std::lock_guard<std::mutex> lock(callSlots().mutex);
	return callSlots().late;
}


int PolicyCallBound::runningCalls()
{
	std::lock_guard<std::mutex> lock(callSlots().mutex);
	return callSlots().running;
}


thread_local PolicyDeadline::Scope::State PolicyDeadline::Scope::current;


PolicyDeadline::Scope::Scope(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout, const SecretRedactor& redactor):
	_previous(current)
{
	const Poco::Timestamp deadline = checkoutDeadline(checkoutTimeout, timeout);
	if (current.set && current.deadline <= deadline) return;
	current.set = true;
	current.deadline = deadline;
	current.checkoutTimeout = checkoutTimeout;
	current.timeout = timeout;
	current.redactor = &redactor;
}


PolicyDeadline::Scope::~Scope()
{
	current = _previous;
}


PolicyCallLimit PolicyDeadline::current()
{
	const Scope::State& state = Scope::current;
	if (!state.set) return PolicyCallLimit();
	PolicyCallLimit limit = forCheckout(state.checkoutTimeout, state.timeout, *state.redactor);
	limit.deadline = state.deadline;
	return limit;
}


Poco::Timestamp PolicyDeadline::checkoutDeadline(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout)
{
	Poco::Timestamp deadline;
	if (checkoutTimeout.totalMicroseconds() > 0) return deadline + checkoutTimeout.totalMicroseconds();
	if (timeout.totalMicroseconds() > 0) return deadline + timeout.totalMicroseconds();
	return deadline + PolicyCallBound::BOUND_WITHOUT_DEADLINE.totalMicroseconds();
}


PolicyCallLimit PolicyDeadline::forCheckout(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout,
	const SecretRedactor& redactor)
{
	PolicyCallLimit limit;
	limit.deadline = checkoutDeadline(checkoutTimeout, timeout);
	limit.redactor = redactor;
	if (checkoutTimeout.totalMicroseconds() > 0)
		limit.deadlineText = "the checkout's deadline (Checkout Timeout " + millisecondsText(checkoutTimeout.totalMicroseconds()) + ")";
	else if (timeout.totalMicroseconds() > 0)
		limit.deadlineText = "the checkout's deadline (Checkout Timeout=0: Timeout " + millisecondsText(timeout.totalMicroseconds()) + ")";
	else
		limit.deadlineText = "the bound of a checkout with Checkout Timeout=0 and Timeout=0 (15 s)";
	return limit;
}

} } // namespace BlueTusk::Detail
