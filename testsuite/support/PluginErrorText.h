//
// PluginErrorText.h
//
// The message of the BlueTuskPluginException an action throws, for tests of the plugin loader's refusals.
//

#ifndef BlueTusk_Test_PluginErrorText_INCLUDED
#define BlueTusk_Test_PluginErrorText_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include <functional>
#include <string>

namespace BlueTusk { namespace Test {

inline std::string messageOf(const std::function<void()>& action)
	/// The message of the BlueTuskPluginException action throws, or "(no exception)". Other exceptions pass.
{
	try
	{
		action();
	}
	catch (BlueTuskPluginException& exc)
	{
		return exc.message();
	}
	return "(no exception)";
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_PluginErrorText_INCLUDED
