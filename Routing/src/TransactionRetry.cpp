//
// TransactionRetry.cpp
//
// Library: BlueTusk/Routing
//
// BlueTuskDataSource::runInTransaction(): a unit of work re-run on a fresh lease after a retryable failure,
// never after a commit that succeeded or whose outcome is unknown (doc/outcomes.md, "Retrying").
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Connector.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include "Poco/Thread.h"
#include <memory>

namespace BlueTusk {

namespace {

bool retryable(const Poco::Exception& exc, RetryCause& cause)
	/// The RetryCause of exc, or false when exc must reach the caller as it is.
{
	if (dynamic_cast<const BlueTuskCommitOutcomeUnknownException*>(&exc)) return false;   // may have committed
	if (dynamic_cast<const BlueTuskTransactionRolledBackException*>(&exc))
	{
		cause = RetryCause::RolledBackAtCommit;
		return true;
	}
	if (const BlueTuskServerException* server = dynamic_cast<const BlueTuskServerException*>(&exc))
	{
		const std::string& state = server->sqlState();
		if (state == "40001") cause = RetryCause::SerializationFailure;
		else if (state == "40P01") cause = RetryCause::Deadlock;
		// The server went away (57P01 admin shutdown, class 08, ...), or a former primary now refuses writes.
		else if (server->isAvailabilityError() || !server->sessionUsable() || state == "25006") cause = RetryCause::Failover;
		else return false;
		return true;
	}
	if (dynamic_cast<const BlueTuskSessionBrokenException*>(&exc) || dynamic_cast<const BlueTuskNoAcceptableHostException*>(&exc) ||
		dynamic_cast<const BlueTuskPoolTimeoutException*>(&exc) || dynamic_cast<const BlueTuskTransportException*>(&exc))
	{
		cause = RetryCause::Failover;
		return true;
	}
	return false;
}

} // namespace


unsigned BlueTuskDataSource::runInTransaction(const UnitOfWork& work, const std::string& retryPolicy, const TransactionOptions& options)
{
	RetryPolicy::Ptr policy = connector().retryPolicy(retryPolicy);
	return runInTransaction(work, *policy, options);
}


unsigned BlueTuskDataSource::runInTransaction(const UnitOfWork& work, const RetryPolicy& retryPolicy, const TransactionOptions& options)
{
	Poco::Logger& logger = Poco::Logger::get("BlueTusk.Routing");
	TransactionOptions resolving = options;
	if (!resolving.outcomeResolver) resolving.outcomeResolver = outcomeResolver();
	const Poco::Timespan budget = retryPolicy.budget();
	Poco::Clock started;
	for (unsigned attempt = 1;; ++attempt)
	{
		std::unique_ptr<Poco::Exception> failure;
		bool endedByWork = false;
		try
		{
			BlueTuskConnection lease = open();
			Transaction transaction(lease.session(), resolving);
			try
			{
				work(lease, transaction);
			}
			catch (...)
			{
				endedByWork = !transaction.isActive();
				throw;
			}
			if (transaction.isActive()) transaction.commit();
			return attempt;
		}
		catch (Poco::Exception& exc)
		{
			failure.reset(exc.clone());
		}
		RetryCause cause = RetryCause::Failover;
		if (!retryable(*failure, cause) || (endedByWork && cause != RetryCause::RolledBackAtCommit)) failure->rethrow();
		RetryContext context;
		context.attempt = attempt;
		context.cause = cause;
		context.readOnly = options.readOnly;
		context.elapsed = Poco::Timespan(started.elapsed());
		Poco::Timespan delay;
		if (!retryPolicy.retry(context, delay)) failure->rethrow();
		if (context.elapsed + delay >= budget)
		{
			logger.information("not retrying the unit of work after attempt %u (%s): the %s retry budget of %s ms would run out",
				attempt, toString(cause), retryPolicy.name(), std::to_string(budget.totalMilliseconds()));
			failure->rethrow();
		}
		logger.information("retrying the unit of work (attempt %u failed: %s, %s) in %s ms", attempt, toString(cause),
			failure->displayText(), std::to_string(delay.totalMilliseconds()));
		if (delay.totalMilliseconds() > 0) Poco::Thread::sleep(static_cast<long>(delay.totalMilliseconds()));
	}
}

} // namespace BlueTusk
