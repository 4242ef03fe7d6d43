//
// DataFreshnessTest.cpp
//
// Read Your Writes through the bluetusk Poco::Data connector on the local cluster
// (doc/poco-data.md, "Read your writes"): a writer session (read-write) and a reader session
// (prefer-standby) whose connection strings differ only in Target Session Attributes share one data source
// and so its token; 50 write-then-read cycles with sessions opened per cycle, and 50 with both sessions
// kept open, see every row just written. The cluster runs synchronous_commit=off: a standby has a commit
// only after the WAL writer's next flush (up to 200 ms), so a read that does not wait misses.
//

#include "DataTestSupport.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Clock.h"
#include "Poco/Data/Statement.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <iostream>
#include <thread>

using namespace BlueTusk::Test;
using namespace Poco::Data::Keywords;
using Poco::Data::Session;

namespace {

std::string allNodes()
{
	const ClusterInfo& c = cluster();
	return c.hosts.at(0) + "," + c.hosts.at(1) + "," + c.hosts.at(2);
}


std::string freshString(const std::string& target, const std::string& extra = "")
	/// The writer's and the reader's strings: the same apart from Target Session Attributes.
{
	return bluetuskString(allNodes(), "Read Your Writes=true;Target Session Attributes=" + target + (extra.empty() ? "" : ";" + extra));
}


std::string role(Session& session)
{
	return Poco::AnyCast<std::string>(session.getProperty("role"));
}


void createTable(const std::string& table)
	/// table on the primary, committed synchronously, and replayed by both standbys before the test reads.
{
	Session primary("bluetusk", primaryString());
	primary << "SET synchronous_commit = on", now;
	primary << "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id bigserial PRIMARY KEY, note text)", now;
	for (int n: {2, 3})
	{
		Session standby("bluetusk", bluetuskString(cluster().hosts.at(n - 1)));
		Poco::Clock start;
		for (;;)
		{
			std::string found;
			standby << "SELECT coalesce(to_regclass('" + table + "')::text, '')", into(found), now;
			if (!found.empty()) break;
			if (start.elapsed() > 10000000) CPPUNIT_FAIL(table + " did not reach node " + std::to_string(n));
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
	}
}

} // namespace


class DataFreshnessTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DataFreshnessTest);
	CPPUNIT_TEST(testReadYourWritesSessionPerCycle);
	CPPUNIT_TEST(testReadYourWritesLongLivedSessions);
	CPPUNIT_TEST(testReaderSeesTableWriterJustCreated);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		registerConnectors();
	}

	void testReadYourWritesSessionPerCycle()
	{
		// A Poco::Data application's usual shape: a Session per unit of work.
		createTable("pd_fresh_cycle");
		int misses = 0, onStandby = 0;
		Poco::Clock start;
		for (int i = 0; i < 50; ++i)
		{
			Poco::Int64 id = 0;
			{
				Session writer("bluetusk", freshString("read-write"));
				writer << "INSERT INTO pd_fresh_cycle (note) VALUES ('cycle " + std::to_string(i) + "') RETURNING id", into(id), now;
			}
			Session reader("bluetusk", freshString("prefer-standby"));
			if (role(reader) == "standby") ++onStandby;
			Poco::Int64 found = -1;
			reader << "SELECT count(*) FROM pd_fresh_cycle WHERE id = $1", use(id), into(found), now;
			if (found != 1) ++misses;
		}
		std::cout << "\n  Poco::Data, a session per cycle: " << misses << " misses of 50, " << onStandby << " reads on a standby, "
			<< start.elapsed() / 1000 << " ms" << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, misses);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(onStandby), onStandby >= 40);
	}

	void testReadYourWritesLongLivedSessions()
	{
		// Both sessions opened once (or kept by Poco's SessionPool): the writer leaves a token after each
		// statement it commits, the reader waits for it before each statement outside a transaction.
		createTable("pd_fresh_kept");
		Session writer("bluetusk", freshString("read-write"));
		Session reader("bluetusk", freshString("prefer-standby"));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), role(reader));
		int misses = 0;
		Poco::Clock start;
		for (int i = 0; i < 50; ++i)
		{
			Poco::Int64 id = 0;
			if (i % 5 == 4)
			{
				writer.begin();   // an explicit transaction: its token comes with commit()
				writer << "INSERT INTO pd_fresh_kept (note) VALUES ('kept " + std::to_string(i) + "') RETURNING id", into(id), now;
				writer.commit();
			}
			else
			{
				writer << "INSERT INTO pd_fresh_kept (note) VALUES ('kept " + std::to_string(i) + "') RETURNING id", into(id), now;
			}
			Poco::Int64 found = -1;
			reader << "SELECT count(*) FROM pd_fresh_kept WHERE id = $1", use(id), into(found), now;
			if (found != 1) ++misses;
		}
		const std::string readerRole = role(reader);
		std::cout << "  Poco::Data, sessions kept open: " << misses << " misses of 50, reader on a " << readerRole << ", "
			<< start.elapsed() / 1000 << " ms" << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, misses);
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), readerRole);   // it waited for its standby, did not move
	}

	void testReaderSeesTableWriterJustCreated()
	{
		// The reader's first statement is prepared (Parse/Describe) on its standby: that must wait for the
		// token too, or a table the writer has just created is not there yet (42P01; a new user met it 10 of
		// 10 times before the prepare waited).
		Session writer("bluetusk", freshString("read-write"));
		Session reader("bluetusk", freshString("prefer-standby"));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), role(reader));
		for (int i = 0; i < 10; ++i)
		{
			const std::string table = "pd_fresh_new_" + std::to_string(i);
			writer << "DROP TABLE IF EXISTS " + table, now;
			writer << "CREATE TABLE " + table + " (id int)", now;
			writer << "INSERT INTO " + table + " VALUES (1)", now;
			Poco::Int64 found = -1;
			reader << "SELECT count(*) FROM " + table, into(found), now;
			CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), found);
			writer << "DROP TABLE " + table, now;
		}
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), role(reader));
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(DataFreshnessTest);
