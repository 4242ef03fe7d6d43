//
// TargetSessionCall.cpp
//
// Library: BlueTusk/Routing
//
// A site target-session policy's calls, each turned into a BlueTuskPluginException naming the policy when
// it throws (doc/plugin-calls.md, "Where and how policies are called").
//

#include "TargetSessionCall.h"
#include "HostOrderCall.h"
#include "PolicyCallBound.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <exception>
#include <memory>

namespace BlueTusk {
namespace Detail {

namespace {

Poco::Logger& targetCallLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}

} // namespace


GuardedTargetSessionPolicy::GuardedTargetSessionPolicy(TargetSessionPolicy::Ptr policy, std::string name):
	_policy(std::move(policy)),
	_name(std::move(name))
{
	_description = describePolicy("target session", [this]() { return _name; }, _policy.get());
}


void GuardedTargetSessionPolicy::fail(const std::string& call, const std::exception_ptr& thrown) const
{
	// Through the redactor of the checkout or creation under way (its settings' secrets), as every other family's
	// failures: a policy's text may echo what it was given (a trial's policy threw the password).
	const std::string message = PolicyDeadline::current().redactor.redact(_description + " failed in " + call + ": " + describeThrown(thrown));
	targetCallLogger().error(message);
	throw BlueTuskPluginException(message);
}


std::string GuardedTargetSessionPolicy::name() const
{
	return _name;
}


template <class R>
R GuardedTargetSessionPolicy::bounded(std::function<R()> call, const std::string& function) const
{
	std::exception_ptr thrown;
	const std::string description = _description;
	const R result = PolicyCallBound::call<R>(std::move(call), PolicyDeadline::current(), [description]() { return description; },
		function, thrown, _policy.get());
	if (thrown) fail(function, thrown);
	return result;
}


bool GuardedTargetSessionPolicy::needsRole() const
{
	// Asked once (bounded), then the answer kept: a checkout asks it about three times, and each bounded
	// call starts a thread (doc/plugins.md: "keep it a constant answer"). A failure is not kept.
	const int known = _needsRole.load(std::memory_order_acquire);
	if (known >= 0) return known == 1;
	TargetSessionPolicy::Ptr policy = _policy;
	const bool answer = bounded<bool>([policy]() { return policy->needsRole(); }, "needsRole()");
	_needsRole.store(answer ? 1 : 0, std::memory_order_release);
	return answer;
}


RoleVerdict GuardedTargetSessionPolicy::classify(ServerRole role) const
{
	// Kept per role, like needsRole(): every checkout of a write target asks it twice (the split-brain
	// guard, SplitBrainGuard.cpp), each a bounded call. A failure is not kept.
	const std::size_t index = static_cast<std::size_t>(role);
	if (index < 4)
	{
		const int known = _roleVerdicts[index].load(std::memory_order_acquire);
		if (known >= 0) return static_cast<RoleVerdict>(known);
	}
	TargetSessionPolicy::Ptr policy = _policy;
	const RoleVerdict verdict = bounded<RoleVerdict>([policy, role]() { return policy->classify(role); }, "classify(" + toString(role) + ")");
	if (index < 4) _roleVerdicts[index].store(static_cast<int>(verdict), std::memory_order_release);
	return verdict;
}


RoleVerdict GuardedTargetSessionPolicy::classify(ServerRole role, const BlueTuskHostEndpoint& endpoint) const
{
	TargetSessionPolicy::Ptr policy = _policy;
	return bounded<RoleVerdict>([policy, role, endpoint]() { return policy->classify(role, endpoint); },
		"classify(" + toString(role) + ", " + endpoint.toString() + ")");
}


std::vector<RoleVerdict> GuardedTargetSessionPolicy::classifyEach(const std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>>& asks) const
{
	if (asks.empty()) return {};
	if (asks.size() == 1) return {classify(asks[0].first, asks[0].second)};
	std::string function = "classify() of ";
	for (std::size_t i = 0; i < asks.size(); ++i)
		function += (i ? ", " : "") + asks[i].second.toString() + " (" + toString(asks[i].first) + ")";
	TargetSessionPolicy::Ptr policy = _policy;
	auto failedAt = std::make_shared<std::size_t>(asks.size());
	std::exception_ptr thrown;
	const std::string description = _description;
	std::vector<RoleVerdict> verdicts = PolicyCallBound::call<std::vector<RoleVerdict>>([policy, asks, failedAt]()
		{
			std::vector<RoleVerdict> answers;
			answers.reserve(asks.size());
			for (std::size_t i = 0; i < asks.size(); ++i)
			{
				*failedAt = i;
				answers.push_back(policy->classify(asks[i].first, asks[i].second));
			}
			return answers;
		}, PolicyDeadline::current(), [description]() { return description; }, function, thrown, policy.get());
	if (thrown)
	{
		// The worker has returned (thrown is only set then): failedAt is the ask that threw.
		const auto& ask = asks[std::min(*failedAt, asks.size() - 1)];
		fail("classify(" + toString(ask.first) + ", " + ask.second.toString() + ")", thrown);
	}
	return verdicts;
}


std::vector<RoleVerdict> GuardedTargetSessionPolicy::classifyEachOrReject(const std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>>& asks,
	std::vector<std::string>& failures) const
{
	if (asks.empty()) return {};
	std::string function = asks.size() == 1 ? "classify(" + toString(asks[0].first) + ", " + asks[0].second.toString() + ")" : "classify() of ";
	for (std::size_t i = 0; asks.size() > 1 && i < asks.size(); ++i)
		function += (i ? ", " : "") + asks[i].second.toString() + " (" + toString(asks[i].first) + ")";
	// What each ask threw, as text made on the worker (no exception object crosses threads); empty: answered.
	auto thrownTexts = std::make_shared<std::vector<std::string>>(asks.size());
	TargetSessionPolicy::Ptr policy = _policy;
	std::exception_ptr thrown;
	const std::string description = _description;
	std::vector<RoleVerdict> verdicts = PolicyCallBound::call<std::vector<RoleVerdict>>([policy, asks, thrownTexts]()
		{
			std::vector<RoleVerdict> answers(asks.size(), RoleVerdict::Reject);
			for (std::size_t i = 0; i < asks.size(); ++i)
			{
				try
				{
					answers[i] = policy->classify(asks[i].first, asks[i].second);
				}
				catch (...)
				{
					(*thrownTexts)[i] = describeThrown(std::current_exception());
				}
			}
			return answers;
		}, PolicyDeadline::current(), [description]() { return description; }, function, thrown, policy.get());
	if (thrown) fail(function, thrown);   // not the policy's throw (caught above): the call itself failed
	verdicts.resize(asks.size(), RoleVerdict::Reject);
	const SecretRedactor redactor = PolicyDeadline::current().redactor;
	for (std::size_t i = 0; i < asks.size(); ++i)
	{
		if ((*thrownTexts)[i].empty()) continue;
		verdicts[i] = RoleVerdict::Reject;
		const std::string message = redactor.redact(_description + " failed in classify(" + toString(asks[i].first) + ", " +
			asks[i].second.toString() + "): " + (*thrownTexts)[i]);
		targetCallLogger().error(message + "; " + asks[i].second.toString() + " is taken as not acceptable for this pass");
		failures.push_back(message);
	}
	return verdicts;
}


void GuardedTargetSessionPolicy::configure(const Poco::Util::AbstractConfiguration& config)
{
	try
	{
		_policy->configure(config);
	}
	catch (Poco::Exception&)
	{
		throw;   // the policy refuses its configuration (doc/plugins.md, "Configuration")
	}
	catch (...)
	{
		fail("configure()", std::current_exception());
	}
}


const TargetSessionPolicy& GuardedTargetSessionPolicy::policy() const
{
	return *_policy;
}


TargetSessionPolicy::Ptr GuardedTargetSessionPolicy::guard(TargetSessionPolicy::Ptr policy, const std::string& name)
{
	if (!policy || codeIsInLibrary(policy.get(), TARGET_SESSION_PLUGIN_LIBRARY)) return policy;
	if (std::dynamic_pointer_cast<GuardedTargetSessionPolicy>(policy)) return policy;
	return std::make_shared<GuardedTargetSessionPolicy>(std::move(policy), name);
}

} } // namespace BlueTusk::Detail
