//
// BackendScript.cpp
//
// Library: BlueTusk test peers
//

#include "BackendScript.h"
#include <algorithm>

namespace BlueTusk {
namespace Test {


QueryAnswer QueryAnswer::value(const std::string& value, const std::string& column)
{
	QueryAnswer answer;
	answer.columns.push_back(column);
	answer.rows.push_back(Wire::TextRow{value});
	return answer;
}


QueryAnswer QueryAnswer::command(const std::string& tag)
{
	QueryAnswer answer;
	answer.commandTag = tag;
	return answer;
}


QueryAnswer QueryAnswer::error(const std::string& sqlState, const std::string& message)
{
	QueryAnswer answer;
	answer.errorSqlState = sqlState;
	answer.errorMessage = message;
	return answer;
}


QueryAnswer QueryAnswer::dropConnection()
{
	QueryAnswer answer;
	answer.disconnect = true;
	return answer;
}


QueryAnswer QueryAnswer::raw(const std::string& bytes)
{
	QueryAnswer answer;
	answer.rawReply = bytes;
	return answer;
}


QueryAnswer QueryAnswer::copyIn(int disconnectAfter)
{
	QueryAnswer answer;
	answer.copy = Copy::In;
	answer.copyDisconnectAfter = disconnectAfter;
	return answer;
}


QueryAnswer QueryAnswer::copyOut(const std::vector<std::string>& chunks, int disconnectAfter)
{
	QueryAnswer answer;
	answer.copy = Copy::Out;
	answer.copyData = chunks;
	answer.copyDisconnectAfter = disconnectAfter;
	return answer;
}


QueryAnswer& QueryAnswer::thenTrickle(const std::string& bytes, int millisecondsPerByte)
{
	afterReady = bytes;
	afterReadyTrickleMs = millisecondsPerByte;
	return *this;
}


QueryAnswer& QueryAnswer::trickle(int millisecondsPerByte)
{
	trickleMs = millisecondsPerByte;
	return *this;
}


QueryAnswer& QueryAnswer::frozen(int milliseconds)
{
	delayMs = milliseconds;
	ignoreCancel = true;
	return *this;
}


QueryAnswer& QueryAnswer::thenDisconnect()
{
	disconnectAfterReady = true;
	return *this;
}


QueryAnswer& QueryAnswer::delay(int milliseconds)
{
	delayMs = milliseconds;
	return *this;
}


namespace
{
	BackendScript serving(const std::string& serverVersion, bool inHotStandby, bool defaultReadOnly, bool inRecovery, bool readOnly)
	{
		BackendScript script;
		script.parameters = {
			{"application_name", ""},
			{"client_encoding", "UTF8"},
			{"DateStyle", "ISO, MDY"},
			{"default_transaction_read_only", defaultReadOnly ? "on" : "off"},
			{"in_hot_standby", inHotStandby ? "on" : "off"},
			{"integer_datetimes", "on"},
			{"IntervalStyle", "postgres"},
			{"is_superuser", "off"},
			{"server_encoding", "UTF8"},
			{"server_version", serverVersion},
			{"session_authorization", ""},
			{"standard_conforming_strings", "on"},
			{"TimeZone", "Etc/UTC"}
		};
		script.inRecovery = inRecovery;
		script.transactionReadOnly = readOnly;
		return script;
	}
}


BackendScript BackendScript::primary(const std::string& serverVersion)
{
	return serving(serverVersion, false, false, false, false);
}


BackendScript BackendScript::standby(const std::string& serverVersion)
{
	return serving(serverVersion, true, false, true, true);
}


BackendScript BackendScript::readOnlyPrimary(const std::string& serverVersion)
{
	return serving(serverVersion, false, true, false, true);
}


BackendScript BackendScript::startupError(const std::string& sqlState, const std::string& message, const std::string& severity)
{
	BackendScript script;
	script.action = Action::StartupError;
	script.error.severity = severity;
	script.error.sqlState = sqlState;
	script.error.message = message;
	return script;
}


BackendScript BackendScript::startingUp()
{
	return startupError("57P03", "the database system is starting up");
}


BackendScript BackendScript::tooManyClients()
{
	BackendScript script = startupError("53300", "sorry, too many clients already");
	script.errorAfterAuthentication = true;
	return script;
}


BackendScript BackendScript::adminShutdown()
{
	return startupError("57P01", "terminating connection due to administrator command");
}


BackendScript BackendScript::passwordFailure()
{
	BackendScript script = primary();
	script.authentication = Authentication::Cleartext;
	script.rejectPassword = true;
	return script;
}


BackendScript BackendScript::closeOnAccept()
{
	BackendScript script;
	script.action = Action::CloseOnAccept;
	return script;
}


BackendScript BackendScript::closeAfterStartup()
{
	BackendScript script;
	script.action = Action::CloseAfterStartup;
	return script;
}


BackendScript BackendScript::resetAfterStartup()
{
	BackendScript script;
	script.action = Action::ResetAfterStartup;
	return script;
}


BackendScript BackendScript::garbage(const std::string& bytes)
{
	BackendScript script;
	script.action = Action::Garbage;
	script.garbageBytes = bytes;
	return script;
}


BackendScript BackendScript::hang()
{
	BackendScript script;
	script.action = Action::Hang;
	return script;
}


BackendScript& BackendScript::withoutRoleParameters()
{
	removeParameter("in_hot_standby");
	removeParameter("default_transaction_read_only");
	parameter("server_version", "13.11");
	return *this;
}


BackendScript& BackendScript::delayStartup(int milliseconds)
{
	startupDelayMs = milliseconds;
	return *this;
}


BackendScript& BackendScript::requirePassword(Authentication method, const std::string& expectedPassword)
{
	authentication = method;
	password = expectedPassword;
	return *this;
}


BackendScript& BackendScript::parameter(const std::string& name, const std::string& value)
{
	for (auto& entry: parameters)
	{
		if (entry.first == name)
		{
			entry.second = value;
			return *this;
		}
	}
	parameters.emplace_back(name, value);
	return *this;
}


BackendScript& BackendScript::removeParameter(const std::string& name)
{
	parameters.erase(std::remove_if(parameters.begin(), parameters.end(),
		[&](const std::pair<std::string, std::string>& entry) { return entry.first == name; }), parameters.end());
	return *this;
}


BackendScript& BackendScript::answer(const std::string& sql, const QueryAnswer& queryAnswer)
{
	answers[sql] = queryAnswer;
	return *this;
}


BackendScript& BackendScript::role(bool recovery, bool readOnly)
{
	inRecovery = recovery;
	transactionReadOnly = readOnly;
	for (auto& entry: parameters)
	{
		if (entry.first == "in_hot_standby") entry.second = recovery ? "on" : "off";
		else if (entry.first == "default_transaction_read_only") entry.second = (readOnly && !recovery) ? "on" : "off";
	}
	return *this;
}


std::string BackendScript::parameterValue(const std::string& name) const
{
	for (const auto& entry: parameters)
	{
		if (entry.first == name) return entry.second;
	}
	return "";
}

} } // namespace BlueTusk::Test
