//
// FleetErrorsFaultTest.cpp
//
// bluetusk-fleet's failure kinds (testsuite/fleet/FleetErrors.h) against the project's fake backends: a
// 53300 is found where the application meets it (alone, inside a multi-host "no acceptable host" failure, in
// a pooled checkout), and other failures keep their own SQLSTATE or name, so that scripts/fleet's "53300
// errors seen by the application" counts neither more nor less than there were.
//

#include "FakeBackend.h"
#include "FleetErrors.h"
#include "RefusedPort.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Fleet;
using namespace BlueTusk::Test;


class FleetErrorsFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(FleetErrorsFaultTest);
	CPPUNIT_TEST(testTooManyClientsAlone);
	CPPUNIT_TEST(testTooManyClientsInsideAMultiHostFailure);
	CPPUNIT_TEST(testTooManyClientsInAPooledCheckout);
	CPPUNIT_TEST(testOtherFailuresKeepTheirKind);
	CPPUNIT_TEST(testQueryErrorIsItsSqlState);
	CPPUNIT_TEST(testCountsAndJson);
	CPPUNIT_TEST_SUITE_END();

public:
	static std::string connectionString(const std::string& hosts, const std::string& extra = "")
	{
		return "Host=" + hosts + ";Username=app;Password=secret;Database=app;SSL Mode=disable;Timeout=1;" + extra;
	}

	template <typename Open>
	static std::string kindOf(Open open, bool& carries53300)
		/// The errorKind() of what open() throws; fails the test when it throws nothing.
	{
		try
		{
			open();
		}
		catch (Poco::Exception& exc)
		{
			carries53300 = carriesSqlState(exc, "53300");
			return errorKind(exc);
		}
		CPPUNIT_FAIL("no exception");
		return "";
	}

	void testTooManyClientsAlone()
	{
		FakeBackend full(BackendScript::tooManyClients(), "127.0.0.5");
		RoutingContext connector;
		bool carries = false;
		const std::string kind = kindOf([&] { BlueTuskConnection::open(connectionString(full.hostAndPort()), connector); }, carries);
		CPPUNIT_ASSERT_EQUAL(std::string("53300"), kind);
		CPPUNIT_ASSERT(carries);
		CPPUNIT_ASSERT_EQUAL(1, full.startupMessages());
	}

	void testTooManyClientsInsideAMultiHostFailure()
	{
		// The full primary is met first, a refused port last: the failure the application sees is "no
		// acceptable host"; the 53300 is one attempt of it, and still counts.
		FakeBackend full(BackendScript::tooManyClients(), "127.0.0.5");
		FakeBackend standby(BackendScript::standby(), "127.0.0.2");
		RefusedPort refused("127.0.0.9");
		RoutingContext connector;
		bool carries = false;
		const std::string hosts = full.hostAndPort() + "," + standby.hostAndPort() + "," + refused.hostAndPort();
		const std::string kind = kindOf([&] {
			BlueTuskConnection::open(connectionString(hosts, "Target Session Attributes=read-write"), connector); }, carries);
		CPPUNIT_ASSERT_EQUAL(std::string("53300"), kind);
		CPPUNIT_ASSERT(carries);
		CPPUNIT_ASSERT_EQUAL(1, full.startupMessages());
	}

	void testTooManyClientsInAPooledCheckout()
	{
		FakeBackend full(BackendScript::tooManyClients(), "127.0.0.5");
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(connectionString(full.hostAndPort(), "Maximum Pool Size=2;Checkout Timeout=1"), connector);
		bool carries = false;
		const std::string kind = kindOf([&] { dataSource->open(TargetSessionAttributes::ReadWrite); }, carries);
		CPPUNIT_ASSERT_EQUAL(std::string("53300"), kind);
		CPPUNIT_ASSERT(carries);
		CPPUNIT_ASSERT(full.startupMessages() >= 1);
	}

	void testOtherFailuresKeepTheirKind()
	{
		FakeBackend starting(BackendScript::startingUp(), "127.0.0.4");
		FakeBackend standby(BackendScript::standby(), "127.0.0.2");
		RoutingContext connector;
		bool carries = true;
		std::string kind = kindOf([&] { BlueTuskConnection::open(connectionString(starting.hostAndPort()), connector); }, carries);
		CPPUNIT_ASSERT_EQUAL(std::string(BlueTuskNoAcceptableHostException().name()) + " (57P03)", kind);
		CPPUNIT_ASSERT(!carries);

		// A standby alone for a read-write target: no server error at all, the exception's name.
		carries = true;
		kind = kindOf([&] {
			BlueTuskConnection::open(connectionString(standby.hostAndPort(), "Target Session Attributes=read-write"), connector); }, carries);
		CPPUNIT_ASSERT(!carries);
		CPPUNIT_ASSERT_EQUAL(std::string(BlueTuskNoAcceptableHostException().name()), kind);
	}

	void testQueryErrorIsItsSqlState()
	{
		BackendScript script = BackendScript::primary();
		script.answers["SELECT * FROM missing"] = QueryAnswer::error("42P01", "relation \"missing\" does not exist");
		FakeBackend primary(script, "127.0.0.1");
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(connectionString(primary.hostAndPort()), connector);
		bool carries = true;
		const std::string kind = kindOf([&] { connection.query("SELECT * FROM missing"); }, carries);
		CPPUNIT_ASSERT_EQUAL(std::string("42P01"), kind);
		CPPUNIT_ASSERT(!carries);
	}

	void testCountsAndJson()
	{
		ErrorCounts counts;
		counts.add("53300");
		counts.add("53300");
		counts.add("no \"acceptable\" host");
		const auto taken = counts.take();
		CPPUNIT_ASSERT_EQUAL(2L, taken.at("53300"));
		CPPUNIT_ASSERT_EQUAL(std::string("{\"53300\":2,\"no \\\"acceptable\\\" host\":1}"), counts.json(taken));
		CPPUNIT_ASSERT(counts.take().empty());
		CPPUNIT_ASSERT_EQUAL(std::string("\"a\\\\b\\u000a\""), jsonText("a\\b\n"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(FleetErrorsFaultTest);
