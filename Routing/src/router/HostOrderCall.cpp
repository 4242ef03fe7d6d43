//
// HostOrderCall.cpp
//
// Library: BlueTusk/Routing
//
// HostOrderPolicy::plan() called within the checkout's deadline (doc/plugin-calls.md, "Where and how policies
// are called").
//

#include "HostOrderCall.h"
#include "PolicyCallBound.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include "Poco/Path.h"
#include <dlfcn.h>
#include <exception>

namespace BlueTusk {
namespace Detail {

namespace {

Poco::Logger& routingLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}


[[noreturn]] void fail(const std::string& text, const ConnectionSettings& settings)
	/// Logs text (redacted) and throws it as a BlueTuskPluginException.
{
	const std::string message = settings.redactor().redact(text);
	routingLogger().error(message);
	throw BlueTuskPluginException(message);
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
	return PolicyCallBound::lateCalls();
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

	// The text names the bound really used: Checkout Timeout, else Timeout, else the 15 s bound
	// (PolicyDeadline::forCheckout()); without a checkout deadline the bound counts from now.
	PolicyCallLimit limit = PolicyDeadline::forCheckout(settings.checkoutTimeout, settings.connectTimeout, settings.redactor());
	if (deadline != Poco::Timestamp(Poco::Timestamp::TIMEVAL_MAX)) limit.deadline = deadline;
	// A site policy is named by the name it was looked up under (Host Order): its name() was asked once, at
	// the lookup, and is not asked again here (a slow name() would delay the failure past the deadline).
	const std::string name = settings.hostOrder;
	const auto description = [&policy, &name]() { return describePolicy("host order", [&name]() { return name; }, policy.get()); };
	std::exception_ptr thrown;
	HostOrderPlan result = PolicyCallBound::call<HostOrderPlan>([policy, candidates]() { return policy->plan(candidates); },
		limit, description, "plan()", thrown, policy.get());
	if (thrown) fail(description() + " failed in plan(): " + describeThrown(thrown), settings);
	return result;
}

} } // namespace BlueTusk::Detail
