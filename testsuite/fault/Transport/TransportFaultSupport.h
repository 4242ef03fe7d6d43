//
// TransportFaultSupport.h
//
// Small helpers shared by the Transport fault tests: settings for a fast open, a stopwatch in
// milliseconds, and every text an exception (with its nested ones) can show a user.
//

#ifndef BlueTusk_TransportFaultSupport_INCLUDED
#define BlueTusk_TransportFaultSupport_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "Poco/Clock.h"
#include "Poco/Exception.h"
#include <string>

namespace BlueTusk {
namespace Test {

inline ConnectionSettings fastSettings(int timeoutMs, const std::string& password = "", SslMode sslMode = SslMode::Disable)
	/// User "alice", database "app", application "fault-test", no passfile, the given connect timeout.
{
	ConnectionSettings settings;
	settings.username = "alice";
	settings.database = "app";
	settings.applicationName = "fault-test";
	settings.password = password;
	settings.passfile = "/nonexistent/bluetusk-fault-test.pgpass";
	settings.sslMode = sslMode;
	settings.connectTimeout = Poco::Timespan(0, timeoutMs * 1000);
	return settings;
}


class Millis
	/// Milliseconds since construction (monotonic).
{
public:
	double elapsed() const
	{
		return static_cast<double>(_start.elapsed()) / 1000.0;
	}

private:
	Poco::Clock _start;
};


inline std::string allText(const Poco::Exception& exc)
	/// name, displayText and message of exc and of every nested exception, plus for a transport exception
	/// every attempt's toString() and errorText: everything a user or a log could see.
{
	std::string text;
	for (const Poco::Exception* e = &exc; e; e = e->nested())
	{
		text += std::string(e->name()) + "|" + e->displayText() + "|" + e->message() + "\n";
		if (auto transport = dynamic_cast<const BlueTuskTransportException*>(e))
		{
			for (const auto& attempt: transport->attempts())
				text += attempt.toString() + "|" + attempt.errorText + "|" + attempt.address + "\n";
		}
	}
	return text;
}


inline std::string outcomes(const AddressAttemptList& attempts)
	/// "refused,timed out,connected": the outcome names in order, for assertion messages.
{
	std::string text;
	for (const auto& attempt: attempts)
	{
		if (!text.empty()) text += ",";
		text += AddressAttempt::outcomeName(attempt.outcome);
	}
	return text;
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_TransportFaultSupport_INCLUDED
