//
// HostAttempt.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/HostAttemptsException.h"

namespace BlueTusk {

std::string HostAttempt::toString() const
{
	std::string text = endpoint.toString() + ": ";
	text += detail.empty() ? outcomeName(outcome) : detail;
	return text;
}


std::string HostAttempt::detailedText() const
{
	std::string text = detail.empty() ? outcomeName(outcome) : detail;
	if (!nestedText.empty() && nestedText != detail) text += " [" + nestedText + "]";
	return text;
}


std::string HostAttempt::outcomeName(Outcome outcome)
{
	switch (outcome)
	{
	case ACCEPTED:          return "accepted";
	case FALLBACK_RETAINED: return "fallback retained";
	case FALLBACK_RELEASED: return "fallback released";
	case REJECTED:          return "rejected";
	case FAILED:            return "failed";
	case AUTH_FAILED:       return "authentication failed";
	case LOST_RACE:         return "lost race";
	}
	return "failed";
}

} // namespace BlueTusk
