//
// ErrorReport.cpp
//
// BlueTusk samples.
//

#include "ErrorReport.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include "Poco/JSON/Array.h"
#include <cxxabi.h>
#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace BlueTusk {
namespace Samples {

namespace {

std::string demangled(const char* mangled)
	/// The demangled class name, "BlueTusk::" removed.
{
	int status = 0;
	std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
	std::string name = (status == 0 && text) ? text.get() : mangled;
	const std::string prefix = "BlueTusk::";
	if (name.compare(0, prefix.size(), prefix) == 0) name.erase(0, prefix.size());
	return name;
}

} // namespace


std::string ErrorReport::typeName(const std::exception& exc)
{
	// The router throws HostAttemptsException, which only adds the attempts as data: report the type to
	// catch, as before it existed.
	if (dynamic_cast<const HostAttemptsException*>(&exc)) return demangled(typeid(BlueTuskNoAcceptableHostException).name());
	return demangled(typeid(exc).name());
}


ErrorReport ErrorReport::from(const Poco::Exception& exc)
{
	ErrorReport report;
	report.type = typeName(exc);
	report.message = exc.message().empty() ? exc.displayText() : exc.message();
	if (const auto* server = dynamic_cast<const BlueTuskServerException*>(&exc))
	{
		report.sqlState = server->sqlState();
	}
	if (const auto* failed = dynamic_cast<const HostAttemptsException*>(&exc))
	{
		// The last pass, as the message lists it in full (earlier Failover Timeout passes are summarised there).
		for (const HostAttempt& attempt: failed->attempts())
		{
			if (attempt.pass != failed->passes()) continue;
			AttemptReport item;
			item.endpoint = attempt.endpoint.toString();
			item.outcome = HostAttempt::outcomeName(attempt.outcome);
			item.message = attempt.detailedText();
			report.attempts.push_back(item);
		}
	}
	else if (dynamic_cast<const BlueTuskAuthenticationException*>(&exc))
	{
		const std::string marker = "authentication failed at ";
		std::string::size_type at = report.message.find(marker);
		if (at != std::string::npos)
		{
			std::string rest = report.message.substr(at + marker.size());
			AttemptReport attempt;
			attempt.endpoint = rest.substr(0, rest.find(' '));
			attempt.outcome = "authentication failed";
			std::string::size_type colon = rest.find(": ");
			attempt.message = colon == std::string::npos ? rest : rest.substr(colon + 2);
			report.attempts.push_back(attempt);
		}
	}
	return report;
}


Poco::JSON::Object::Ptr ErrorReport::toJson() const
{
	Poco::JSON::Object::Ptr object = new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER);
	object->set("event", "error");
	object->set("type", type);
	object->set("message", message);
	if (!sqlState.empty()) object->set("sqlstate", sqlState);
	Poco::JSON::Array::Ptr list = new Poco::JSON::Array;
	for (const auto& attempt: attempts)
	{
		Poco::JSON::Object::Ptr item = new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER);
		item->set("endpoint", attempt.endpoint);
		item->set("outcome", attempt.outcome);
		item->set("message", attempt.message);
		list->add(item);
	}
	object->set("attempts", list);
	return object;
}


std::string ErrorReport::toText() const
{
	std::string text = "error: " + type + ": " + message;
	if (!sqlState.empty() && message.find(sqlState) == std::string::npos) text += " (SQLSTATE " + sqlState + ")";
	if (!attempts.empty())
	{
		text += "\n  attempts, in order:";
		int n = 0;
		for (const auto& attempt: attempts)
		{
			text += "\n    " + std::to_string(++n) + ". " + attempt.endpoint + "  " + attempt.outcome + ": " + attempt.message;
		}
	}
	return text;
}

} } // namespace BlueTusk::Samples
