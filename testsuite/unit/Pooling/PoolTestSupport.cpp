//
// PoolTestSupport.cpp
//

#include "PoolTestSupport.h"

namespace BlueTusk {
namespace Test {

FakeWorld::Ptr poolWorld()
{
	auto world = std::make_shared<FakeWorld>();
	world->roleFollowsServer = true;
	return world;
}


ManualClock::ManualClock():
	_now(Poco::Timestamp().epochMicroseconds())
{
}


Poco::Timestamp ManualClock::now() const
{
	return Poco::Timestamp(_now.load());
}


void ManualClock::advance(const Poco::Timespan& span)
{
	_now += span.totalMicroseconds();
}


FakeSession& fake(const PoolEntryPtr& entry)
{
	return dynamic_cast<FakeSession&>(*entry->session);
}


ConnectionSettings poolSettings(int minSize, int maxSize)
{
	ConnectionSettings settings;
	settings.endpoints = {endpointNo(1), endpointNo(2), endpointNo(3)};
	settings.username = "tester";
	settings.minPoolSize = minSize;
	settings.maxPoolSize = maxSize;
	settings.checkoutTimeout = Poco::Timespan(5, 0);
	return settings;
}


BlueTuskHostEndpoint endpointNo(int n)
{
	return BlueTuskHostEndpoint("127.0.0." + std::to_string(n), 5432);
}

} } // namespace BlueTusk::Test
