//
// RoleRefreshFaultTest.cpp
//
// The role refresh of a pooled session handed to a targeted checkout (doc/pooling.md, "Role refresh") and
// the reset it may carry, over the project's fake backends (PostgreSQL 15's ParameterStatus behaviour:
// in_hot_standby reported in front of any ReadyForQuery once it changed, a bare Sync's included):
//   - a promotion while the session sat idle is caught by a bare Sync (no probe query, no reset when the
//     last lease ran nothing), and the checkout goes to the other standby;
//   - with Role Recheck Milliseconds, a role confirmed less than that ago is trusted without a round trip
//     (the trade-off: a promotion inside the window is not seen), and one older is re-checked;
//   - a lease that ran nothing leaves no reset for the next one; a lease that ran something does;
//   - each refresh's round trip over the real Transport is a query timing a host order sees
//     (HostCandidate::lastQueryMs, doc/plugins.md).
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "datasource/RoutingContextAccess.h"
#include "Poco/Thread.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

long countOf(const std::vector<std::string>& queries, const std::string& statement)
{
	return static_cast<long>(std::count(queries.begin(), queries.end(), statement));
}


long probesIn(const std::vector<std::string>& queries)
{
	return static_cast<long>(std::count_if(queries.begin(), queries.end(), [](const std::string& q) { return q.find("pg_is_in_recovery") != std::string::npos; }));
}


struct TwoStandbys
	/// Two fake standbys behind one data source (target standby, one session per endpoint); run() leases a
	/// session on the first, runs sql on it (none when empty) and returns it; promote() makes the first a
	/// primary while that session sits idle.
{
	FakeBackend first{BackendScript::standby(), "127.0.0.1"};
	FakeBackend second{BackendScript::standby(), "127.0.0.2"};
	RoutingContext connector;
	BlueTuskDataSource::Ptr dataSource;

	explicit TwoStandbys(const std::string& extra = std::string()):
		dataSource(BlueTuskDataSource::create("Host=" + first.hostAndPort() + "," + second.hostAndPort() +
			";Username=app;Password=role-refresh-secret;SSL Mode=disable;Timeout=2;Maximum Pool Size=1;Target Session Attributes=standby" + extra, connector))
	{
	}

	void run(const std::string& sql)
	{
		BlueTuskConnection lease = dataSource->open();
		CPPUNIT_ASSERT_EQUAL(first.endpoint().toString(), lease.connectedEndpoint().toString());
		if (!sql.empty()) lease.executeSimple(sql);
	}

	void promote()
	{
		CPPUNIT_ASSERT_EQUAL(1, dataSource->getHostPoolStatistics().at(first.endpoint()).idle);
		first.setScript(BackendScript::primary());
	}

	ServerRole learnedRole() const
	{
		return dataSource->getHostPoolStatistics().at(first.endpoint()).lastKnownRole;
	}
};

} // namespace


class RoleRefreshFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RoleRefreshFaultTest);
	CPPUNIT_TEST(testSyncCatchesPromotionOfIdleSession);
	CPPUNIT_TEST(testPendingResetCarriesTheRefresh);
	CPPUNIT_TEST(testRecheckWindowTrustsRecentRole);
	CPPUNIT_TEST(testRoleOlderThanWindowIsRechecked);
	CPPUNIT_TEST(testLeaseThatRanNothingIsNotReset);
	CPPUNIT_TEST(testRefreshRoundTripsAreQueryTimings);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSyncCatchesPromotionOfIdleSession()
	{
		TwoStandbys servers;
		servers.run("");   // runs nothing
		servers.promote();
		BlueTuskConnection next = servers.dataSource->open();
		CPPUNIT_ASSERT_EQUAL(servers.second.endpoint().toString(), next.connectedEndpoint().toString());
		CPPUNIT_ASSERT(servers.learnedRole() == ServerRole::Primary);
		// The Sync told: no probe query (beyond the open's, which showed the peer is the server) and no
		// reset went to the promoted server.
		CPPUNIT_ASSERT_EQUAL(1L, probesIn(servers.first.queries()));
		CPPUNIT_ASSERT_EQUAL(0L, countOf(servers.first.queries(), "DISCARD ALL"));
		CPPUNIT_ASSERT_EQUAL(1, servers.first.startupMessages());   // the idle session was refreshed, not reopened
	}

	void testPendingResetCarriesTheRefresh()
	{
		// The last lease ran a query: its deferred DISCARD ALL is the refresh's round trip (its
		// ReadyForQuery reports the role too), still with no probe query.
		TwoStandbys servers;
		servers.run("SELECT 1");
		servers.promote();
		BlueTuskConnection next = servers.dataSource->open();
		CPPUNIT_ASSERT_EQUAL(servers.second.endpoint().toString(), next.connectedEndpoint().toString());
		CPPUNIT_ASSERT_EQUAL(1L, countOf(servers.first.queries(), "DISCARD ALL"));
		CPPUNIT_ASSERT_EQUAL(1L, probesIn(servers.first.queries()));   // the open's alone
	}

	void testRecheckWindowTrustsRecentRole()
	{
		// Role Recheck Milliseconds=5000: the checkout right after the return trusts the standby role its
		// last ReadyForQuery confirmed, even though the server was promoted since (the documented
		// trade-off), and sends nothing for it.
		TwoStandbys servers(";Role Recheck Milliseconds=5000");
		servers.run("SELECT 1");
		const std::size_t before = servers.first.queries().size();
		servers.promote();
		{
			BlueTuskConnection next = servers.dataSource->open();
			CPPUNIT_ASSERT_EQUAL(servers.first.endpoint().toString(), next.connectedEndpoint().toString());
			CPPUNIT_ASSERT(next.role() == ServerRole::Standby);
			CPPUNIT_ASSERT(next.session().control().isResetPending());   // nothing was sent at checkout
		}
		CPPUNIT_ASSERT_EQUAL(before, servers.first.queries().size());
	}

	void testRoleOlderThanWindowIsRechecked()
	{
		// Role Recheck Milliseconds=300: a role confirmed longer ago than that is refreshed (here by the
		// deferred reset's round trip, before the pool's one-second flush would send it).
		TwoStandbys servers(";Role Recheck Milliseconds=300");
		servers.run("SELECT 1");
		servers.promote();
		Poco::Thread::sleep(450);
		BlueTuskConnection next = servers.dataSource->open();
		CPPUNIT_ASSERT_EQUAL(servers.second.endpoint().toString(), next.connectedEndpoint().toString());
		CPPUNIT_ASSERT(servers.learnedRole() == ServerRole::Primary);
		CPPUNIT_ASSERT_EQUAL(1L, countOf(servers.first.queries(), "DISCARD ALL"));
	}

	void testLeaseThatRanNothingIsNotReset()
	{
		FakeBackend server(BackendScript::primary(), "127.0.0.1");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create("Host=" + server.hostAndPort() +
			";Username=app;Password=role-refresh-secret;SSL Mode=disable;Timeout=2;Maximum Pool Size=1", connector);
		for (int i = 0; i < 3; ++i)
		{
			BlueTuskConnection lease = dataSource->open();   // a checkout and a return, nothing run
			CPPUNIT_ASSERT(!lease.session().control().isResetPending());
			CPPUNIT_ASSERT(!lease.session().control().ranSinceReset());
		}
		{
			BlueTuskConnection lease = dataSource->open();
			lease.executeSimple("SELECT 'first'");
		}
		{
			BlueTuskConnection lease = dataSource->open();
			CPPUNIT_ASSERT(lease.session().control().isResetPending());   // the last lease ran something
		}
		{
			BlueTuskConnection lease = dataSource->open();   // ran nothing, but the reset still pends
			CPPUNIT_ASSERT(lease.session().control().isResetPending());
			lease.executeSimple("SELECT 'second'");
			CPPUNIT_ASSERT(!lease.session().control().isResetPending());
		}
		const std::vector<std::string> queries = server.queries();
		CPPUNIT_ASSERT_EQUAL(1L, countOf(queries, "DISCARD ALL"));
		CPPUNIT_ASSERT_EQUAL(3, static_cast<int>(queries.size()));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 'first'"), queries.at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), queries.at(1));   // in front of the next command
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 'second'"), queries.at(2));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), dataSource->getHostPoolStatistics().at(server.endpoint()).created);
	}

	void testRefreshRoundTripsAreQueryTimings()
	{
		// Role Recheck Milliseconds=0: the second and third checkouts refresh the pooled session's role (a
		// bare Sync to the fake backend): two query timings for the first endpoint, none for the second.
		TwoStandbys servers(";Role Recheck Milliseconds=0;Health Check Interval=0");
		for (int i = 0; i < 3; ++i) servers.run("");
		const Poco::Timespan recheck(60, 0);
		const HostCandidate first = BlueTusk::Detail::hostStatesOf(servers.connector).candidate(servers.first.endpoint(), 0, recheck);
		CPPUNIT_ASSERT_EQUAL(2u, first.queriesMeasured);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(first.lastQueryMs), first.lastQueryMs >= 0 && first.lastQueryMs < 2000);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(first.smoothedQueryMs), first.smoothedQueryMs >= 0 && first.smoothedQueryMs < 2000);
		CPPUNIT_ASSERT_EQUAL(0u, BlueTusk::Detail::hostStatesOf(servers.connector).candidate(servers.second.endpoint(), 1, recheck).queriesMeasured);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(RoleRefreshFaultTest);
