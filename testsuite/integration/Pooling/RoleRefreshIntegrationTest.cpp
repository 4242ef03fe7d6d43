//
// RoleRefreshIntegrationTest.cpp
//
// What PostgreSQL 15 sends for the role refresh of a pooled session (doc/pooling.md, "Role refresh"): a
// session on node 2 that ran nothing (no reset pending) is held while node 2 is promoted; nothing arrives
// by itself (role() still standby), then a bare Sync is answered by ParameterStatus in_hot_standby=off
// and ReadyForQuery: refreshRole() gives primary without running a statement, and the session is still
// "as new" (ranSinceReset() false). The cluster is reset afterwards.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include "TestEnvironment.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;


class RoleRefreshIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RoleRefreshIntegrationTest);
	CPPUNIT_TEST(testBareSyncReportsPromotion);
	CPPUNIT_TEST_SUITE_END();

public:
	void testBareSyncReportsPromotion()
	{
		struct Reset
		{
			~Reset() { cluster().runClusterCommand("reset"); }
		} reset;
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(cluster().hosts.at(1), "Maximum Pool Size=1;Timeout=10"), connector);
		BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::Standby);
		Session& session = lease.session();
		CPPUNIT_ASSERT(session.role() == ServerRole::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("on"), session.parameterStatus("in_hot_standby"));
		CPPUNIT_ASSERT(!session.control().ranSinceReset());
		CPPUNIT_ASSERT(session.control().refreshRole() == ServerRole::Standby);   // the Sync on a standby: still on

		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("promote 2"));
		CPPUNIT_ASSERT(session.role() == ServerRole::Standby);   // an idle session hears nothing by itself
		CPPUNIT_ASSERT(session.control().refreshRole() == ServerRole::Primary);
		CPPUNIT_ASSERT_EQUAL(std::string("off"), session.parameterStatus("in_hot_standby"));
		CPPUNIT_ASSERT(!session.control().ranSinceReset());   // the Sync ran no statement
		CPPUNIT_ASSERT(!session.control().isResetPending());
		CPPUNIT_ASSERT_EQUAL(std::string("f"), lease.executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(RoleRefreshIntegrationTest);
