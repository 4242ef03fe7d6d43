//
// PoolClock.cpp
//
// Library: BlueTusk/Pooling
//

#include "BlueTusk/PoolManager.h"
#include <time.h>

namespace BlueTusk {

PoolClock::~PoolClock()
{
}


Poco::Timestamp PoolClock::now() const
{
	// Pool times only decide idle and maximum lifetimes, which are whole seconds: the kernel's coarse clock
	// (a read of the last tick, resolution 1-4 ms) is enough and is several times cheaper than a precise
	// read, which the idle checkout path would otherwise pay on every return (doc/performance.md, R2).
#if defined(CLOCK_REALTIME_COARSE)
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) == 0)
		return Poco::Timestamp(static_cast<Poco::Timestamp::TimeVal>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000);
#endif
	return Poco::Timestamp();
}

} // namespace BlueTusk
