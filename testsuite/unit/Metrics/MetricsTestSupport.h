//
// MetricsTestSupport.h
//
// What the Metrics unit tests share: reading one sample out of a text exposition.
//

#ifndef BlueTusk_Test_MetricsTestSupport_INCLUDED
#define BlueTusk_Test_MetricsTestSupport_INCLUDED

#include <sstream>
#include <string>

namespace BlueTusk {
namespace Test {

inline std::string sample(const std::string& text, const std::string& prefix)
	/// The value of the exposition line that starts with prefix ("name{labels}"), or "missing".
{
	std::istringstream lines(text);
	std::string line;
	while (std::getline(lines, line))
	{
		if (line.compare(0, prefix.size(), prefix) == 0 && line.size() > prefix.size() && line[prefix.size()] == ' ')
			return line.substr(prefix.size() + 1);
	}
	return "missing";
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_MetricsTestSupport_INCLUDED
