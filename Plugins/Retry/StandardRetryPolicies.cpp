//
// StandardRetryPolicies.cpp
//
// Library: BlueTusk/Plugins/Retry
//

#include "StandardRetryPolicies.h"
#include <algorithm>
#include <random>

namespace BlueTusk {

const Poco::Timespan BackoffRetryPolicy::FIRST_DELAY(0, 50000);
const Poco::Timespan BackoffRetryPolicy::MAX_DELAY(1, 0);
const Poco::Timespan BackoffRetryPolicy::BUDGET(30, 0);


std::string BackoffRetryPolicy::name() const
{
	return "default";
}


bool BackoffRetryPolicy::retry(const RetryContext& context, Poco::Timespan& delay) const
{
	return backoff(context, delay);
}


Poco::Timespan BackoffRetryPolicy::budget() const
{
	return BUDGET;
}


bool BackoffRetryPolicy::backoff(const RetryContext& context, Poco::Timespan& delay) const
{
	if (context.attempt >= MAX_ATTEMPTS) return false;
	Poco::Timespan::TimeDiff ceiling = FIRST_DELAY.totalMicroseconds();
	for (unsigned i = 1; i < context.attempt && ceiling < MAX_DELAY.totalMicroseconds(); ++i) ceiling *= 2;
	ceiling = std::min(ceiling, MAX_DELAY.totalMicroseconds());
	thread_local std::minstd_rand generator(std::random_device{}());
	std::uniform_int_distribution<Poco::Timespan::TimeDiff> jitter(ceiling / 2, ceiling);
	delay = Poco::Timespan(jitter(generator));
	return true;
}


std::string NoRetryPolicy::name() const
{
	return "no-retry";
}


bool NoRetryPolicy::retry(const RetryContext&, Poco::Timespan& delay) const
{
	delay = 0;
	return false;
}


Poco::Timespan NoRetryPolicy::budget() const
{
	return 0;
}


std::string ReadOnlyRetryPolicy::name() const
{
	return "read-only";
}


bool ReadOnlyRetryPolicy::retry(const RetryContext& context, Poco::Timespan& delay) const
{
	return context.readOnly && backoff(context, delay);
}

} // namespace BlueTusk
