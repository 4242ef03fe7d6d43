//
// RouterReport.cpp
//
// Library: BlueTusk/Routing
//
// The Router's account of a failed open: the BlueTuskNoAcceptableHostException message (doc/routing.md,
// "Errors") and its attempts as data. Split from Router.cpp, which keeps the algorithm.
//

#include "Router.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <memory>

namespace BlueTusk {
namespace Detail {

namespace {

const std::size_t MAX_LISTED = 16;   // endpoints named in the message and nested (doc/connection-strings.md, "Limits")


std::string moreText(std::size_t more)
{
	return "... and " + std::to_string(more) + " more endpoint" + (more == 1 ? "" : "s") + " (attempts() has every one)";
}


std::string summarizeAttempts(HostAttemptList::const_iterator begin, HostAttemptList::const_iterator end)
	/// "a:5432 failed x3, b:5432 rejected x3": each endpoint and outcome with how often it occurred, in
	/// order of first occurrence (the compact form of the earlier passes in the Failover Timeout message).
{
	std::vector<std::pair<std::string, int>> counts;
	for (auto it = begin; it != end; ++it)
	{
		std::string key = it->endpoint.toString() + " " + HostAttempt::outcomeName(it->outcome);
		auto found = std::find_if(counts.begin(), counts.end(), [&key](const std::pair<std::string, int>& c) { return c.first == key; });
		if (found == counts.end()) counts.emplace_back(key, 1);
		else ++found->second;
	}
	std::string text;
	for (std::size_t i = 0; i < counts.size() && i < MAX_LISTED; ++i)
	{
		if (!text.empty()) text += ", ";
		text += counts[i].first + " x" + std::to_string(counts[i].second);
	}
	if (counts.size() > MAX_LISTED) text += ", " + moreText(counts.size() - MAX_LISTED);
	return text;
}

} // namespace


std::string Router::formatMs(double ms)
{
	return std::to_string(static_cast<long>(ms + 0.5));
}


void Router::throwNoAcceptable(const HostAttemptList& log, std::size_t routeStart, std::size_t passStart, int passes,
	double elapsedMs) const
{
	std::string message = "no acceptable host for target " + _request.target->name() + " (Host Order=" +
		_request.hostOrder->name() + ")";
	if (passes > 1)
	{
		message += " after " + std::to_string(passes) + " passes in " + formatMs(elapsedMs) + " ms (Failover Timeout=" +
			formatMs(_settings.failoverTimeout.totalMilliseconds()) + " ms)";
	}
	message += ": ";
	if (passStart >= log.size())
	{
		message += "no endpoint could be attempted";
	}
	std::string list;
	const std::size_t listedEnd = std::min(log.size(), passStart + MAX_LISTED);
	for (std::size_t i = passStart; i < listedEnd; ++i)
	{
		if (!list.empty()) list += "; ";
		list += log[i].toString();
	}
	if (listedEnd < log.size()) list += "; " + moreText(log.size() - listedEnd);
	message += list;
	if (passStart > routeStart)
	{
		message += " (earlier passes: " + summarizeAttempts(log.begin() + routeStart, log.begin() + passStart) + ")";
	}
	Poco::Logger::get("BlueTusk.Routing").information("%s", _redactor.redact(message));

	// Every pass as data; one nested exception per endpoint of the last pass, in attempt order, each holding
	// the full detail.
	HostAttemptList attempts(log.begin() + routeStart, log.end());
	std::unique_ptr<BlueTuskException> nested;
	if (listedEnd < log.size()) nested.reset(new BlueTuskException(moreText(log.size() - listedEnd)));
	for (std::size_t i = listedEnd; i > passStart; --i)
	{
		const HostAttempt& attempt = log[i - 1];
		std::string text = attempt.endpoint.toString() + ": " + attempt.detailedText();
		if (nested) nested.reset(new BlueTuskException(text, *nested));
		else nested.reset(new BlueTuskException(text));
	}
	// A site target's classify() threw for some candidates (taken as not acceptable) and no other was: the
	// policy's failure is the cause, the route's exception nested in it (doc/plugin-calls.md).
	std::string policyFailure;
	{
		std::lock_guard<std::mutex> lock(_verdictMutex);
		if (!_policyFailures.empty()) policyFailure = _policyFailures.front();
	}
	if (!policyFailure.empty())
	{
		if (nested) throw BlueTuskPluginException(policyFailure, HostAttemptsException(message, *nested, attempts, passes));
		throw BlueTuskPluginException(policyFailure, HostAttemptsException(message, attempts, passes));
	}
	if (nested) throw HostAttemptsException(message, *nested, attempts, passes);
	throw HostAttemptsException(message, attempts, passes);
}

} } // namespace BlueTusk::Detail
