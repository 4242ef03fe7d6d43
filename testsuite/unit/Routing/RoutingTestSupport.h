//
// RoutingTestSupport.h
//
// Small helpers shared by the Routing unit tests.
//

#ifndef BlueTusk_Test_RoutingTestSupport_INCLUDED
#define BlueTusk_Test_RoutingTestSupport_INCLUDED

#include "FakeRoutingContext.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/HostAttemptsException.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include "ThreadCount.h"
#include <functional>
#include <string>

namespace BlueTusk {
namespace Test {

inline std::string describeLog(const HostAttemptList& log)
	/// "a:5432=accepted,b:5432=rejected": endpoints and outcomes, for assertions.
{
	std::string text;
	for (const auto& attempt: log)
	{
		if (!text.empty()) text += ",";
		text += attempt.endpoint.toString() + "=" + HostAttempt::outcomeName(attempt.outcome);
	}
	return text;
}


inline std::string describePasses(const HostAttemptList& log)
	/// One line per attempt, "<pass> <endpoint> <outcome>: <detail>\n": passes, endpoints, outcomes and
	/// details, for assertions.
{
	std::string text;
	for (const auto& attempt: log)
	{
		text += std::to_string(attempt.pass) + " " + attempt.endpoint.toString() + " " +
			HostAttempt::outcomeName(attempt.outcome) + ": " + attempt.detail + "\n";
	}
	return text;
}


inline const char* testPassword()
{
	return "s3cret-Pw!";
}


inline std::string fakeConnectionString(const std::string& hosts, const std::string& extra)
	/// "Host=<hosts>;Username=app;Password=<testPassword()>;Timeout=1;<extra>"
{
	std::string text = "Host=" + hosts + ";Username=app;Password=" + testPassword() + ";Timeout=1";
	if (!extra.empty()) text += ";" + extra;
	return text;
}


inline bool within(const std::function<bool()>& condition, int timeoutMs = 10000, int sliceMs = 10)
	/// Polls condition every sliceMs until it holds or timeoutMs ran out (generous by default: the machine is
	/// shared); its last answer.
{
	Poco::Clock start;
	while (!condition() && start.elapsed() < static_cast<Poco::Clock::ClockDiff>(timeoutMs) * 1000) Poco::Thread::sleep(sliceMs);
	return condition();
}


inline PoolStatistics hostStatistics(const BlueTuskDataSource::Ptr& dataSource, const std::string& host)
	/// The statistics of dataSource's pool for host:5432.
{
	return dataSource->getHostPoolStatistics().at(BlueTuskHostEndpoint(host, 5432));
}


struct FakeDataSource: FakeRoutingContext
	/// A data source over fake sessions, and its pools' statistics by host name.
{
	BlueTuskDataSource::Ptr dataSource;

	PoolStatistics stats(const std::string& host) const
	{
		return hostStatistics(dataSource, host);
	}
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_RoutingTestSupport_INCLUDED
