//
// ConnectOptions.cpp
//
// bluetusk-connect.
//

#include "ConnectOptions.h"
#include "Poco/NumberParser.h"

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


int ConnectOptions::positiveNumber(const std::string& option, const std::string& value, int minimum)
{
	int number = 0;
	if (!Poco::NumberParser::tryParse(value, number) || number < minimum)
	{
		throw Poco::Util::InvalidArgumentException("--" + option + " needs a whole number >= " + std::to_string(minimum) + ", not \"" + value + "\"");
	}
	return number;
}

} } // namespace BlueTusk::Samples
