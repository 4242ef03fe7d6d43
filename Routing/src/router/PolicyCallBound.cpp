//
// PolicyCallBound.cpp
//
// Library: BlueTusk/Routing
//
// A site policy's call handed to a persistent worker, waited for until a deadline; at most MAX_CALLS at once
// (doc/plugin-calls.md, "Where and how policies are called").
//

#include "PolicyCallBound.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include <atomic>
#include <chrono>
#include <sched.h>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Detail {

const Poco::Timespan PolicyCallBound::BOUND_WITHOUT_DEADLINE(15, 0);
const Poco::Timespan PolicyCallBound::MIN_WAIT(0, 100000);

namespace {

struct PendingCall
	/// One call handed to a worker, shared by the caller (until it stops waiting) and the worker.
{
	std::function<void()> call;
	std::mutex mutex;
	std::condition_variable done;
	bool finished = false;
	std::atomic<bool> returned{false};   /// finished, readable without the mutex (the caller's short spin)
	bool late = false;
	std::string lateAs;   /// a late call's description (set under mutex, with late)
	const void* owner = nullptr;   /// the policy object called (its share of the slots), or null
	std::exception_ptr error;
};


struct Worker
	/// A persistent helper thread, parked on wake between calls (its state is guarded by the pool's mutex).
{
	std::condition_variable wake;
	std::shared_ptr<PendingCall> task;   /// the call handed to it; null while parked
	std::atomic<bool> handed{false};     /// task is set (readable without the mutex: the worker's short spin)
};


struct PolicyShare
	/// One policy object's use of the slots (PolicyCallBound::POLICY_SHARE).
{
	int running = 0;   /// its calls handed off that have not returned
	int late = 0;      /// of those, the ones whose caller stopped waiting
	int waiting = 0;   /// callers waiting for a slot (the entry stays while one holds it)
};


struct CallSlots
	/// The process's workers and slots: a call holds one slot from its hand-off to its return.
{
	std::mutex mutex;
	std::condition_variable freed;
	int running = 0;   /// calls handed off that have not returned
	int late = 0;      /// of those, the ones whose caller stopped waiting
	std::vector<Worker*> parked;   /// idle workers, waiting for a call (last parked, first used)
	std::map<std::string, int> lateBy;   /// late calls per policy description (for the 16-slot message)
	std::map<const void*, PolicyShare> shares;   /// per policy object with calls running or waiting
	int workers = 0;   /// worker threads alive (tests)
	int started = 0;   /// worker threads ever started (tests)
};


CallSlots& callSlots()
{
	static CallSlots* slots = new CallSlots;   // never destroyed: parked workers and late calls outlive main()
	return *slots;
}


void releaseShare(CallSlots& slots, const void* owner, bool wasRunning, bool wasLate, bool wasWaiting)
	/// Gives back owner's counts (under the mutex); the entry goes when nothing of it is left.
{
	if (!owner) return;
	auto it = slots.shares.find(owner);
	if (it == slots.shares.end()) return;
	if (wasRunning) --it->second.running;
	if (wasLate) --it->second.late;
	if (wasWaiting) --it->second.waiting;
	if (it->second.running <= 0 && it->second.late <= 0 && it->second.waiting <= 0) slots.shares.erase(it);
}


std::string mostLate(const CallSlots& slots)
	/// Which policy holds the most late calls, for the message when none can be called (under the mutex).
{
	const std::pair<const std::string, int>* most = nullptr;
	for (const auto& holder: slots.lateBy)
		if (!most || holder.second > most->second) most = &holder;
	if (!most) return "none of them late";
	return std::to_string(most->second) + " of them " + most->first + "'s";
}


void spinUntil(const std::atomic<bool>& flag)
	/// Waits up to SPIN_MICROSECONDS for flag, yielding the processor between looks: a hand-off whose other
	/// side answers at once then costs no sleep and wake-up (two of them per call otherwise, each a trip
	/// through the scheduler: on a loaded machine tens of microseconds to milliseconds).
{
	static const auto SPIN = std::chrono::microseconds(50);
	if (flag.load(std::memory_order_acquire)) return;
	const auto until = std::chrono::steady_clock::now() + SPIN;
	while (!flag.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) sched_yield();
}


void workerLoop(Worker* worker)
	/// Runs the calls handed to worker. After a call returns the worker parks again, unless MAX_CALLS
	/// workers are parked already (then it ends). A worker whose call was late is not handed another call
	/// until that call returns: it is not among the parked ones meanwhile.
{
	CallSlots& slots = callSlots();
	std::unique_lock<std::mutex> lock(slots.mutex);
	for (;;)
	{
		if (!worker->task)
		{
			// Parked: a short spin first, then the condition variable (a call handed off meanwhile is
			// taken without a wake-up).
			lock.unlock();
			spinUntil(worker->handed);
			lock.lock();
			worker->wake.wait(lock, [worker]() { return worker->task != nullptr; });
		}
		std::shared_ptr<PendingCall> pending = std::move(worker->task);
		worker->task = nullptr;
		worker->handed.store(false, std::memory_order_relaxed);
		lock.unlock();
		std::exception_ptr error;
		try
		{
			pending->call();
		}
		catch (...)
		{
			error = std::current_exception();
		}
		pending->call = nullptr;   // what the call owns goes now, not at the next hand-off
		bool keep = false;
		{
			// The caller's lock first, then the pool's (the caller's order too, when it counts a late call).
			std::lock_guard<std::mutex> callLock(pending->mutex);
			pending->error = std::move(error);   // no copy stays here (below)
			pending->finished = true;
			lock.lock();
			--slots.running;
			if (pending->late)
			{
				--slots.late;
				auto holder = slots.lateBy.find(pending->lateAs);
				if (holder != slots.lateBy.end() && --holder->second <= 0) slots.lateBy.erase(holder);
			}
			releaseShare(slots, pending->owner, true, pending->late, false);
			// Parked again (or gone) before the caller can see the answer: its next call finds this worker
			// parked rather than starting another.
			keep = static_cast<int>(slots.parked.size()) < PolicyCallBound::MAX_CALLS;
			if (keep) slots.parked.push_back(worker);
			else --slots.workers;
			lock.unlock();
			pending->returned.store(true, std::memory_order_release);
		}
		pending->done.notify_all();
		slots.freed.notify_all();
		pending.reset();
		if (!keep)
		{
			delete worker;
			return;
		}
		lock.lock();
	}
}


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


static std::string shareFullText(int late)
	/// Why a policy whose share holds only late calls is not called.
{
	return "its " + std::to_string(late) + " earlier calls have not returned by their deadline and still run (one policy holds at most " +
		std::to_string(PolicyCallBound::POLICY_SHARE) + " of the " + std::to_string(PolicyCallBound::MAX_CALLS) +
		" slots at once; other policies keep theirs)";
}


std::exception_ptr PolicyCallBound::run(std::function<void()> call, const PolicyCallLimit& limit,
	const std::function<std::string()>& description, const std::string& function, const void* owner)
{
	Poco::Clock waited;
	Poco::Timestamp now;
	Poco::Timestamp deadline = limit.deadline;
	if (deadline == Poco::Timestamp(Poco::Timestamp::TIMEVAL_MAX)) deadline = now + BOUND_WITHOUT_DEADLINE.totalMicroseconds();
	// A call that starts at or after the deadline (the passes of Failover Timeout), or with less than MIN_WAIT
	// left, still gets MIN_WAIT: its messages say that is what was waited, and past which deadline.
	PolicyCallLimit waitedLimit;
	const PolicyCallLimit* used = &limit;
	if (deadline < now + MIN_WAIT.totalMicroseconds())
	{
		deadline = now + MIN_WAIT.totalMicroseconds();
		waitedLimit = limit;
		waitedLimit.deadlineText = "the least a call is waited for (" + millisecondsText(MIN_WAIT.totalMicroseconds()) + "), past " + limit.deadlineText;
		used = &waitedLimit;
	}
	const PolicyCallLimit& bound = *used;

	auto pending = std::make_shared<PendingCall>();
	pending->call = std::move(call);
	pending->owner = owner;
	CallSlots& slots = callSlots();
	{
		// The slot is taken here, at the hand-off: the cap holds whatever the deadlines (hard).
		std::unique_lock<std::mutex> lock(slots.mutex);
		// The policy's own share first: a policy whose calls never return is refused before it can take
		// the slots other policies need (the entry stays while this caller waits: waiting).
		PolicyShare* share = nullptr;
		if (owner)
		{
			share = &slots.shares[owner];
			if (share->late >= POLICY_SHARE)
			{
				const int late = share->late;
				releaseShare(slots, owner, false, false, false);
				lock.unlock();
				failBound(description() + " was not called: " + shareFullText(late), bound);
			}
			++share->waiting;
		}
		const auto shareFree = [share]() { return !share || share->running < POLICY_SHARE; };
		const auto shareLate = [share]() { return share && share->late >= POLICY_SHARE; };
		if (slots.late >= MAX_CALLS)
		{
			const std::string holders = mostLate(slots);
			releaseShare(slots, owner, false, false, true);
			lock.unlock();
			failBound(description() + " was not called: " + std::to_string(MAX_CALLS) + " earlier calls of site policies have not "
				"returned by their deadline and still run (at most " + std::to_string(MAX_CALLS) + " run at once; " + holders + ")", bound);
		}
		const bool free = slots.freed.wait_until(lock, timePoint(deadline),
			[&]() { return (slots.running < MAX_CALLS && shareFree()) || slots.late >= MAX_CALLS || shareLate(); });
		if (free && shareLate())
		{
			const int late = share->late;
			releaseShare(slots, owner, false, false, true);
			lock.unlock();
			failBound(description() + " was not called: " + shareFullText(late), bound);
		}
		if (free && slots.running >= MAX_CALLS)
		{
			const std::string holders = mostLate(slots);
			releaseShare(slots, owner, false, false, true);
			lock.unlock();
			failBound(description() + " was not called: " + std::to_string(MAX_CALLS) + " earlier calls of site policies have not "
				"returned by their deadline and still run (at most " + std::to_string(MAX_CALLS) + " run at once; " + holders + ")", bound);
		}
		if (!free)
		{
			const int running = slots.running;
			const int late = slots.late;
			const bool ownShare = !shareFree();
			const int ownRunning = share ? share->running : 0;
			const int ownLate = share ? share->late : 0;
			const std::string holders = late > 0 ? "; " + mostLate(slots) : std::string();
			releaseShare(slots, owner, false, false, true);
			lock.unlock();
			if (ownShare)
				failBound(description() + " was not called within " + millisecondsText(waited.elapsed()) + ", " + bound.deadlineText +
					": its " + std::to_string(ownRunning) + " earlier calls still run (" + std::to_string(ownLate) + " past their deadline; one "
					"policy holds at most " + std::to_string(POLICY_SHARE) + " of the " + std::to_string(MAX_CALLS) + " slots at once)", bound);
			failBound(description() + " was not called within " + millisecondsText(waited.elapsed()) + ", " + bound.deadlineText +
				": " + std::to_string(running) + " calls of site policies still run (" + std::to_string(late) + " past their deadline; at most " +
				std::to_string(MAX_CALLS) + " run at once" + holders + ")", bound);
		}
		if (share)
		{
			--share->waiting;
			++share->running;
		}
		++slots.running;
		if (!slots.parked.empty())
		{
			Worker* worker = slots.parked.back();
			slots.parked.pop_back();
			worker->task = pending;
			worker->handed.store(true, std::memory_order_release);
			worker->wake.notify_one();
		}
		else
		{
			// No parked worker (the first calls, more calls at once than before, or workers held by late
			// calls): a new one, kept afterwards.
			auto worker = std::make_unique<Worker>();
			worker->task = pending;
			try
			{
				std::thread(workerLoop, worker.get()).detach();
				worker.release();
				++slots.workers;
				++slots.started;
			}
			catch (const std::system_error&)
			{
				--slots.running;
				releaseShare(slots, owner, true, false, false);
				slots.freed.notify_all();
				lock.unlock();
				// No thread to be had: the call runs here, unbounded, rather than failing for it.
				try
				{
					pending->call();
				}
				catch (...)
				{
					return std::current_exception();
				}
				return nullptr;
			}
		}
	}

	spinUntil(pending->returned);   // most calls return within it: no sleep, no wake-up
	std::unique_lock<std::mutex> lock(pending->mutex);
	pending->done.wait_until(lock, timePoint(deadline), [&pending]() { return pending->finished; });
	if (!pending->finished)
	{
		pending->late = true;
		const std::string text = description();
		pending->lateAs = text;
		{
			// Under the call's lock: the worker counts it down only after it saw late.
			std::lock_guard<std::mutex> slotLock(slots.mutex);
			++slots.late;
			++slots.lateBy[text];
			if (owner) ++slots.shares[owner].late;   // the entry is there: this call still runs
		}
		slots.freed.notify_all();   // callers of this policy waiting for its share fail now, not at their deadline
		lock.unlock();
		failBound(text + " did not return from " + function + " within " + millisecondsText(waited.elapsed()) + ", " +
			bound.deadlineText + "; BlueTusk stops waiting for it (the late call runs on, its result dropped)", bound);
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


int PolicyCallBound::lateCallsOf(const void* owner)
{
	std::lock_guard<std::mutex> lock(callSlots().mutex);
	auto it = callSlots().shares.find(owner);
	return it == callSlots().shares.end() ? 0 : it->second.late;
}


int PolicyCallBound::workerThreads()
{
	std::lock_guard<std::mutex> lock(callSlots().mutex);
	return callSlots().workers;
}


int PolicyCallBound::startedWorkers()
{
	std::lock_guard<std::mutex> lock(callSlots().mutex);
	return callSlots().started;
}


int PolicyCallBound::runningCalls()
{
	std::lock_guard<std::mutex> lock(callSlots().mutex);
	return callSlots().running;
}


thread_local PolicyDeadline::Scope::State PolicyDeadline::Scope::current;


PolicyDeadline::Scope::Scope(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout, const SecretRedactor& redactor,
	Kind kind):
	_previous(current)
{
	const Poco::Timestamp deadline = kind == Kind::Creation ? checkoutDeadline(Poco::Timespan(), timeout) : checkoutDeadline(checkoutTimeout, timeout);
	if (current.set && current.deadline <= deadline) return;
	current.set = true;
	current.deadline = deadline;
	current.checkoutTimeout = checkoutTimeout;
	current.timeout = timeout;
	current.redactor = &redactor;
	current.kind = kind;
}


PolicyDeadline::Scope::~Scope()
{
	current = _previous;
}


PolicyCallLimit PolicyDeadline::current()
{
	const Scope::State& state = Scope::current;
	if (!state.set) return PolicyCallLimit();
	PolicyCallLimit limit = state.kind == Kind::Creation ? forCreation(state.timeout, *state.redactor)
		: forCheckout(state.checkoutTimeout, state.timeout, *state.redactor);
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

PolicyCallLimit PolicyDeadline::forCreation(const Poco::Timespan& timeout, const SecretRedactor& redactor)
{
	PolicyCallLimit limit;
	limit.deadline = checkoutDeadline(Poco::Timespan(), timeout);
	limit.redactor = redactor;
	if (timeout.totalMicroseconds() > 0)
		limit.deadlineText = "the data source creation's deadline (Timeout " + millisecondsText(timeout.totalMicroseconds()) + " from its start)";
	else
		limit.deadlineText = "the bound of a data source creation with Timeout=0 (15 s from its start)";
	return limit;
}

} } // namespace BlueTusk::Detail
