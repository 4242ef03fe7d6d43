//
// PluginTest.cpp
//
// The RoutingContext's plugin handling: the standard libraries found along the search path, a site plugin
// (built only for the tests) loaded by path and selected by name with no change to Routing, and the error
// for a name no plugin provides.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/PluginRegistry.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string reversePluginPath()
{
	return std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestReverseHostOrder.so";
}

} // namespace


class PluginTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PluginTest);
	CPPUNIT_TEST(testSearchPathOrder);
	CPPUNIT_TEST(testSitePluginByPath);
	CPPUNIT_TEST(testSitePluginByPluginPathSetting);
	CPPUNIT_TEST(testSitePluginNotVisibleToOtherConnectors);
	CPPUNIT_TEST(testUnknownHostOrderInConnectionString);
	CPPUNIT_TEST(testPolicyNamesIgnoreCase);
	CPPUNIT_TEST(testLoadPluginErrors);
	CPPUNIT_TEST(testPolicyOutlivesConnector);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSearchPathOrder()
	{
		RoutingContext context;
		std::vector<std::string> path = context.searchPath({"/site/plugins"});
		CPPUNIT_ASSERT(path.size() >= 3);
		CPPUNIT_ASSERT_EQUAL(std::string(BLUETUSK_PLUGIN_BUILD_DIR), path.front()); // the library's own plugins first
		CPPUNIT_ASSERT_EQUAL(std::string("/site/plugins"), path[1]);
		CPPUNIT_ASSERT_EQUAL(pluginInstallDirectory(), path.back());
	}

	void testSitePluginByPath()
	{
		auto world = std::make_shared<FakeWorld>();
		RoutingContext context(std::make_shared<FakeSessionFactory>(world));
		std::vector<std::string> before = context.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(before.begin(), before.end(), "reverse") == before.end());

		context.loadPlugin(reversePluginPath());
		context.loadPlugin(reversePluginPath()); // harmless the second time
		std::vector<std::string> after = context.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(after == std::vector<std::string>({"parallel", "random", "reverse", "sequential"}));

		BlueTuskConnection connection = BlueTuskConnection::open(fakeConnectionString("a,b,c", "Host Order=reverse"), context);
		CPPUNIT_ASSERT_EQUAL(std::string("c"), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(0, world->opens("a:5432"));
		CPPUNIT_ASSERT_EQUAL(0, world->opens("b:5432"));
		CPPUNIT_ASSERT_EQUAL(1, world->opens("c:5432"));

		// The router still applies its rules on top of the site's order: target primary skips the standby c.
		world->script("c:5432", FakeHost::standby());
		BlueTuskConnection second = BlueTuskConnection::open(fakeConnectionString("a,b,c", "Host Order=reverse;Target Session Attributes=primary"), context);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), second.connectedEndpoint().host());
	}

	void testSitePluginByPluginPathSetting()
	{
		RoutingContext context(std::make_shared<FakeSessionFactory>());
		BlueTuskConnection connection = BlueTuskConnection::open(
			fakeConnectionString("a,b", "Host Order=reverse;Plugin Path=" + std::string(BLUETUSK_TEST_PLUGIN_DIR)), context);
		CPPUNIT_ASSERT_EQUAL(std::string("b"), connection.connectedEndpoint().host());
	}

	void testSitePluginNotVisibleToOtherConnectors()
	{
		RoutingContext one;
		one.loadPlugin(reversePluginPath());
		RoutingContext two;
		std::vector<std::string> names = two.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "reverse") == names.end());
		// Copies share the registries.
		RoutingContext copy(one);
		CPPUNIT_ASSERT_EQUAL(std::string("reverse"), copy.hostOrderPolicy("reverse")->name());
	}

	void testUnknownHostOrderInConnectionString()
	{
		auto world = std::make_shared<FakeWorld>();
		RoutingContext context(std::make_shared<FakeSessionFactory>(world));
		try
		{
			BlueTuskConnection::open(fakeConnectionString("a,b", "Host Order=fastest"), context);
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("no host order policy named \"fastest\"; available: parallel, random, sequential"), exc.message());
		}
		CPPUNIT_ASSERT_EQUAL(0, world->totalOpens());
	}

	void testPolicyNamesIgnoreCase()
	{
		RoutingContext context(std::make_shared<FakeSessionFactory>());
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), context.hostOrderPolicy("Parallel")->name());
		CPPUNIT_ASSERT(context.hostOrderPolicy("PARALLEL") == context.hostOrderPolicy("parallel"));
		CPPUNIT_ASSERT_EQUAL(std::string("prefer-standby"), context.targetSessionPolicy("Prefer-Standby")->name());
	}

	void testLoadPluginErrors()
	{
		RoutingContext context;
		try
		{
			context.loadPlugin("/nonexistent/libNothing.so");
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("libNothing") != std::string::npos);
		}
		try
		{
			// A shared library without a BlueTusk manifest.
			context.loadPlugin(std::string(BLUETUSK_BINARY_DIR) + "/lib/libBlueTuskFoundation.so");
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("libBlueTuskFoundation.so") != std::string::npos);
		}
	}

	void testPolicyOutlivesConnector()
	{
		HostOrderPolicy::Ptr policy;
		{
			RoutingContext context;
			context.loadPlugin(reversePluginPath());
			policy = context.hostOrderPolicy("reverse");
		}
		// The plugin library stays loaded while the policy lives.
		CPPUNIT_ASSERT_EQUAL(std::string("reverse"), policy->name());
		std::vector<HostCandidate> candidates(2);
		CPPUNIT_ASSERT(policy->plan(candidates).order == std::vector<std::size_t>({1, 0}));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PluginTest);
