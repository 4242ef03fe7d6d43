//
// PluginSearchPathTest.cpp
//
// The plugin search path order and the lookup of lib<name>.so along it.
//

#include "BlueTusk/PluginRegistry.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;

namespace {

void touch(const std::string& path)
{
	Poco::FileOutputStream out(path);
	out << "x";
}

} // namespace


class PluginSearchPathTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PluginSearchPathTest);
	CPPUNIT_TEST(testOrder);
	CPPUNIT_TEST(testEmptyAndRepeatedEntries);
	CPPUNIT_TEST(testDirectories);
	CPPUNIT_TEST(testFindInDirectories);
	CPPUNIT_TEST(testFileEntries);
	CPPUNIT_TEST(testStandardNames);
	CPPUNIT_TEST(testMissingMessage);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_dir = Poco::TemporaryFile::tempName();
		Poco::File(_dir + "/first").createDirectories();
		Poco::File(_dir + "/second").createDirectories();
	}

	void tearDown()
	{
		Poco::File(_dir).remove(true);
	}

	void testOrder()
	{
		const std::vector<std::string> path = pluginSearchPath({"/site/a", "/site/b"}, "/env/c:/env/d");
		// The library's own plugin directory first, then the setting, the environment, the install directory.
		const std::vector<std::string> expected = {pluginRelocatedDirectory(), "/site/a", "/site/b", "/env/c", "/env/d", pluginInstallDirectory()};
		CPPUNIT_ASSERT(path == expected);
	}

	void testEmptyAndRepeatedEntries()
	{
		const std::vector<std::string> path = pluginSearchPath({"", "/site/a"}, "::/site/a: /env/c :");
		const std::vector<std::string> expected = {pluginRelocatedDirectory(), "/site/a", "/env/c", pluginInstallDirectory()};
		CPPUNIT_ASSERT(path == expected);
	}

	void testDirectories()
	{
		CPPUNIT_ASSERT(Poco::Path(pluginInstallDirectory()).isAbsolute());
		CPPUNIT_ASSERT(pluginInstallDirectory().find("bluetusk/plugins") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(std::string(BLUETUSK_PLUGIN_BUILD_DIR), pluginBuildDirectory());
		CPPUNIT_ASSERT(pluginBuildDirectory().find("/lib/bluetusk/plugins") != std::string::npos);
		// The suites load the build tree's libraries: their own plugin directory is the build tree's.
		CPPUNIT_ASSERT_EQUAL(pluginBuildDirectory(), pluginRelocatedDirectory());
		CPPUNIT_ASSERT_EQUAL(std::string("libBlueTuskHostOrderPlugin.so"), pluginLibraryFileName(HOST_ORDER_PLUGIN_LIBRARY));
	}

	void testFindInDirectories()
	{
		touch(_dir + "/second/libBlueTuskEvictionPlugin.so");
		const std::vector<std::string> path = {_dir + "/missing", _dir + "/first", _dir + "/second"};
		CPPUNIT_ASSERT_EQUAL(_dir + "/second/libBlueTuskEvictionPlugin.so", findPluginLibrary(path, EVICTION_PLUGIN_LIBRARY));
		CPPUNIT_ASSERT_EQUAL(std::string(), findPluginLibrary(path, HOST_ORDER_PLUGIN_LIBRARY));

		touch(_dir + "/first/libBlueTuskEvictionPlugin.so");
		CPPUNIT_ASSERT_EQUAL(_dir + "/first/libBlueTuskEvictionPlugin.so", findPluginLibrary(path, EVICTION_PLUGIN_LIBRARY));
		CPPUNIT_ASSERT_EQUAL(_dir + "/missing, " + _dir + "/first, " + _dir + "/second", describePluginSearchPath(path));
		CPPUNIT_ASSERT_EQUAL(std::string("(empty)"), describePluginSearchPath({}));
		// The file's own name, with or without the suffix, finds it too; a name that is neither is not guessed.
		CPPUNIT_ASSERT_EQUAL(_dir + "/first/libBlueTuskEvictionPlugin.so", findPluginLibrary(path, "libBlueTuskEvictionPlugin"));
		CPPUNIT_ASSERT_EQUAL(_dir + "/first/libBlueTuskEvictionPlugin.so", findPluginLibrary(path, "libBlueTuskEvictionPlugin.so"));
		CPPUNIT_ASSERT_EQUAL(std::string(), findPluginLibrary(path, "libBlueTuskEviction"));
	}

	void testFileEntries()
	{
		touch(_dir + "/first/libBlueTuskHostOrderPlugin.so");
		touch(_dir + "/second/libSitePolicies.so");
		touch(_dir + "/second/libBlueTuskHostOrderPlugin.so");
		const std::vector<std::string> path = {_dir + "/second/libSitePolicies.so", _dir + "/second/libBlueTuskHostOrderPlugin.so", _dir + "/first"};
		// a file entry with the right name comes before the directory that follows it
		CPPUNIT_ASSERT_EQUAL(_dir + "/second/libBlueTuskHostOrderPlugin.so", findPluginLibrary(path, HOST_ORDER_PLUGIN_LIBRARY));
		CPPUNIT_ASSERT_EQUAL(_dir + "/second/libSitePolicies.so", findPluginLibrary(path, "SitePolicies"));
		const std::vector<std::string> files = {_dir + "/second/libSitePolicies.so", _dir + "/second/libBlueTuskHostOrderPlugin.so"};
		CPPUNIT_ASSERT(pluginLibraryFiles(path) == files);
	}

	void testStandardNames()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskHostOrderPlugin"), std::string(HOST_ORDER_PLUGIN_LIBRARY));
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskTargetSessionPlugin"), std::string(TARGET_SESSION_PLUGIN_LIBRARY));
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskEvictionPlugin"), std::string(EVICTION_PLUGIN_LIBRARY));
		const std::vector<std::string> standard = {"BlueTuskHostOrderPlugin", "BlueTuskTargetSessionPlugin", "BlueTuskEvictionPlugin",
			"BlueTuskRetryPlugin", "BlueTuskTopologyPlugin"};
		CPPUNIT_ASSERT(standardPluginLibraries() == standard);
	}

	void testMissingMessage()
	{
		const std::vector<std::string> path = {_dir + "/first", _dir + "/second"};
		CPPUNIT_ASSERT_EQUAL("a standard plugin library is missing: libBlueTuskTargetSessionPlugin.so not found (searched " +
			_dir + "/first, " + _dir + "/second)", standardPluginsMissingMessage({"libBlueTuskTargetSessionPlugin.so not found"}, path));
		CPPUNIT_ASSERT_EQUAL(std::string("standard plugin libraries are missing: libA.so not found; /x/libB.so: no manifest (searched (empty))"),
			standardPluginsMissingMessage({"libA.so not found", "/x/libB.so: no manifest"}, {}));
	}

private:
	std::string _dir;
};

CPPUNIT_TEST_SUITE_REGISTRATION(PluginSearchPathTest);
