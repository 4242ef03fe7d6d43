//
// HostOrderCall.cpp
//
// Library: BlueTusk/Routing
//
// HostOrderPolicy::plan() called within the checkout's deadline (doc/plugins.md, "Where and how policies
// are called").
//

#include "HostOrderCall.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/Clock.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include "Poco/Path.h"
#include <atomic>
#include <condition_variable>
#include <dlfcn.h>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace BlueTusk {
namespace Detail {

namespace {

std::atomic<int> lateCount{0};

const Poco::Timespan BOUND_WITHOUT_DEADLINE(15, 0);   /// Checkout Timeout=0 and Timeout=0
const Poco::Timespan MIN_WAIT(0, 100000);              /// the least a call is waited for (HostOrderCall.h)


Poco::Logger& routingLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}


struct PendingPlan
	/// One plan() call on a helper thread, shared by the caller (until it stops waiting) and the helper.
{
	std::mutex mutex;
	std::condition_variable done;
	bool finished = false;
	bool late = false;            /// the caller stopped waiting: the helper drops the result and lateCount - 1
	HostOrderPlan plan;
	std::exception_ptr error;
};


[[noreturn]] void fail(const std::string& text, const ConnectionSettings& settings)
	/// Logs text (redacted) and throws it as a BlueTuskPluginException.
{
	const std::string message = settings.redactor().redact(text);
	routingLogger().error(message);
	throw BlueTuskPluginException(message);
}


std::string milliseconds(Poco::Timespan::TimeDiff microseconds)
{
	return std::to_string((microseconds + 500) / 1000) + " ms";
}

} // namespace


std::string HostOrderCall::describe(const HostOrderPolicy& policy)
{
	return describePolicy("host order", [&policy]() { return policy.name(); }, &policy);
}


bool HostOrderCall::isStandard(const HostOrderPolicy& policy)
{
	// One dladdr per class and thread: the last answer is kept.
	thread_local const void* lastVtable = nullptr;
	thread_local bool lastAnswer = false;
	const void* vtable = *reinterpret_cast<const void* const*>(&policy);
	if (vtable == lastVtable) return lastAnswer;
	const bool standard = codeIsInLibrary(&policy, HOST_ORDER_PLUGIN_LIBRARY);
	lastVtable = vtable;
	lastAnswer = standard;
	return standard;
}


bool codeIsInLibrary(const void* object, const char* library)
{
	try
	{
		Dl_info info;
		const void* vtable = *static_cast<const void* const*>(object);
		return dladdr(vtable, &info) != 0 && info.dli_fname &&
			Poco::Path(info.dli_fname).getFileName() == pluginLibraryFileName(library);
	}
	catch (...)
	{
		return false;
	}
}


int HostOrderCall::lateCalls()
{
	return lateCount.load();
}


HostOrderPlan HostOrderCall::plan(const HostOrderPolicy::Ptr& policy, const std::vector<HostCandidate>& candidates,
	Poco::Timestamp deadline, const ConnectionSettings& settings)
{
	if (isStandard(*policy))
	{
		try
		{
			return policy->plan(candidates);
		}
		catch (...)
		{
			fail(describe(*policy) + " failed in plan(): " + describeThrown(std::current_exception()), settings);
		}
	}

	Poco::Timestamp now;
	if (deadline == Poco::Timestamp(Poco::Timestamp::TIMEVAL_MAX))
	{
		deadline = now + (settings.connectTimeout.totalMicroseconds() > 0 ? settings.connectTimeout : BOUND_WITHOUT_DEADLINE).totalMicroseconds();
	}
	// A pass that starts at or after the deadline (the passes of Failover Timeout) still gives plan() a moment.
	if (deadline < now + MIN_WAIT.totalMicroseconds()) deadline = now + MIN_WAIT.totalMicroseconds();
	const int late = lateCount.load();
	if (late >= MAX_LATE_CALLS)
	{
		fail(describe(*policy) + " was not called: " + std::to_string(late) + " earlier calls of its plan() have not returned "
			"by their checkout's deadline and still run", settings);
	}

	auto call = std::make_shared<PendingPlan>();
	try
	{
		std::thread([policy, call, candidates]()
		{
			HostOrderPlan result;
			std::exception_ptr error;
			try
			{
				result = policy->plan(candidates);
			}
			catch (...)
			{
				error = std::current_exception();
			}
			bool wasLate = false;
			{
				std::lock_guard<std::mutex> lock(call->mutex);
				call->plan = std::move(result);
				call->error = error;
				call->finished = true;
				wasLate = call->late;
			}
			call->done.notify_all();
			if (wasLate) --lateCount;
		}).detach();
	}
	catch (const std::system_error&)
	{
		// No thread to be had: the call runs here, unbounded, rather than the checkout failing for it.
		try
		{
			return policy->plan(candidates);
		}
		catch (...)
		{
			fail(describe(*policy) + " failed in plan(): " + describeThrown(std::current_exception()), settings);
		}
	}

	Poco::Clock waited;
	std::unique_lock<std::mutex> lock(call->mutex);
	const auto until = std::chrono::system_clock::time_point(std::chrono::microseconds(deadline.epochMicroseconds()));
	call->done.wait_until(lock, until, [&call]() { return call->finished; });
	if (!call->finished)
	{
		call->late = true;
		++lateCount;
		lock.unlock();
		fail(describe(*policy) + " did not return from plan() within " + milliseconds(waited.elapsed()) +
			", the checkout's deadline (Checkout Timeout " + milliseconds(settings.checkoutTimeout.totalMicroseconds()) +
			"); the checkout stops waiting for it", settings);
	}
	if (call->error)
	{
		const std::exception_ptr error = call->error;
		lock.unlock();
		fail(describe(*policy) + " failed in plan(): " + describeThrown(error), settings);
	}
	return std::move(call->plan);
}

} } // namespace BlueTusk::Detail
