//
// PluginCallTestSupport.h
//
// What the suites that break site policies on purpose share (TargetSessionCallTest, PolicyCallTest): the
// path of a test plugin, the message of the BlueTuskPluginException a call throws, a log line search.
//

#ifndef BlueTusk_Test_PluginCallTestSupport_INCLUDED
#define BlueTusk_Test_PluginCallTestSupport_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "CapturingChannel.h"
#include <string>

namespace BlueTusk {
namespace Test {

inline std::string testPluginPath(const std::string& library)
	/// The test plugin library (testsuite/plugins) as built into BLUETUSK_TEST_PLUGIN_DIR.
{
	return std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/" + library;
}


template <class Call>
std::string pluginFailure(Call call)
	/// The message of the BlueTuskPluginException call() throws ("(no exception)", or the other type's text).
{
	try
	{
		call();
	}
	catch (BlueTuskPluginException& exc)
	{
		return exc.message();
	}
	catch (Poco::Exception& exc)
	{
		return "unexpected " + std::string(exc.className()) + ": " + exc.displayText();
	}
	catch (...)
	{
		return "unexpected non-Poco exception";
	}
	return "(no exception)";
}


inline int linesContaining(const LogCapture& capture, const std::string& text)
	/// How many captured log lines contain text.
{
	int count = 0;
	for (const std::string& line: capture.channel().lines())
	{
		if (line.find(text) != std::string::npos) ++count;
	}
	return count;
}


inline bool anyLineContains(const LogCapture& capture, const std::string& text)
{
	return linesContaining(capture, text) > 0;
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_PluginCallTestSupport_INCLUDED
