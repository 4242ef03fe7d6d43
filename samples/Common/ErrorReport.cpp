//
// ErrorReport.cpp
//
// BlueTusk samples.
//

#include "ErrorReport.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/JSON/Array.h"
#include <cxxabi.h>
#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace BlueTusk {
namespace Samples {

namespace {

bool contains(const std::string& text, const char* part)
{
	return text.find(part) != std::string::npos;
}


std::string outcomeOf(const std::string& detail)
	/// The router writes the outcome into the detail text (Router.cpp); recover the outcome name of
	/// HostAttempt::outcomeName from it.
{
	if (contains(detail, "lost the race") || contains(detail, "another endpoint won")) return "lost race";
	if (contains(detail, "fallback for target")) return contains(detail, "(not kept)") ? "fallback released" : "fallback retained";
	if (contains(detail, "authentication")) return "authentication failed";
	if (contains(detail, ", target ")) return "rejected";
	return "failed";
}


AttemptReport parseAttempt(const std::string& text)
	/// "<endpoint>: <detail>"; the endpoint's display form ends with ":<port>" and has no ": " in it.
{
	AttemptReport attempt;
	std::string::size_type colon = text.find(": ");
	if (colon == std::string::npos)
	{
		attempt.outcome = "failed";
		attempt.message = text;
		return attempt;
	}
	attempt.endpoint = text.substr(0, colon);
	attempt.message = text.substr(colon + 2);
	std::string detail = attempt.message;
	std::string::size_type bracket = detail.find(" [");
	if (bracket != std::string::npos) detail.erase(bracket);
	attempt.outcome = outcomeOf(detail);
	return attempt;
}

} // namespace


std::string ErrorReport::typeName(const std::exception& exc)
{
	const char* mangled = typeid(exc).name();
	int status = 0;
	std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
	std::string name = (status == 0 && demangled) ? demangled.get() : mangled;
	const std::string prefix = "BlueTusk::";
	if (name.compare(0, prefix.size(), prefix) == 0) name.erase(0, prefix.size());
	return name;
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
	if (dynamic_cast<const BlueTuskNoAcceptableHostException*>(&exc))
	{
		for (const Poco::Exception* nested = exc.nested(); nested; nested = nested->nested())
		{
			report.attempts.push_back(parseAttempt(nested->message()));
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
