//
// RoutedOutcomeResolver.h
//
// Library: BlueTusk/Routing
//
// The commit outcome resolver that routes to the current primary (doc/outcomes.md).
//

#ifndef BlueTusk_RoutedOutcomeResolver_INCLUDED
#define BlueTusk_RoutedOutcomeResolver_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/Timespan.h"
#include <atomic>

namespace BlueTusk {

class BlueTusk_Routing_API RoutedOutcomeResolver: public CommitOutcomeResolver
	/// Resolves a lost COMMIT answer by asking the current primary: each attempt routes anew with
	/// Target Session Attributes=read-write under the data source's settings and connector (host order,
	/// learned host states, Failover Timeout: the promotion watch sees the new primary), on its own
	/// unpooled session (a pool may be exhausted or hold sessions to the dead server), and runs
	/// StatusAnswer::STATUS_SQL (and HISTORY_SQL after a timeline switch); judgeCommit() decides. "In
	/// progress", a failed route or query, ask again after a backoff (50 ms doubling to 1 s) until the
	/// timeout, then the answer is Unknown. The timeout is checked between attempts; one attempt is bounded
	/// by the settings (Timeout per host, Failover Timeout, Command Timeout), so the whole resolution takes at
	/// most timeout plus one attempt. Thread-safe; logs to "BlueTusk.Routing".
{
public:
	RoutedOutcomeResolver(const ConnectionSettings& settings, const RoutingContext& connector, const Poco::Timespan& timeout);
		/// settings: those of the data source (its target is replaced by read-write). timeout: > 0.
		/// Throws BlueTuskUsageException for a timeout <= 0.

	CommitOutcome resolve(const CommitRecord& record, std::string& explanation) override;

	int attemptsMade() const;
		/// Attempts made by the last resolve() (for tests and logs).

private:
	ConnectionSettings _settings;
	RoutingContext _connector;
	Poco::Timespan _timeout;
	std::atomic<int> _lastAttempts{0};
};

} // namespace BlueTusk

#endif // BlueTusk_RoutedOutcomeResolver_INCLUDED
