//
// PoolClock.cpp
//
// Library: BlueTusk/Pooling
//

#include "BlueTusk/PoolManager.h"

namespace BlueTusk {

PoolClock::~PoolClock()
{
}


Poco::Timestamp PoolClock::now() const
{
	return Poco::Timestamp();
}

} // namespace BlueTusk
