//
// PoolTestSupport.h
//
// What the Pooling unit tests share besides the fake sessions (FakeSession.h): their world, a PoolClock the
// test moves by hand, and small helpers.
//

#ifndef BlueTusk_PoolTestSupport_INCLUDED
#define BlueTusk_PoolTestSupport_INCLUDED

#include "FakeSession.h"
#include "BlueTusk/PoolManager.h"
#include <atomic>

namespace BlueTusk {
namespace Test {

FakeWorld::Ptr poolWorld();
	/// A FakeWorld whose sessions follow their server's role (FakeWorld::roleFollowsServer): the pools read
	/// role() without probing.


class ManualClock: public PoolClock
	/// A clock that only moves when the test says so. Thread-safe.
{
public:
	ManualClock();
	Poco::Timestamp now() const override;
	void advance(const Poco::Timespan& span);

private:
	std::atomic<Poco::Timestamp::TimeVal> _now;
};


FakeSession& fake(const PoolEntryPtr& entry);
	/// The FakeSession inside a pool entry.

ConnectionSettings poolSettings(int minSize, int maxSize);
	/// Settings with the given pool sizes; Checkout Timeout 5 s, everything else default.

BlueTuskHostEndpoint endpointNo(int n);
	/// 127.0.0.<n>:5432.

} } // namespace BlueTusk::Test

#endif // BlueTusk_PoolTestSupport_INCLUDED
