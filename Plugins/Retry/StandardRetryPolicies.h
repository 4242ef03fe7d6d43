//
// StandardRetryPolicies.h
//
// Library: BlueTusk/Plugins/Retry
//
// The standard retry policies (doc/outcomes.md, "Retrying"): "default", "no-retry" and "read-only".
//

#ifndef BlueTusk_StandardRetryPolicies_INCLUDED
#define BlueTusk_StandardRetryPolicies_INCLUDED

#include "BlueTusk/RetryPolicy.h"

namespace BlueTusk {

class BackoffRetryPolicy: public RetryPolicy
	/// "default": at most MAX_ATTEMPTS attempts in all, for every RetryCause; before attempt n+1 it waits a
	/// random time between half and all of min(FIRST_DELAY * 2^(n-1), MAX_DELAY) (equal jitter, so that
	/// writers failed by the same failover or deadlock do not come back in step); the attempts and waits
	/// of one unit of work take at most BUDGET. Thread-safe (the jitter comes from a per-thread generator).
{
public:
	static const unsigned MAX_ATTEMPTS = 5;
	static const Poco::Timespan FIRST_DELAY;   /// 50 ms
	static const Poco::Timespan MAX_DELAY;     /// 1 s
	static const Poco::Timespan BUDGET;        /// 30 s

	std::string name() const override;
	bool retry(const RetryContext& context, Poco::Timespan& delay) const override;
	Poco::Timespan budget() const override;

protected:
	bool backoff(const RetryContext& context, Poco::Timespan& delay) const;
		/// The schedule above.
};


class NoRetryPolicy: public RetryPolicy
	/// "no-retry": every failure reaches the caller at the first attempt.
{
public:
	std::string name() const override;
	bool retry(const RetryContext& context, Poco::Timespan& delay) const override;
	Poco::Timespan budget() const override;
};


class ReadOnlyRetryPolicy: public BackoffRetryPolicy
	/// "read-only": the default schedule for units of work declared read-only (TransactionOptions::readOnly);
	/// a read-write one is never re-run (for applications whose writes must not run twice however the
	/// outcome was resolved, e.g. they have effects outside the database).
{
public:
	std::string name() const override;
	bool retry(const RetryContext& context, Poco::Timespan& delay) const override;
};

} // namespace BlueTusk

#endif // BlueTusk_StandardRetryPolicies_INCLUDED
