//
// StatementNameTest.cpp
//
// Named statements behind a transaction pooler whose server sessions keep the statements of earlier clients.
// Found by the pooler suite at 6e72366: PgBouncerTest, run after PoolerLoadTest's runs had left their "_bt1"
// (an INSERT with 3 parameters) on PgBouncer's server sessions, failed once with 08P01 "bind message supplies
// 1 parameters, but prepared statement "_bt1" requires 3": its own "_bt1" was parsed on one server session
// and bound on another that held the earlier client's. Statement names now carry a per-process tag and the
// session's id (Transport/src/session/PoolerDetection.h, statementName()).
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "PoolerSupport.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <memory>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Test;


class StatementNameTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(StatementNameTest);
	CPPUNIT_TEST(testNamesDifferBetweenSessions);
	CPPUNIT_TEST(testStaleStatementsOfEarlierClients);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNamesDifferBetweenSessions()
		/// Two sessions' first statements are named apart, and not "_bt1" as an earlier process's were.
	{
		const std::string direct = cluster().connectionString(cluster().hosts.at(0), "SSL Mode=disable");
		BlueTuskConnection first = BlueTuskConnection::open(direct);
		BlueTuskConnection second = BlueTuskConnection::open(direct);
		const PreparedStatement a = first.prepare("SELECT $1::int4 + 1");
		const PreparedStatement b = second.prepare("SELECT $1::int4 + 1");
		CPPUNIT_ASSERT(a.name() != b.name());
		CPPUNIT_ASSERT(a.name() != "_bt1");
		CPPUNIT_ASSERT_EQUAL(std::string("_bt"), a.name().substr(0, 3));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), first.execute(a, {Poco::Int32(41)}).row(0).get<Poco::Int32>(0));
	}

	void testStaleStatementsOfEarlierClients()
		/// Half of the primary PgBouncer's 8 server sessions hold "_bt1" to "_bt4" with 3 parameters, left by
		/// "earlier clients"; then 4 threads x 100 leases of a one-parameter query() with default settings:
		/// 0 errors, every answer right.
	{
		{
			std::vector<std::unique_ptr<BlueTuskConnection>> holders;
			for (int i = 0; i < 8; ++i)
			{
				// each in a transaction, so each holds its own server session of the 8; Server Pooling=session,
				// as an earlier client unaware of the pooler: with auto, once this process has found the
				// pooler, the SQL-level PREPARE below is refused (PoolerRefusalTest)
				holders.push_back(std::make_unique<BlueTuskConnection>(BlueTuskConnection::open(
					throughPoolers("Target Session Attributes=primary;Server Pooling=session"))));
				holders.back()->executeSimple("BEGIN; DEALLOCATE ALL");   // what earlier runs left there
				if (i % 2 == 0)
				{
					for (int n = 1; n <= 4; ++n)
						holders.back()->executeSimple("PREPARE _bt" + std::to_string(n) + " (int, int, int) AS SELECT $1 + $2 + $3");
				}
			}
			for (auto& holder: holders) holder->executeSimple("COMMIT");   // PREPARE outlives the transaction
		}
		auto dataSource = BlueTuskDataSource::create(throughPoolers("Target Session Attributes=primary"));
		std::atomic<int> wrong{0};
		const int errors = countErrors(4, 100, [&](int t, int i)
		{
			BlueTuskConnection lease = dataSource->open();
			const Poco::Int32 value = t * 1000 + i;
			if (lease.query("SELECT $1::int4 + 1", {value}).row(0).get<Poco::Int32>(0) != value + 1) ++wrong;
		});
		CPPUNIT_ASSERT_EQUAL(0, errors);
		CPPUNIT_ASSERT_EQUAL(0, wrong.load());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(StatementNameTest);
