//
// EvictionCall.cpp
//
// Library: BlueTusk/Pooling
//
// The pools' calls into the eviction policy, outside the manager's mutex, with the fallback to the standard
// policy when one throws (doc/plugin-calls.md, "Where and how policies are called").
//

#include "EvictionCall.h"
#include "EvictionWorkers.h"
#include "Poco/Clock.h"
#include "BlueTusk/PluginRegistry.h"
#include <chrono>
#include <time.h>
#include <condition_variable>
#include <exception>
#include <mutex>

namespace BlueTusk {
namespace Detail {

namespace {

Poco::Int64 coarseMicroseconds()
	/// A monotonic time in microseconds from the kernel's coarse clock (a read of the last tick, resolution
	/// 1-4 ms): enough to see a call slower than SLOW_CALL (100 ms), and several times cheaper than a precise
	/// read, which every return would pay twice (doc/performance.md, R2).
{
#if defined(CLOCK_MONOTONIC_COARSE)
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
		return static_cast<Poco::Int64>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
#endif
	return Poco::Clock().raw();
}


bool pastLifetime(const PooledSessionInfo& session, Poco::Timestamp now)
{
	return session.lifetime > 0 && now - session.createdAt >= session.lifetime.totalMicroseconds();
}


template <class Result>
struct PendingEvictionCall
	/// One bounded call, shared by the waiting caller and the worker (which may finish after the caller left).
{
	std::mutex mutex;
	std::condition_variable done;
	bool finished = false;
	Result result{};
	std::exception_ptr error;
};

} // namespace


const Poco::Timespan EvictionCall::SLOW_CALL(0, 100000);
const Poco::Timespan EvictionCall::CALL_BOUND(0, 200000);


EvictionCall::EvictionCall(EvictionPolicy::Ptr policy, EvictionPolicy::Ptr fallback, const ConnectionSettings& settings,
		Poco::Logger& logger, const SecretRedactor& redactor):
	_policy(std::move(policy)),
	_fallback(fallback == _policy ? nullptr : std::move(fallback)),
	_settings(std::make_shared<const ConnectionSettings>(settings)),
	_logger(logger),
	_redactor(redactor)
{
	if (_fallback) _workers = std::make_shared<EvictionWorkers>();
}


EvictionCall::~EvictionCall()
{
	if (_workers) _workers->stop();
}


EvictionPolicy& EvictionCall::policy() const
{
	return *_policy;
}


std::string EvictionCall::describe(const EvictionPolicy& policy)
{
	return describePolicy("eviction", [&policy]() { return policy.name(); }, &policy);
}


void EvictionCall::logFailure(const char* function, const BlueTuskHostEndpoint* endpoint, const std::string& what)
{
	const unsigned long long failures = ++_failures;
	// Every failure would be a line per returned session: the first, then every hundredth.
	if (failures != 1 && failures % 100 != 0) return;
	// Logged, not thrown: no caller of the pool can act on it (the lease's holder has let it go).
	_logger.error(_redactor.redact(describe(*_policy) + " failed in " + function + "()" +
		(endpoint ? " for " + endpoint->toString() : std::string()) + ": " + what + "; " +
		(_fallback ? describe(*_fallback) : std::string("the built-in lifetime rule")) + " decides instead (" +
		std::to_string(failures) + (failures == 1 ? " failure" : " failures") + " so far)"));
}


void EvictionCall::logLate(const char* function, const BlueTuskHostEndpoint* endpoint, const std::string& why)
{
	const unsigned long long late = ++_late;
	if (late != 1 && late % 100 != 0) return;
	_logger.warning(_redactor.redact(describe(*_policy) + " " + why + " in " + function + "()" +
		(endpoint ? " for " + endpoint->toString() : std::string()) + "; " + describe(*_fallback) + " decides instead (" +
		std::to_string(late) + (late == 1 ? " time" : " times") + " so far; a late call runs on and its answer is dropped)"));
}


template <class Result, class Call>
bool EvictionCall::bounded(const char* function, const BlueTuskHostEndpoint* endpoint, Call call, Result& result)
{
	auto pending = std::make_shared<PendingEvictionCall<Result>>();
	EvictionPolicy::Ptr policy = _policy;
	std::shared_ptr<const ConnectionSettings> settings = _settings;   // what call's settings pointer points to
	const bool posted = _workers->post([pending, policy, settings, call]()
	{
		Result answer{};
		std::exception_ptr error;
		try
		{
			answer = call(*policy);
		}
		catch (...)
		{
			error = std::current_exception();
		}
		{
			// Moved, not copied: once the caller has it, no reference to the exception stays on this thread.
			// The exception's reference count lives in the C++ runtime, which ThreadSanitizer does not see: a
			// last release here, after the caller read the message, was reported as a race (a false one).
			std::lock_guard<std::mutex> lock(pending->mutex);
			pending->result = std::move(answer);
			pending->error = std::move(error);
			pending->finished = true;
		}
		pending->done.notify_all();
	});
	if (!posted)
	{
		logLate(function, endpoint, "was not called: " + std::to_string(_workers->busy()) + " earlier calls still run");
		return false;
	}
	std::unique_lock<std::mutex> lock(pending->mutex);
	if (!pending->done.wait_for(lock, std::chrono::microseconds(CALL_BOUND.totalMicroseconds()), [&pending]() { return pending->finished; }))
	{
		lock.unlock();
		logLate(function, endpoint, "did not answer within " + std::to_string(CALL_BOUND.totalMilliseconds()) + " ms");
		return false;
	}
	// Taken out under the lock: the caller alone holds the exception from here on (see above).
	const std::exception_ptr error = std::move(pending->error);
	if (error)
	{
		lock.unlock();
		std::rethrow_exception(error);
	}
	result = std::move(pending->result);
	return true;
}


template <class Result, class Call, class Builtin>
Result EvictionCall::guarded(const char* function, const BlueTuskHostEndpoint* endpoint, Call call, Builtin builtin)
{
	const Poco::Int64 started = coarseMicroseconds();
	try
	{
		Result result{};
		bool answered = true;
		if (!_workers) result = call(*_policy);
		else answered = bounded(function, endpoint, call, result);
		if (answered)
		{
			const Poco::Int64 elapsed = coarseMicroseconds() - started;
			if (elapsed >= SLOW_CALL.totalMicroseconds() && _logger.warning())
			{
				_logger.warning(_redactor.redact(describe(*_policy) + " took " + std::to_string(elapsed / 1000) + " ms in " + function + "()" +
					(endpoint ? " for " + endpoint->toString() : std::string()) + " (no pool lock is held meanwhile; keep it fast)"));
			}
			return result;
		}
	}
	catch (...)
	{
		logFailure(function, endpoint, describeThrown(std::current_exception()));
	}
	if (_fallback)
	{
		try
		{
			return call(*_fallback);
		}
		catch (...)
		{
			_logger.error(_redactor.redact(describe(*_fallback) + " failed in " + function + "() too: " + describeThrown(std::current_exception())));
		}
	}
	return builtin();
}


bool EvictionCall::keepOnReturn(const BlueTuskHostEndpoint& endpoint, const PooledSessionInfo& session,
	const PoolSizeInfo& pool, Poco::Timestamp now)
{
	const ConnectionSettings* settings = _settings.get();
	return guarded<bool>("keepOnReturn", &endpoint,
		[session, pool, settings, now](const EvictionPolicy& policy) { return policy.keepOnReturn(session, pool, *settings, now); },
		[&]() { return !pastLifetime(session, now); });
}


std::vector<std::size_t> EvictionCall::selectForEviction(const BlueTuskHostEndpoint& endpoint,
	const std::vector<PooledSessionInfo>& idle, const PoolSizeInfo& pool, Poco::Timestamp now)
{
	const ConnectionSettings* settings = _settings.get();
	return guarded<std::vector<std::size_t>>("selectForEviction", &endpoint,
		[idle, pool, settings, now](const EvictionPolicy& policy) { return policy.selectForEviction(idle, pool, *settings, now); },
		[&]()
		{
			std::vector<std::size_t> selected;
			for (std::size_t i = 0; i < idle.size(); ++i)
			{
				if (pastLifetime(idle[i], now)) selected.push_back(i);
			}
			return selected;
		});
}


Poco::Timespan EvictionCall::lifetimeFor()
{
	return guarded<Poco::Timespan>("lifetimeFor", nullptr,
		[settings = _settings.get()](const EvictionPolicy& policy) { return policy.lifetimeFor(*settings); },
		[]() { return Poco::Timespan(0); });
}

} } // namespace BlueTusk::Detail
