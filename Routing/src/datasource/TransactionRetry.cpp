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
#include "BlueTusk/PluginRegistry.h"
#include "BlueTusk/RoutingContext.h"
#include "router/HostOrderCall.h"
#include "router/PolicyCallBound.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include "Poco/Thread.h"
#include <functional>
#include <memory>
#include <utility>

namespace BlueTusk {

namespace {

bool readOnlySqlTransaction(const Poco::Exception& exc)
	/// SQLSTATE 25006: the server would not take a write (a standby, or a primary made read-only).
{
	const BlueTuskServerException* server = dynamic_cast<const BlueTuskServerException*>(&exc);
	return server && server->sqlState() == "25006";
}


bool retryable(const Poco::Exception& exc, bool readOnlyWork, RetryCause& cause)
	/// The RetryCause of exc, or false when exc must reach the caller as it is.
{
	// 25006 in a transaction the unit of work declared read-only is its own doing: any server answers the same.
	if (readOnlyWork && readOnlySqlTransaction(exc)) return false;
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


template <class R>
R askRetryPolicy(const RetryPolicy& policy, const char* function, const ConnectionSettings& settings, const std::string& after,
	std::function<R()> call)
	/// call() into the retry policy; whatever it throws becomes a BlueTuskPluginException naming the family,
	/// the policy and its library, logged on BlueTusk.Routing (doc/plugin-calls.md, "Where and how policies are
	/// called"). No lease is held while a retry policy runs. A site policy (its code not in the standard
	/// retry library) is called through PolicyCallBound, within Checkout Timeout (or Timeout, else 15 s) of
	/// the call's start: past it the call is abandoned (it keeps using the policy object, which must
	/// outlive it: a routing context's policies do), logged once, and the unit of work ends with the
	/// BlueTuskPluginException saying so.
{
	const SecretRedactor redactor = settings.redactor();
	const auto description = [&policy]() { return describePolicy("retry", [&policy]() { return policy.name(); }, &policy); };
	std::exception_ptr thrown;
	R result{};
	if (Detail::codeIsInLibrary(&policy, RETRY_PLUGIN_LIBRARY))
	{
		try
		{
			result = call();
		}
		catch (...)
		{
			thrown = std::current_exception();
		}
	}
	else
	{
		Detail::PolicyCallLimit limit = Detail::PolicyDeadline::forCheckout(settings.checkoutTimeout, settings.connectTimeout, redactor);
		limit.deadlineText = limit.deadlineText + after;
		result = Detail::PolicyCallBound::call<R>(std::move(call), limit, description, std::string(function) + "()", thrown, &policy);
	}
	if (!thrown) return result;
	const std::string message = redactor.redact(description() + " failed in " + function + "(): " + describeThrown(thrown) + after);
	Poco::Logger::get("BlueTusk.Routing").error(message);
	throw BlueTuskPluginException(message);
}

} // namespace


unsigned BlueTuskDataSource::runInTransaction(const UnitOfWork& work, const std::string& retryPolicy, const TransactionOptions& options)
{
	RetryPolicy::Ptr policy = routingContext().retryPolicy(retryPolicy);
	return runInTransaction(work, *policy, options);
}


unsigned BlueTuskDataSource::runInTransaction(const UnitOfWork& work, const RetryPolicy& retryPolicy, const TransactionOptions& options)
{
	// a unit of work that may write needs a writable server, whatever the data source's
	// own target (before, a standby first in the host list took the INSERTs: 42P01 or 25006). One declared
	// read-only goes where the data source's reads go.
	return runInTransaction(options.readOnly ? settings().targetSessionAttributes : TargetSessionAttributes::ReadWrite,
		work, retryPolicy, options);
}


unsigned BlueTuskDataSource::runInTransaction(TargetSessionAttributes target, const UnitOfWork& work, const std::string& retryPolicy,
	const TransactionOptions& options)
{
	RetryPolicy::Ptr policy = routingContext().retryPolicy(retryPolicy);
	return runInTransaction(target, work, *policy, options);
}


unsigned BlueTuskDataSource::runInTransaction(TargetSessionAttributes target, const UnitOfWork& work, const RetryPolicy& retryPolicy,
	const TransactionOptions& options)
{
	Poco::Logger& logger = Poco::Logger::get("BlueTusk.Routing");
	TransactionOptions resolving = options;
	if (!resolving.outcomeResolver) resolving.outcomeResolver = outcomeResolver();
	const ConnectionSettings& config = settings();
	const RetryPolicy* const policy = &retryPolicy;   // a late call uses it: the caller keeps it alive (above)
	const Poco::Timespan budget = askRetryPolicy<Poco::Timespan>(retryPolicy, "budget", config, "", [policy]() { return policy->budget(); });
	Poco::Clock started;
	for (unsigned attempt = 1;; ++attempt)
	{
		std::unique_ptr<Poco::Exception> failure;
		bool endedByWork = false;
		try
		{
			BlueTuskConnection lease = open(target);
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
		if (!retryable(*failure, options.readOnly, cause) || (endedByWork && cause != RetryCause::RolledBackAtCommit)) failure->rethrow();
		// A server that refused a write (25006): the next attempts go to a writable one, never to a standby
		// again (under a kill -9 of the primary, 209 of 215 units of work with target any failed,
		// each retry landing on a standby).
		const bool toWritable = readOnlySqlTransaction(*failure) && target != TargetSessionAttributes::ReadWrite;
		if (toWritable) target = TargetSessionAttributes::ReadWrite;
		RetryContext context;
		context.attempt = attempt;
		context.cause = cause;
		context.readOnly = options.readOnly;
		context.elapsed = Poco::Timespan(started.elapsed());
		const std::pair<bool, Poco::Timespan> answer = askRetryPolicy<std::pair<bool, Poco::Timespan>>(retryPolicy, "retry", config,
			"; the unit of work failed with: " + failure->displayText(), [policy, context]()
			{
				Poco::Timespan wait;
				const bool again = policy->retry(context, wait);
				return std::make_pair(again, wait);
			});
		const bool again = answer.first;
		const Poco::Timespan delay = answer.second;
		if (!again) failure->rethrow();
		if (context.elapsed + delay >= budget)
		{
			logger.information("not retrying the unit of work after attempt %u (%s): the %s retry budget of %s ms would run out",
				attempt, toString(cause), retryPolicy.name(), std::to_string(budget.totalMilliseconds()));
			failure->rethrow();
		}
		logger.information("retrying the unit of work (attempt %u failed: %s, %s) in %s ms%s", attempt, toString(cause),
			failure->displayText(), std::to_string(delay.totalMilliseconds()), std::string(toWritable ? " on a writable server (read-write)" : ""));
		if (delay.totalMilliseconds() > 0) Poco::Thread::sleep(static_cast<long>(delay.totalMilliseconds()));
	}
}

} // namespace BlueTusk
