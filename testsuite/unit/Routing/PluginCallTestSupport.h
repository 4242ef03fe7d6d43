//
// PluginCallTestSupport.h
//
// What the suites that break site policies on purpose share (TargetSessionCallTest, PolicyCallTest): the
// path of a test plugin, the message of the BlueTuskPluginException a call throws, a log line search.
//

#ifndef BlueTusk_Test_PluginCallTestSupport_INCLUDED
#define BlueTusk_Test_PluginCallTestSupport_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "CapturingChannel.h"
#include <cppunit/extensions/HelperMacros.h>
#include <dlfcn.h>
#include <string>

namespace BlueTusk {
namespace Test {

inline std::string testPluginPath(const std::string& library)
	/// The test plugin library (testsuite/plugins) as built into BLUETUSK_TEST_PLUGIN_DIR.
{
	return std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/" + library;
}


const std::string MISBEHAVING_TARGET_LIBRARY = "libBlueTuskTestMisbehavingTargetSession.so";
	/// The test target-session plugin that throws, sleeps or never returns on request
	/// (testsuite/plugins/MisbehavingTargetSession.cpp).


inline std::string misbehavingTargetPath()
	/// MISBEHAVING_TARGET_LIBRARY as built (testPluginPath()).
{
	return testPluginPath(MISBEHAVING_TARGET_LIBRARY);
}


template <class Function>
Function pluginControl(const std::string& library, const char* name)
	/// One of a test plugin's extern "C" functions (library: its path; it is loaded by then, from its private
	/// copy: openPluginImage() names the copy the process opened).
{
	const std::string loaded = openPluginImage(library, "test plugin library").loadedFile;
	void* handle = dlopen(loaded.c_str(), RTLD_NOW | RTLD_NOLOAD);
	CPPUNIT_ASSERT_MESSAGE(library + " is not loaded", handle != nullptr);
	void* symbol = dlsym(handle, name);
	dlclose(handle);
	CPPUNIT_ASSERT_MESSAGE(name, symbol != nullptr);
	return reinterpret_cast<Function>(symbol);
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
