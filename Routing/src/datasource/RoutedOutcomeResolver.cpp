//
// RoutedOutcomeResolver.cpp
//
// Library: BlueTusk/Routing
//

#include "RoutedOutcomeResolver.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include "Poco/NumberFormatter.h"
#include "Poco/NumberParser.h"
#include "Poco/Thread.h"
#include <algorithm>

namespace BlueTusk {

namespace {

const Poco::Timespan FIRST_BACKOFF(0, 50000);
const Poco::Timespan MAX_BACKOFF(1, 0);


StatusAnswer askStatus(BlueTuskConnection& connection, const CommitRecord& record)
	/// One server's answer (STATUS_SQL, then HISTORY_SQL on another timeline). Throws what the session throws.
{
	StatusAnswer answer;
	answer.endpoint = connection.connectedEndpoint();
	try
	{
		QueryResult result = connection.execute(StatusAnswer::STATUS_SQL, {FieldValue(record.xid)});
		if (result.rows.size() != 1 || result.rows[0].size() != 2 || !result.rows[0][1])
			throw BlueTuskProtocolException("unexpected answer to pg_xact_status() from " + answer.endpoint.toString());
		answer.status = result.rows[0][0];
		unsigned timeline = 0;
		if (!Poco::NumberParser::tryParseHex(*result.rows[0][1], timeline))
			throw BlueTuskProtocolException("unexpected timeline \"" + *result.rows[0][1] + "\" from " + answer.endpoint.toString());
		answer.timeline = timeline;
	}
	catch (BlueTuskServerException& exc)
	{
		// pg_xact_status() of an xid the server never assigned: "transaction ID ... is in the future".
		if (exc.sqlState() != "22023" || exc.fields().message.find("in the future") == std::string::npos) throw;
		answer.xidInFuture = true;
		return answer;
	}
	if (record.timeline != 0 && answer.timeline > record.timeline)
	{
		try
		{
			QueryResult history = connection.execute(StatusAnswer::HISTORY_SQL, {FieldValue(StatusAnswer::historyFile(answer.timeline))});
			if (history.rows.size() == 1 && !history.rows[0].empty() && history.rows[0][0])
			{
				answer.historyReadable = true;
				answer.history = *history.rows[0][0];
			}
		}
		catch (BlueTuskServerException& exc)
		{
			// insufficient_privilege, or no such file (58P01): judged without the history.
			if (exc.sqlState() != "42501" && exc.sqlState() != "58P01") throw;
		}
	}
	return answer;
}

} // namespace


RoutedOutcomeResolver::RoutedOutcomeResolver(const ConnectionSettings& settings, const RoutingContext& connector, const Poco::Timespan& timeout):
	_settings(settings),
	_connector(connector),
	_timeout(timeout)
{
	if (timeout.totalMicroseconds() <= 0) throw BlueTuskUsageException("the commit outcome resolution timeout must be positive");
	_settings.targetSessionAttributes = TargetSessionAttributes::ReadWrite;
	_settings.targetSessionPolicy.clear();   // the primary, whatever site target the data source has
	_settings.pooling = false;
}


CommitOutcome RoutedOutcomeResolver::resolve(const CommitRecord& record, std::string& explanation)
{
	Poco::Logger& logger = Poco::Logger::get("BlueTusk.Routing");
	Poco::Clock started;
	Poco::Timespan backoff = FIRST_BACKOFF;
	std::string last;
	int attempts = 0;
	for (;;)
	{
		++attempts;
		try
		{
			BlueTuskConnection connection = BlueTuskConnection::open(_settings, _connector);
			StatusAnswer answer = askStatus(connection, record);
			std::string why;
			const CommitOutcome outcome = judgeCommit(record, answer, why);
			if (outcome != CommitOutcome::InProgress)
			{
				_lastAttempts = attempts;
				explanation = why;
				if (attempts > 1) explanation += " (attempt " + Poco::NumberFormatter::format(attempts) + "; before: " + last + ")";
				return outcome;
			}
			last = why;
		}
		catch (Poco::Exception& exc)
		{
			last = exc.displayText();
		}
		catch (std::exception& exc)
		{
			last = exc.what();
		}
		const Poco::Timespan elapsed(started.elapsed());
		if (elapsed >= _timeout)
		{
			_lastAttempts = attempts;
			explanation = "no writable server could answer within " + Poco::NumberFormatter::format(_timeout.totalMilliseconds()) +
				" ms (" + Poco::NumberFormatter::format(attempts) + " attempts; last: " + last + ")";
			return CommitOutcome::Unknown;
		}
		if (logger.debug()) logger.debug("commit outcome of %s: %s; asking again in %s ms", record.toString(), last,
			Poco::NumberFormatter::format(backoff.totalMilliseconds()));
		Poco::Thread::sleep(static_cast<long>(std::min(backoff, _timeout - elapsed).totalMilliseconds()) + 1);
		backoff = std::min(MAX_BACKOFF, backoff + backoff);
	}
}


int RoutedOutcomeResolver::attemptsMade() const
{
	return _lastAttempts;
}

} // namespace BlueTusk
