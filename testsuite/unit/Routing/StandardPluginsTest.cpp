//
// StandardPluginsTest.cpp
//
// The standard plugins can never go missing: the library finds them beside itself before any configured
// search path entry, so a data source in a process with no Plugin Path and no BLUETUSK_PLUGIN_PATH still
// has every standard policy ("primary" included). (The installed tree, and the failure when a standard
// plugin file is gone, are checked by the consumer test: testsuite/consumer/RunConsumer.cmake.)
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/PluginRegistry.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

class UnsetEnvironment
	/// Removes an environment variable for the lifetime of the object, then restores it.
{
public:
	explicit UnsetEnvironment(const std::string& name):
		_name(name)
	{
		const char* value = std::getenv(name.c_str());
		_had = value != nullptr;
		if (_had) _value = value;
		::unsetenv(name.c_str());
	}

	~UnsetEnvironment()
	{
		if (_had) ::setenv(_name.c_str(), _value.c_str(), 1);
	}

private:
	std::string _name;
	std::string _value;
	bool _had = false;
};

} // namespace


class StandardPluginsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(StandardPluginsTest);
	CPPUNIT_TEST(testOwnDirectoryComesFirst);
	CPPUNIT_TEST(testEveryStandardLibraryBesideTheLibrary);
	CPPUNIT_TEST(testDataSourceWithEmptySearchPath);
	CPPUNIT_TEST(testUnrelatedPluginPathKeepsTheStandardPolicies);
	CPPUNIT_TEST_SUITE_END();

public:
	void testOwnDirectoryComesFirst()
	{
		FakeRoutingContext fake;
		const std::vector<std::string> path = fake.context.searchPath({"/site/plugins"});
		CPPUNIT_ASSERT(path.size() >= 3);
		// The suites run against the build tree's libraries: their own directory is build/lib/bluetusk/plugins.
		CPPUNIT_ASSERT_EQUAL(std::string(BLUETUSK_PLUGIN_BUILD_DIR), pluginRelocatedDirectory());
		CPPUNIT_ASSERT_EQUAL(pluginRelocatedDirectory(), path[0]);
		CPPUNIT_ASSERT_EQUAL(std::string("/site/plugins"), path[1]);
		CPPUNIT_ASSERT_EQUAL(pluginInstallDirectory(), path.back());
	}

	void testEveryStandardLibraryBesideTheLibrary()
	{
		UnsetEnvironment unset("BLUETUSK_PLUGIN_PATH");
		const std::vector<std::string> path = pluginSearchPath({});
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), standardPluginLibraries().size());
		for (const auto& base: standardPluginLibraries())
		{
			const std::string expected = pluginRelocatedDirectory() + "/" + pluginLibraryFileName(base);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(base, expected, findPluginLibrary(path, base));
		}
	}

	void testDataSourceWithEmptySearchPath()
	{
		UnsetEnvironment unset("BLUETUSK_PLUGIN_PATH");
		FakeRoutingContext fake;
		fake.world->script("a:5432", FakeHost::standby());
		RoutingContext& context = fake.context;
		// No Plugin Path, no BLUETUSK_PLUGIN_PATH: only the library's own directory and the install directory.
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), context.searchPath({}).size());
		BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(fakeConnectionString("a,b", "Target Session Attributes=primary"), context);
		{
			BlueTuskConnection connection = dataSource->open();
			CPPUNIT_ASSERT_EQUAL(std::string("b"), connection.connectedEndpoint().host());
		}
		const std::vector<std::string> targets = context.policyNames(PolicyFamily::TargetSession);
		CPPUNIT_ASSERT((targets == std::vector<std::string>{"any", "prefer-primary", "prefer-standby", "primary", "read-only", "read-write", "standby"}));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), context.targetSessionPolicy("primary")->name());
		CPPUNIT_ASSERT((context.policyNames(PolicyFamily::HostOrder) == std::vector<std::string>{"parallel", "random", "sequential"}));
		CPPUNIT_ASSERT((context.policyNames(PolicyFamily::Eviction) == std::vector<std::string>{"standard"}));
		context.loadStandardPlugins(); // nothing missing: does not throw
	}

	void testUnrelatedPluginPathKeepsTheStandardPolicies()
	{
		// A Plugin Path that holds none of the standard libraries (an empty directory): they still come from
		// beside the library. (A Plugin Path entry that does not exist is an error: PluginLoadingTest.)
		Poco::TemporaryFile empty;
		empty.createDirectories();
		FakeRoutingContext fake;
		RoutingContext& context = fake.context;
		BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(
			fakeConnectionString("a", "Plugin Path=" + empty.path() + ";Target Session Attributes=read-write"), context);
		BlueTuskConnection connection = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::string("a"), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("read-write"), context.targetSessionPolicy("read-write")->name());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(StandardPluginsTest);
