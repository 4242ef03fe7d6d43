//
// PoolObserver.cpp
//
// Library: BlueTusk/Pooling
//

#include "BlueTusk/PoolObserver.h"
#include <time.h>

namespace BlueTusk {

namespace {

double secondsOf(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

} // namespace


PoolObserver::~PoolObserver()
{
}


void PoolObserver::splitBrainRefused(const BlueTuskHostEndpoint&)
{
}


void PoolObserver::setTicks(const std::atomic<std::int64_t>* ticks)
{
	_ticks = ticks;
}


double PoolObserver::preciseSeconds()
{
	return secondsOf(CLOCK_MONOTONIC);
}

} // namespace BlueTusk
