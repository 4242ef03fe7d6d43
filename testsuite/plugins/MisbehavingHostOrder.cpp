//
// MisbehavingHostOrder.cpp
//
// A site host-order plugin built only for the test suite, broken on purpose (doc/plugin-calls.md, "Where and how
// policies are called"). Every policy plans the host list as written and counts its plan() calls:
//   "counting"      plans, nothing else;
//   "throwing"      throws std::runtime_error("plan broke on purpose");
//   "throwing-int"  throws an int (neither a Poco::Exception nor a std::exception);
//   "sleepy"        sleeps before planning for the calls bluetuskTestSleepNext() asked for, and counts how
//                   many of its calls run at once (bluetuskTestMostSleepyAtOnce());
//   "name-throwing" name() throws std::runtime_error("name broke on purpose");
//   "name-throwing-int" name() throws an int;
//   "configure-throwing", "configure-throwing-int" configure() throws std::runtime_error("configure broke on
//                   purpose"), an int.
// Each plan() also records the query timings of the first candidate (bluetuskTestLastQueryTimes()).
// The tests reach the counters through the extern "C" functions below (dlsym on the loaded library). Only
// the public headers are used, the way a site would write one.
//

#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace {

std::atomic<int> planCalls{0};
std::atomic<int> sleepyCalls{0};    /// calls of "sleepy" still to sleep
std::atomic<int> sleepMs{0};
std::atomic<int> sleepyNow{0};      /// calls of "sleepy" running now
std::atomic<int> sleepyMost{0};     /// the most at once since the last reset
std::atomic<double> lastQueryMs{-2};      /// candidates[0] of the last plan(); -2 before any
std::atomic<double> smoothedQueryMs{-2};
std::atomic<unsigned> queriesMeasured{0};


class CountingHostOrder: public BlueTusk::HostOrderPolicy
{
public:
	std::string name() const override
	{
		return "counting";
	}

	BlueTusk::HostOrderPlan plan(const std::vector<BlueTusk::HostCandidate>& candidates) const override
	{
		++planCalls;
		if (!candidates.empty())
		{
			lastQueryMs = candidates[0].lastQueryMs;
			smoothedQueryMs = candidates[0].smoothedQueryMs;
			queriesMeasured = candidates[0].queriesMeasured;
		}
		misbehave();
		BlueTusk::HostOrderPlan plan;
		for (std::size_t i = 0; i < candidates.size(); ++i) plan.order.push_back(i);
		return plan;
	}

protected:
	virtual void misbehave() const
	{
	}
};


class ThrowingHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		return "throwing";
	}

protected:
	void misbehave() const override
	{
		throw std::runtime_error("plan broke on purpose");
	}
};


class ThrowingIntHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		return "throwing-int";
	}

protected:
	void misbehave() const override
	{
		throw 42;
	}
};


class SleepyHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		return "sleepy";
	}

protected:
	void misbehave() const override
	{
		const int now = ++sleepyNow;
		int most = sleepyMost.load();
		while (now > most && !sleepyMost.compare_exchange_weak(most, now)) {}
		if (sleepyCalls.fetch_sub(1) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs.load()));
		--sleepyNow;
	}
};


class NameThrowingHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		throw std::runtime_error("name broke on purpose");
	}
};


class NameThrowingIntHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		throw 42;
	}
};



class ConfigureThrowingHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		return "configure-throwing";
	}

	void configure(const Poco::Util::AbstractConfiguration&) override
	{
		throw std::runtime_error("configure broke on purpose");
	}
};


class ConfigureThrowingIntHostOrder: public CountingHostOrder
{
public:
	std::string name() const override
	{
		return "configure-throwing-int";
	}

	void configure(const Poco::Util::AbstractConfiguration&) override
	{
		throw 42;
	}
};

} // namespace


extern "C" __attribute__((visibility("default"))) int bluetuskTestPlanCalls()
	/// plan() calls so far, every policy of the library together.
{
	return planCalls.load();
}


extern "C" __attribute__((visibility("default"))) void bluetuskTestResetPlanCalls()
{
	planCalls = 0;
}


extern "C" __attribute__((visibility("default"))) void bluetuskTestSleepNext(int calls, int milliseconds)
	/// The next calls plan() calls of "sleepy" sleep milliseconds each.
{
	sleepMs = milliseconds;
	sleepyCalls = calls;
}


extern "C" __attribute__((visibility("default"))) int bluetuskTestMostSleepyAtOnce(int* running)
	/// The most plan() calls of "sleepy" that ran at once since the last call (then reset); running: now.
{
	*running = sleepyNow.load();
	return sleepyMost.exchange(0);
}


extern "C" __attribute__((visibility("default"))) void bluetuskTestLastQueryTimes(double* last, double* smoothed, unsigned* measured)
	/// HostCandidate::lastQueryMs, smoothedQueryMs and queriesMeasured of the first candidate of the last plan().
{
	*last = lastQueryMs.load();
	*smoothed = smoothedQueryMs.load();
	*measured = queriesMeasured.load();
}


POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(CountingHostOrder, "counting")
	POCO_EXPORT_INTERFACE(ThrowingHostOrder, "throwing")
	POCO_EXPORT_INTERFACE(ThrowingIntHostOrder, "throwing-int")
	POCO_EXPORT_INTERFACE(SleepyHostOrder, "sleepy")
	POCO_EXPORT_INTERFACE(NameThrowingHostOrder, "name-throwing")
	POCO_EXPORT_INTERFACE(NameThrowingIntHostOrder, "name-throwing-int")
	POCO_EXPORT_INTERFACE(ConfigureThrowingHostOrder, "configure-throwing")
	POCO_EXPORT_INTERFACE(ConfigureThrowingIntHostOrder, "configure-throwing-int")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
