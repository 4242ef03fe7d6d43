//
// SplitBrainGuardFaultTest.cpp
//
// The split-brain guard over fake backends that both claim primary, with WAL file names on different
// timelines: once the newer primary has been seen, the older one is refused for read-write checkouts (its
// idle sessions closed, the refusal named in the attempt log), stays behind the others while deposed, and
// is taken again once it reports a newer timeline. In the steady state the guard costs no round trip.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "datasource/RoutingContextAccess.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const TIMELINE_QUERY = "SELECT pg_walfile_name(pg_current_wal_lsn())";


BackendScript primaryOnTimeline(int timeline)
{
	char name[32];
	std::snprintf(name, sizeof(name), "%08X000000000000002A", timeline);
	return BackendScript::primary().answer(TIMELINE_QUERY, QueryAnswer::value(name, "pg_walfile_name"));
}


long countOf(const std::vector<std::string>& queries, const std::string& statement)
{
	return static_cast<long>(std::count(queries.begin(), queries.end(), statement));
}


std::string connectionString(const FakeBackend& a, const FakeBackend& b)
{
	return "Host=" + a.hostAndPort() + "," + b.hostAndPort() +
		";Username=app;Password=guard-secret;SSL Mode=disable;Timeout=2;Target Session Attributes=read-write";
}

} // namespace


class SplitBrainGuardFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SplitBrainGuardFaultTest);
	CPPUNIT_TEST(testDeposedPrimaryRefused);
	CPPUNIT_TEST(testUnknownTimelineAskedAndRefused);
	CPPUNIT_TEST(testSteadyStateAsksOnce);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDeposedPrimaryRefused()
	{
		FakeBackend old(primaryOnTimeline(3), "127.0.0.1");
		FakeBackend promoted(primaryOnTimeline(4), "127.0.0.2");
		RoutingContext connector;
		auto app = BlueTuskDataSource::create(connectionString(old, promoted), connector);
		{
			BlueTuskConnection lease = app->open();   // before the failover: the old primary, timeline 3
			CPPUNIT_ASSERT_EQUAL(old.endpoint().toString(), lease.connectedEndpoint().toString());
		}
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(3), connector.hostState(old.endpoint()).primaryTimeline);
		// Another part of the application (same connector) reaches the promoted server, timeline 4.
		auto other = BlueTuskDataSource::create(connectionString(promoted, old), connector);
		{
			BlueTuskConnection lease = other->open();
			CPPUNIT_ASSERT_EQUAL(promoted.endpoint().toString(), lease.connectedEndpoint().toString());
		}
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(4), connector.hostState(promoted.endpoint()).primaryTimeline);

		// The old primary still answers as a primary, but it is known deposed: it comes last (not even
		// tried while the new primary serves) and its idle session is closed.
		const int oldConnections = old.connectionsAccepted();
		const long oldQueries = old.queryCount();
		CPPUNIT_ASSERT_EQUAL(1, app->getHostPoolStatistics().at(old.endpoint()).idle);
		for (int i = 0; i < 2; ++i)
		{
			BlueTuskConnection lease = app->open();
			CPPUNIT_ASSERT_EQUAL(promoted.endpoint().toString(), lease.connectedEndpoint().toString());
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), lease.attemptLog().size());
			CPPUNIT_ASSERT_EQUAL(0, app->getHostPoolStatistics().at(old.endpoint()).total);
		}
		CPPUNIT_ASSERT_EQUAL(oldConnections, old.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(oldQueries, static_cast<long>(old.queryCount()));

		// With no other acceptable server the deposed primary is still refused: an error, not a stale write.
		app->drain(promoted.endpoint());   // the new primary out of reach for this data source
		std::string failure;
		try
		{
			app->open();
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			failure = exc.displayText();
		}
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("split-brain guard") != std::string::npos);

		// The old server is promoted again later (timeline 5): asked again, and taken.
		old.setScript(primaryOnTimeline(5));
		BlueTuskConnection lease = app->open();
		CPPUNIT_ASSERT_EQUAL(old.endpoint().toString(), lease.connectedEndpoint().toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(5), connector.hostState(old.endpoint()).primaryTimeline);
		// ... and now the server on timeline 4 is the deposed one.
		CPPUNIT_ASSERT(BlueTusk::Detail::hostStatesOf(connector).isDeposed(promoted.endpoint(), {old.endpoint(), promoted.endpoint()}));
		app->resume(promoted.endpoint());
	}

	void testUnknownTimelineAskedAndRefused()
	{
		// The newer primary is seen first; the old one, never seen before, is asked and refused.
		FakeBackend old(primaryOnTimeline(3), "127.0.0.1");
		FakeBackend promoted(primaryOnTimeline(4), "127.0.0.2");
		RoutingContext connector;
		auto first = BlueTuskDataSource::create(connectionString(promoted, old), connector);
		first->open().close();
		auto app = BlueTuskDataSource::create(connectionString(old, promoted), connector);
		BlueTuskConnection lease = app->open();
		CPPUNIT_ASSERT_EQUAL(promoted.endpoint().toString(), lease.connectedEndpoint().toString());
		const HostAttemptList& log = lease.attemptLog();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), log.size());
		CPPUNIT_ASSERT_EQUAL(old.endpoint().toString(), log[0].endpoint.toString());
		CPPUNIT_ASSERT(log[0].outcome == HostAttempt::REJECTED);
		CPPUNIT_ASSERT_MESSAGE(log[0].detail, log[0].detail.find("primary on timeline 3, older than timeline 4 of " + promoted.hostAndPort()) != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(1L, countOf(old.queries(), TIMELINE_QUERY));
		CPPUNIT_ASSERT_EQUAL(0, app->getHostPoolStatistics().at(old.endpoint()).total);   // its session was not pooled
		CPPUNIT_ASSERT(old.waitForActiveConnections(0, Poco::Timespan(2, 0)));
	}

	void testSteadyStateAsksOnce()
	{
		FakeBackend primary(primaryOnTimeline(7), "127.0.0.1");
		FakeBackend standby(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		auto app = BlueTuskDataSource::create(connectionString(primary, standby), connector);
		for (int i = 0; i < 20; ++i)
		{
			BlueTuskConnection lease = app->open();
			CPPUNIT_ASSERT_EQUAL(primary.endpoint().toString(), lease.connectedEndpoint().toString());
		}
		CPPUNIT_ASSERT_EQUAL(1L, countOf(primary.queries(), TIMELINE_QUERY));   // learned once, then trusted
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(SplitBrainGuardFaultTest);
