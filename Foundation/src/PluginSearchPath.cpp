//
// PluginSearchPath.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/PluginRegistry.h"
#include "ValueText.h"
#include "Poco/DirectoryIterator.h"
#include "Poco/Environment.h"
#include "Poco/Exception.h"
#include "Poco/File.h"
#include "Poco/Path.h"
#include "Poco/SharedLibrary.h"
#include <algorithm>
#include <dlfcn.h>

#ifndef BLUETUSK_PLUGIN_INSTALL_DIR
#define BLUETUSK_PLUGIN_INSTALL_DIR "/usr/local/lib/bluetusk/plugins"
#endif
#ifndef BLUETUSK_PLUGIN_SUBDIR
#define BLUETUSK_PLUGIN_SUBDIR "bluetusk/plugins"
#endif
#ifndef BLUETUSK_PLUGIN_BUILD_DIR
#define BLUETUSK_PLUGIN_BUILD_DIR ""
#endif

namespace BlueTusk {

namespace {

void addEntry(std::vector<std::string>& path, const std::string& entry)
{
	const std::string trimmed = Detail::trim(entry);
	if (trimmed.empty()) return;
	if (std::find(path.begin(), path.end(), trimmed) == path.end()) path.push_back(trimmed);
}


bool isFile(const std::string& path)
{
	try
	{
		Poco::File file(path);
		return file.exists() && file.isFile();
	}
	catch (Poco::Exception&)
	{
		return false;
	}
}


bool isDirectory(const std::string& path)
{
	try
	{
		Poco::File file(path);
		return file.exists() && file.isDirectory();
	}
	catch (Poco::Exception&)
	{
		return false;
	}
}

} // namespace


std::vector<std::string> pluginSearchPath(const std::vector<std::string>& pluginPathSetting)
{
	return pluginSearchPath(pluginPathSetting, Poco::Environment::get("BLUETUSK_PLUGIN_PATH", ""));
}


std::vector<std::string> pluginSearchPath(const std::vector<std::string>& pluginPathSetting, const std::string& environmentValue)
{
	std::vector<std::string> path;
	addEntry(path, pluginRelocatedDirectory());
	for (const auto& entry: pluginPathSetting) addEntry(path, entry);
	for (const auto& entry: Detail::split(environmentValue, ':')) addEntry(path, entry);
	addEntry(path, pluginInstallDirectory());
	return path;
}


std::string pluginRelocatedDirectory()
{
	// The library that holds this function sits in <libdir> (build/lib in the build tree); the standard plugins
	// in <libdir>/bluetusk/plugins, wherever the tree was built, installed or moved to (cmake --install --prefix
	// X, a packaged copy).
	Dl_info info;
	if (dladdr(reinterpret_cast<void*>(&pluginRelocatedDirectory), &info) == 0 || !info.dli_fname) return std::string();
	try
	{
		Poco::Path library(info.dli_fname);
		library.makeAbsolute();
		std::string directory = library.parent().toString(); // ends with '/'
		if (directory.empty() || directory.back() != '/') directory += '/';
		return directory + BLUETUSK_PLUGIN_SUBDIR;
	}
	catch (Poco::Exception&)
	{
		return std::string();
	}
}


std::string pluginInstallDirectory()
{
	return BLUETUSK_PLUGIN_INSTALL_DIR;
}


std::string pluginBuildDirectory()
{
	return BLUETUSK_PLUGIN_BUILD_DIR;
}


std::string pluginLibraryFileName(const std::string& baseName)
{
	return "lib" + baseName + Poco::SharedLibrary::suffix();
}


std::string findPluginLibrary(const std::vector<std::string>& searchPath, const std::string& baseName)
{
	const std::string fileName = pluginLibraryFileName(baseName);
	for (const auto& entry: searchPath)
	{
		if (isFile(entry))
		{
			const std::string name = Poco::Path(entry).getFileName();
			if (name == fileName || name == baseName + Poco::SharedLibrary::suffix() || name == baseName) return entry;
		}
		else if (isDirectory(entry))
		{
			// "X" is libX.so; the file's own names "libX" and "libX.so" are taken too (a new user's reading).
			std::vector<std::string> names = {fileName};
			const std::string suffix = Poco::SharedLibrary::suffix();
			const bool hasSuffix = baseName.size() > suffix.size() && baseName.compare(baseName.size() - suffix.size(), suffix.size(), suffix) == 0;
			if (hasSuffix) names.push_back(baseName);
			else if (baseName.compare(0, 3, "lib") == 0) names.push_back(baseName + suffix);
			for (const std::string& name: names)
			{
				const std::string candidate = Poco::Path(Poco::Path::forDirectory(entry), name).toString();
				if (isFile(candidate)) return candidate;
			}
		}
	}
	return std::string();
}


std::vector<std::string> pluginLibraryFiles(const std::vector<std::string>& searchPath)
{
	std::vector<std::string> files;
	for (const auto& entry: searchPath)
	{
		if (isFile(entry)) files.push_back(entry);
	}
	return files;
}


bool isPluginFile(const std::string& path)
{
	return isFile(path);
}


bool isPluginDirectory(const std::string& path)
{
	return isDirectory(path);
}


std::vector<std::string> pluginLibrariesIn(const std::string& directory)
{
	std::vector<std::string> files;
	if (!isDirectory(directory)) return files;
	const std::string extension = Poco::SharedLibrary::suffix().substr(1);
	try
	{
		for (Poco::DirectoryIterator it(directory), end; it != end; ++it)
		{
			if (it->isFile() && Poco::Path(it->path()).getExtension() == extension) files.push_back(it->path());
		}
	}
	catch (Poco::Exception&)
	{
	}
	std::sort(files.begin(), files.end());
	return files;
}


std::string describePluginSearchPath(const std::vector<std::string>& searchPath)
{
	return searchPath.empty() ? std::string("(empty)") : Detail::join(searchPath, ", ");
}


const std::vector<std::string>& standardPluginLibraries()
{
	static const std::vector<std::string> libraries = {HOST_ORDER_PLUGIN_LIBRARY, TARGET_SESSION_PLUGIN_LIBRARY,
		EVICTION_PLUGIN_LIBRARY, RETRY_PLUGIN_LIBRARY, TOPOLOGY_PLUGIN_LIBRARY};
	return libraries;
}


std::string standardPluginsMissingMessage(const std::vector<std::string>& problems, const std::vector<std::string>& searchPath)
{
	return std::string(problems.size() == 1 ? "a standard plugin library is missing: " : "standard plugin libraries are missing: ") +
		Detail::join(problems, "; ") + " (searched " + describePluginSearchPath(searchPath) + ")";
}

} // namespace BlueTusk
