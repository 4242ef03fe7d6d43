//
// SplitBrainGuardTest.cpp
//
// A real split brain on the local cluster: node 2 is promoted while node 1 still runs as a primary (a
// failover manager that promoted a standby while the old primary was cut off). Both answer
// pg_is_in_recovery() = false; once BlueTusk has seen node 2 on its new timeline, a read-write checkout
// refuses node 1 (older timeline) and lands on node 2, and node 1's idle sessions are closed. The cluster
// is reset afterwards.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

class SplitBrainGuardTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SplitBrainGuardTest);
	CPPUNIT_TEST(testOlderTimelineRefused);
	CPPUNIT_TEST_SUITE_END();

public:
	void testOlderTimelineRefused()
	{
		struct Restore
		{
			~Restore()
			{
				cluster().runClusterCommand("reset");
			}
		} restore;
		const std::string port = std::to_string(cluster().port);
		const std::string node1 = "127.0.0.1:" + port, node2 = "127.0.0.2:" + port;
		RoutingContext connector;
		auto app = BlueTuskDataSource::create(cluster().connectionString("127.0.0.1,127.0.0.2,127.0.0.3",
			"SSL Mode=disable;Timeout=2;Target Session Attributes=read-write"), connector);
		{
			BlueTuskConnection lease = app->open();
			CPPUNIT_ASSERT_EQUAL(node1, lease.connectedEndpoint().toString());
		}
		const Poco::UInt32 before = connector.hostState(BlueTuskHostEndpoint("127.0.0.1", cluster().port)).primaryTimeline;
		CPPUNIT_ASSERT(before >= 1);

		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("promote 2"));   // node 1 keeps running as a primary
		// Another part of the application reaches node 2 (its host list starts there).
		auto other = BlueTuskDataSource::create(cluster().connectionString("127.0.0.2,127.0.0.1",
			"SSL Mode=disable;Timeout=2;Target Session Attributes=read-write"), connector);
		{
			BlueTuskConnection lease = other->open();
			CPPUNIT_ASSERT_EQUAL(node2, lease.connectedEndpoint().toString());
		}
		CPPUNIT_ASSERT_EQUAL(before + 1, connector.hostState(BlueTuskHostEndpoint("127.0.0.2", cluster().port)).primaryTimeline);

		// Node 1 still says it is a primary, but on the older timeline: refused, its idle session closed.
		CPPUNIT_ASSERT_EQUAL(1, app->getHostPoolStatistics().at(BlueTuskHostEndpoint("127.0.0.1", cluster().port)).idle);
		for (int i = 0; i < 3; ++i)
		{
			BlueTuskConnection lease = app->open();
			CPPUNIT_ASSERT_EQUAL(node2, lease.connectedEndpoint().toString());
			lease.executeSimple("CREATE TEMP TABLE guard_check (id int)");   // a write, on the new primary
		}
		CPPUNIT_ASSERT_EQUAL(0, app->getHostPoolStatistics().at(BlueTuskHostEndpoint("127.0.0.1", cluster().port)).total);

		// A data source that never saw node 1 before asks it for its timeline and refuses it.
		RoutingContext late;
		auto lateOther = BlueTuskDataSource::create(cluster().connectionString("127.0.0.2",
			"SSL Mode=disable;Timeout=2;Target Session Attributes=read-write"), late);
		lateOther->open().close();
		auto lateApp = BlueTuskDataSource::create(cluster().connectionString("127.0.0.1,127.0.0.2",
			"SSL Mode=disable;Timeout=2;Target Session Attributes=read-write"), late);
		BlueTuskConnection lease = lateApp->open();
		CPPUNIT_ASSERT_EQUAL(node2, lease.connectedEndpoint().toString());
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), lease.attemptLog().size());
		CPPUNIT_ASSERT_MESSAGE(lease.attemptLog()[0].detail, lease.attemptLog()[0].detail.find("split-brain guard") != std::string::npos);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(SplitBrainGuardTest);
