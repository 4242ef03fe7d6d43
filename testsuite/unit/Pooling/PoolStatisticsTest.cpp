//
// PoolStatisticsTest.cpp
//
// PoolStatistics::toString() prints exactly the format doc/pooling.md ("Statistics") documents: the fixed
// counters always, then each optional part only when it has something to say, in the documented order.
//

#include "BlueTusk/PoolManager.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;

class PoolStatisticsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolStatisticsTest);
	CPPUNIT_TEST(testFixedCounters);
	CPPUNIT_TEST(testEveryOptionalPart);
	CPPUNIT_TEST(testAggregateForgetsRole);
	CPPUNIT_TEST_SUITE_END();

public:
	void testFixedCounters()
	{
		// doc/pooling.md's first example, character for character.
		PoolStatistics s;
		s.total = 3;
		s.idle = 1;
		s.busy = 2;
		s.created = 3;
		s.maxSize = 20;
		CPPUNIT_ASSERT_EQUAL(std::string("total=3 idle=1 busy=2 pending=0 created=3 closed=0 evicted=0 timeouts=0 "
			"failures=0 min=0 max=20"), s.toString());
	}

	void testEveryOptionalPart()
	{
		// doc/pooling.md's second example: every optional part, in order.
		PoolStatistics s;
		s.total = 4;
		s.idle = 1;
		s.busy = 3;
		s.connecting = 1;
		s.pending = 2;
		s.created = 9;
		s.closed = 5;
		s.evicted = 2;
		s.checkoutTimeouts = 1;
		s.connectFailures = 6;
		s.refusals = 5;
		s.minSize = 1;
		s.maxSize = 4;
		s.statements.prepared = 12;
		s.statements.cacheHits = 340;
		s.statements.evictions = 0;
		s.statements.reprepared = 1;
		s.draining = true;
		s.lastKnownRole = ServerRole::Standby;
		s.walPosition = Lsn::parse("0/3000060");
		s.lagBytes = 4404019;
		CPPUNIT_ASSERT_EQUAL(std::string("total=4 idle=1 busy=3 pending=2 created=9 closed=5 evicted=2 timeouts=1 "
			"failures=6 min=1 max=4 connecting=1 refused=5 prepared=12 cacheHits=340 evictions=0 reprepared=1 "
			"draining role=standby wal=0/3000060 lag=4.2 MB"), s.toString());
	}

	void testAggregateForgetsRole()
	{
		PoolStatistics a;
		a.total = 1;
		a.busy = 1;
		a.maxSize = 2;
		a.lastKnownRole = ServerRole::Primary;
		PoolStatistics b = a;
		b += a;
		CPPUNIT_ASSERT_EQUAL(std::string("total=2 idle=0 busy=2 pending=0 created=0 closed=0 evicted=0 timeouts=0 "
			"failures=0 min=0 max=4"), b.toString());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(PoolStatisticsTest);
