//
// BulkPathFaultTest.cpp
//
// A server that dies in the middle of COPY FROM STDIN, COPY TO STDOUT or a pipeline, over the project's fake
// backend: the caller gets a clear BlueTuskSessionBrokenException (no hang: each case ends within seconds),
// the session reports broken, and the pooled lease goes back without leaking (the pool discards it and
// the next checkout gets a new session).
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/CopyIn.h"
#include "BlueTusk/Pipeline.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <functional>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const PASSWORD = "bulk-secret-4K";


std::string failureOf(const std::function<void()>& action)
	/// The BlueTuskSessionBrokenException's text, or a description of what happened instead.
{
	try
	{
		action();
	}
	catch (BlueTuskSessionBrokenException& exc)
	{
		return exc.displayText();
	}
	catch (Poco::Exception& exc)
	{
		return std::string("wrong exception: ") + exc.className() + ": " + exc.displayText();
	}
	return "no exception";
}

} // namespace


class BulkPathFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(BulkPathFaultTest);
	CPPUNIT_TEST(testServerClosesDuringCopyIn);
	CPPUNIT_TEST(testServerClosesDuringCopyOut);
	CPPUNIT_TEST(testServerClosesDuringPipeline);
	CPPUNIT_TEST(testCopyInAnswerCountsRows);
	CPPUNIT_TEST(testLeaseReturnedWithCopyOpen);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_backend.reset(new FakeBackend(BackendScript::primary()
			.answer("COPY items FROM STDIN", QueryAnswer::copyIn(3))
			.answer("COPY good FROM STDIN", QueryAnswer::copyIn())
			.answer("COPY items TO STDOUT", QueryAnswer::copyOut({"1\n", "2\n", "3\n", "4\n", "5\n"}, 2))
			.answer("INSERT INTO items VALUES (5)", QueryAnswer::dropConnection()), "127.0.0.1"));
		_dataSource = BlueTuskDataSource::create("Host=" + _backend->hostAndPort() + ";Username=app;Password=" + PASSWORD +
			";SSL Mode=disable;Timeout=2;Command Timeout=5", _connector);
	}

	void tearDown()
	{
		_dataSource.reset();
		_backend.reset();
	}

	void testServerClosesDuringCopyIn()
	{
		Poco::Clock clock;
		{
			BlueTuskConnection lease = _dataSource->open();
			const std::string failure = failureOf([&]
			{
				std::unique_ptr<CopyIn> copy = lease.session().copyIn("COPY items FROM STDIN");
				for (int row = 0; row < 1000; ++row) copy->write(std::to_string(row) + "\n");
				copy->finish();
			});
			CPPUNIT_ASSERT_MESSAGE(failure, failure.find("wrong exception") == std::string::npos && failure != "no exception");
			CPPUNIT_ASSERT_MESSAGE(failure, failure.find(_backend->hostAndPort()) != std::string::npos);
			CPPUNIT_ASSERT(failure.find(PASSWORD) == std::string::npos);
			CPPUNIT_ASSERT(lease.session().isBroken());
		}
		CPPUNIT_ASSERT(clock.elapsed() < 3000000);
		checkNoLeak();
	}

	void testServerClosesDuringCopyOut()
	{
		BlueTuskConnection lease = _dataSource->open();
		std::vector<std::string> chunks;
		const std::string failure = failureOf([&]
		{
			lease.session().copyOut("COPY items TO STDOUT", [&](const char* data, std::size_t size)
			{
				chunks.emplace_back(data, size);
			});
		});
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("wrong exception") == std::string::npos && failure != "no exception");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), chunks.size());   // what arrived before the close was delivered
		CPPUNIT_ASSERT_EQUAL(std::string("2\n"), chunks[1]);
		CPPUNIT_ASSERT(lease.session().isBroken());
		lease.close();
		checkNoLeak();
	}

	void testServerClosesDuringPipeline()
	{
		BlueTuskConnection lease = _dataSource->open();
		Pipeline pipeline(lease.session());
		for (int i = 0; i < 10; ++i) pipeline.add("INSERT INTO items VALUES (" + std::to_string(i) + ")");
		const std::string failure = failureOf([&] { pipeline.run(); });
		CPPUNIT_ASSERT_MESSAGE(failure, failure.find("wrong exception") == std::string::npos && failure != "no exception");
		CPPUNIT_ASSERT(failure.find(PASSWORD) == std::string::npos);
		CPPUNIT_ASSERT(lease.session().isBroken());
		lease.close();
		checkNoLeak();
	}

	void testCopyInAnswerCountsRows()
	{
		// The fake backend's COPY itself works: the fault above is the close, not a missing feature.
		BlueTuskConnection lease = _dataSource->open();
		std::unique_ptr<CopyIn> copy = lease.session().copyIn("COPY good FROM STDIN");
		for (int row = 0; row < 7; ++row) copy->write(std::to_string(row) + "\n");
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(7), copy->finish());
		CPPUNIT_ASSERT(!lease.session().isBroken());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), lease.executeSimple("SELECT 1").size());
	}

	void testLeaseReturnedWithCopyOpen()
	{
		// A lease returned while its CopyIn is still open (found by review, session 9): the server is in
		// COPY FROM STDIN mode, which no reset ends, so the session is closed, not parked for the next
		// user; the CopyIn, which outlives the session, refuses further use (before: it wrote on freed
		// memory, or on a session parked in COPY mode that refused every later lease).
		std::unique_ptr<CopyIn> copy;
		{
			BlueTuskConnection lease = _dataSource->open();
			copy = lease.session().copyIn("COPY good FROM STDIN");
			copy->write("1\n");
		}
		checkNoLeak();
		CPPUNIT_ASSERT_THROW(copy->write("2\n"), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(copy->finish(), BlueTuskUsageException);
		CPPUNIT_ASSERT(!copy->isOpen());
		copy->abort("too late");   // nothing to abort any more: returns, touching nothing
		CPPUNIT_ASSERT(!copy->isOpen());
		copy.reset();   // and its destructor does not touch the gone session either
		BlueTuskConnection next = _dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), next.executeSimple("SELECT 1").size());
	}

private:
	void checkNoLeak()
	{
		// The broken session was discarded on return: nothing busy, nothing idle, one closed; the next
		// checkout opens a new, working session.
		PoolStatistics stats = _dataSource->getPoolStatistics();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), 0, stats.busy);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(stats.toString(), 0, stats.total);
		CPPUNIT_ASSERT(_backend->waitForActiveConnections(0, Poco::Timespan(2, 0)));
		BlueTuskConnection next = _dataSource->open();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), next.executeSimple("SELECT 1").size());
	}

	RoutingContext _connector;
	std::unique_ptr<FakeBackend> _backend;
	BlueTuskDataSource::Ptr _dataSource;
};


CPPUNIT_TEST_SUITE_REGISTRATION(BulkPathFaultTest);
