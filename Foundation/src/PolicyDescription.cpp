//
// PolicyDescription.cpp
//
// Library: BlueTusk/Foundation
//
// How messages name a policy object and what it threw (doc/plugin-calls.md, "Where and how policies are called").
//

#include "BlueTusk/PluginRegistry.h"
#include "Poco/Path.h"
#include <dlfcn.h>
#include <exception>

namespace BlueTusk {

std::string describePolicy(const std::string& family, const std::function<std::string()>& name, const void* object)
{
	std::string text = family + " policy";
	try
	{
		if (name) text += " \"" + name() + "\"";
	}
	catch (...)
	{
	}
	if (!object) return text;
	// The vtable of the object's class lives in the library that defines the class: the plugin's own.
	Dl_info info;
	const void* vtable = *static_cast<const void* const*>(object);
	if (dladdr(vtable, &info) != 0 && info.dli_fname && *info.dli_fname)
	{
		try
		{
			text += " (" + Poco::Path(info.dli_fname).getFileName() + ")";
		}
		catch (...)
		{
		}
	}
	return text;
}


std::string describeThrown(const std::exception_ptr& error)
{
	if (!error) return "no exception";
	try
	{
		std::rethrow_exception(error);
	}
	catch (const Poco::Exception& exc)
	{
		return exc.displayText();
	}
	catch (const std::exception& exc)
	{
		return std::string("std::exception: ") + exc.what();
	}
	catch (...)
	{
	}
	return "an exception that is neither a Poco::Exception nor a std::exception";
}

} // namespace BlueTusk
