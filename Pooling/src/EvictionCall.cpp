//
// EvictionCall.cpp
//
// Library: BlueTusk/Pooling
//
// The pools' calls into the eviction policy, outside the manager's mutex, with the fallback to the standard
// policy when one throws (doc/plugins.md, "Where and how policies are called").
//

#include "EvictionCall.h"
#include "Poco/Clock.h"
#include "BlueTusk/PluginRegistry.h"
#include <exception>

namespace BlueTusk {
namespace Detail {

namespace {

bool pastLifetime(const PooledSessionInfo& session, Poco::Timestamp now)
{
	return session.lifetime > 0 && now - session.createdAt >= session.lifetime.totalMicroseconds();
}

} // namespace


const Poco::Timespan EvictionCall::SLOW_CALL(0, 100000);


EvictionCall::EvictionCall(EvictionPolicy::Ptr policy, EvictionPolicy::Ptr fallback, const ConnectionSettings& settings,
		Poco::Logger& logger, const SecretRedactor& redactor):
	_policy(std::move(policy)),
	_fallback(fallback == _policy ? nullptr : std::move(fallback)),
	_settings(settings),
	_logger(logger),
	_redactor(redactor)
{
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


template <class Result, class Call, class Builtin>
Result EvictionCall::guarded(const char* function, const BlueTuskHostEndpoint* endpoint, Call call, Builtin builtin)
{
	Poco::Clock started;
	try
	{
		Result result = call(*_policy);
		const Poco::Clock::ClockDiff elapsed = started.elapsed();
		if (elapsed >= SLOW_CALL.totalMicroseconds() && _logger.warning())
		{
			_logger.warning(_redactor.redact(describe(*_policy) + " took " + std::to_string(elapsed / 1000) + " ms in " + function + "()" +
				(endpoint ? " for " + endpoint->toString() : std::string()) + " (no pool lock is held meanwhile; keep it fast)"));
		}
		return result;
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
	return guarded<bool>("keepOnReturn", &endpoint,
		[&](const EvictionPolicy& policy) { return policy.keepOnReturn(session, pool, _settings, now); },
		[&]() { return !pastLifetime(session, now); });
}


std::vector<std::size_t> EvictionCall::selectForEviction(const BlueTuskHostEndpoint& endpoint,
	const std::vector<PooledSessionInfo>& idle, const PoolSizeInfo& pool, Poco::Timestamp now)
{
	return guarded<std::vector<std::size_t>>("selectForEviction", &endpoint,
		[&](const EvictionPolicy& policy) { return policy.selectForEviction(idle, pool, _settings, now); },
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
		[&](const EvictionPolicy& policy) { return policy.lifetimeFor(_settings); },
		[]() { return Poco::Timespan(0); });
}

} } // namespace BlueTusk::Detail
