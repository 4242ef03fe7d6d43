//
// AddressAttempt.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/BlueTuskException.h"
#include "Poco/NumberFormatter.h"

namespace BlueTusk {

std::string AddressAttempt::outcomeName(Outcome outcome)
{
	switch (outcome)
	{
	case CONNECTED:      return "connected";
	case REFUSED:        return "refused";
	case TIMED_OUT:      return "timed out";
	case UNREACHABLE:    return "unreachable";
	case RESET:          return "reset";
	case CLOSED:         return "closed";
	case TLS_FAILURE:    return "TLS failure";
	case PROTOCOL_ERROR: return "protocol error";
	case SERVER_ERROR:   return "server error";
	case NOT_ATTEMPTED:  return "not attempted";
	case OTHER:          break;
	}
	return "error";
}


std::string AddressAttempt::toString() const
{
	std::string text = address + " " + outcomeName(outcome);
	if (!errorText.empty()) text += " (" + errorText + ")";
	text += " after " + Poco::NumberFormatter::format(elapsedMs, 1) + " ms";
	return text;
}

} // namespace BlueTusk
