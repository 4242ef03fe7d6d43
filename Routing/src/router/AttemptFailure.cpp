//
// AttemptFailure.cpp
//
// Library: BlueTusk/Routing
//

#include "AttemptFailure.h"
#include "BlueTusk/BlueTuskException.h"
#include <vector>

namespace BlueTusk {
namespace Detail {

namespace {

std::string outcomeText(const AddressAttempt& attempt, const ConnectionSettings& settings)
{
	if (attempt.outcome == AddressAttempt::TIMED_OUT)
	{
		long ms = settings.connectTimeout.totalMilliseconds() > 0
			? static_cast<long>(settings.connectTimeout.totalMilliseconds())
			: static_cast<long>(attempt.elapsedMs + 0.5);
		return "timed out after " + std::to_string(ms) + " ms";
	}
	if (attempt.outcome == AddressAttempt::SERVER_ERROR && !attempt.errorText.empty()) return attempt.errorText;
	// The cause in the field's words for what the outcome's name does not say: 'could not
	// translate host name "x" to address: ...', "TLS failure: server certificate verification failed: ..."
	if ((attempt.outcome == AddressAttempt::OTHER || attempt.outcome == AddressAttempt::TLS_FAILURE) && !attempt.errorText.empty())
	{
		static const std::size_t maxCause = 400;   // a file name in it is the user's: bounded
		std::string cause = attempt.errorText.size() > maxCause ? attempt.errorText.substr(0, maxCause) + "..." : attempt.errorText;
		return attempt.outcome == AddressAttempt::OTHER ? cause : AddressAttempt::outcomeName(attempt.outcome) + ": " + cause;
	}
	return AddressAttempt::outcomeName(attempt.outcome);
}


std::string transportDetail(const BlueTuskTransportException& exc, const ConnectionSettings& settings)
{
	const AddressAttemptList& attempts = exc.attempts();
	if (attempts.empty()) return exc.message();
	std::vector<std::string> texts;
	bool same = true;
	for (const auto& attempt: attempts)
	{
		if (attempt.outcome == AddressAttempt::NOT_ATTEMPTED) continue;
		texts.push_back(outcomeText(attempt, settings));
		if (texts.size() > 1 && texts.back() != texts.front()) same = false;
	}
	if (texts.empty()) return outcomeText(attempts.front(), settings);
	if (same) return texts.front();
	std::string text;
	for (const auto& attempt: attempts)
	{
		if (!text.empty()) text += ", ";
		text += attempt.address + " " + outcomeText(attempt, settings);
	}
	return text;
}


bool isSqlStateAvailability(const std::string& sqlState)
{
	return sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" || sqlState.compare(0, 2, "08") == 0;
}

} // namespace


AttemptFailure AttemptFailure::classify(const Poco::Exception& exc, const ConnectionSettings& settings, bool cancelled)
{
	AttemptFailure failure;
	failure.fullText = exc.displayText();
	if (const auto* auth = dynamic_cast<const BlueTuskAuthenticationException*>(&exc))
	{
		failure.kind = AUTHENTICATION;
		failure.detail = auth->message().empty() ? std::string("authentication failed") : auth->message();
	}
	else if (const auto* server = dynamic_cast<const BlueTuskServerException*>(&exc))
	{
		const std::string& sqlState = server->sqlState();
		failure.detail = sqlState.empty() ? server->message() : sqlState + " " + server->fields().message;
		if (server->isAuthenticationError() || sqlState.compare(0, 2, "28") == 0) failure.kind = AUTHENTICATION;
		else if (sqlState == "53300") failure.kind = CAPACITY;   // before isAvailabilityError(), which counts it
		else if (server->isAvailabilityError() || isSqlStateAvailability(sqlState)) failure.kind = UNAVAILABLE;
		else failure.kind = SERVER_ERROR;
	}
	else if (const auto* transport = dynamic_cast<const BlueTuskTransportException*>(&exc))
	{
		failure.kind = UNAVAILABLE;
		failure.detail = transportDetail(*transport, settings);
	}
	else if (dynamic_cast<const BlueTuskSessionBrokenException*>(&exc))
	{
		failure.kind = UNAVAILABLE;
		failure.detail = "connection lost: " + exc.message();
	}
	else if (dynamic_cast<const BlueTuskProtocolException*>(&exc))
	{
		failure.kind = UNAVAILABLE;
		failure.detail = "protocol error: " + exc.message();
	}
	else if (dynamic_cast<const Poco::TimeoutException*>(&exc))
	{
		failure.kind = UNAVAILABLE;
		failure.detail = "timed out after " + std::to_string(static_cast<long>(settings.connectTimeout.totalMilliseconds())) + " ms";
	}
	else
	{
		failure.kind = UNAVAILABLE;
		failure.detail = exc.displayText();
	}
	if (cancelled && failure.kind != AUTHENTICATION)
	{
		failure.kind = CANCELLED;
		failure.detail = "cancelled (another endpoint won)";
	}
	return failure;
}

} } // namespace BlueTusk::Detail
