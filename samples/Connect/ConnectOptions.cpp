//
// ConnectOptions.cpp
//
// bluetusk-connect.
//

#include "ConnectOptions.h"
#include "Poco/NumberParser.h"
#include <limits>

namespace BlueTusk {
namespace Samples {

void ConnectOptions::check() const
{
	if (help || listPolicies) return;
	if (positional.empty()) throw Poco::Util::InvalidArgumentException("a connection string is required");
	if (positional.size() > 1)
	{
		throw Poco::Util::InvalidArgumentException("one connection string expected, got " + std::to_string(positional.size()) +
			" arguments (quote the connection string: 'Host=a,b;Username=app')");
	}
	if (threads > 1 && !pool) throw Poco::Util::InvalidArgumentException("--threads needs --pool");
	if (stats && !pool) throw Poco::Util::InvalidArgumentException("--stats needs --pool");
}


int ConnectOptions::positiveNumber(const std::string& option, const std::string& value, int minimum, int maximum)
{
	int number = 0;
	if (Poco::NumberParser::tryParse(value, number) && number >= minimum && number <= maximum) return number;
	const std::string accepted = std::to_string(minimum) + " to " + std::to_string(maximum);
	if (isWholeNumber(value))
	{
		// Digits that do not fit an int (or are below minimum): the value is a number, but not one accepted.
		throw Poco::Util::InvalidArgumentException("--" + option + " " + value + " is out of range (accepted: " + accepted + ")");
	}
	throw Poco::Util::InvalidArgumentException("--" + option + " needs a whole number >= " + std::to_string(minimum) +
		" (accepted: " + accepted + "), not \"" + value + "\"");
}


bool ConnectOptions::isWholeNumber(const std::string& value)
{
	std::size_t start = (!value.empty() && (value[0] == '-' || value[0] == '+')) ? 1 : 0;
	if (start == value.size()) return false;
	for (std::size_t i = start; i < value.size(); ++i)
	{
		if (value[i] < '0' || value[i] > '9') return false;
	}
	return true;
}

} } // namespace BlueTusk::Samples
