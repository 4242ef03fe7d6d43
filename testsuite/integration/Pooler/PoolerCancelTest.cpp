//
// PoolerCancelTest.cpp
//
// Cancel through PgBouncer in transaction pooling: PgBouncer gives each client its own cancel key and
// forwards a CancelRequest to the server session that client's query runs on. Two clients of node 1's
// PgBouncer run pg_sleep at once; the one cancelled (Session::cancel(), or its Command Timeout) gets 57014,
// the other completes normally, and both sessions go on.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "PoolerSupport.h"
#include "Poco/Clock.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <string>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

struct Outcome
{
	std::string value;      /// the bystander's answer
	std::string sqlState;   /// the error's SQLSTATE, if any
	std::string message;
	long milliseconds = 0;
};


Outcome run(BlueTuskConnection& connection, const std::string& sql)
{
	Outcome outcome;
	Poco::Clock clock;
	try
	{
		outcome.value = connection.query(sql).row(0).get<std::string>(0);
	}
	catch (const BlueTuskServerException& exc)
	{
		outcome.sqlState = exc.sqlState();
		outcome.message = exc.message();
	}
	catch (const Poco::Exception& exc)
	{
		outcome.message = exc.displayText();
	}
	outcome.milliseconds = static_cast<long>(clock.elapsed() / 1000);
	return outcome;
}


const char* const BYSTANDER_SQL = "SELECT 'done'::text FROM pg_sleep(2)";

} // namespace


class PoolerCancelTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerCancelTest);
	CPPUNIT_TEST(testCancelOneOfTwo);
	CPPUNIT_TEST(testCommandTimeoutOneOfTwo);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCancelOneOfTwo()
		/// Session::cancel() of the first client 500 ms into its pg_sleep(30) ends it with 57014 within a
		/// second or two; the second client's pg_sleep(2) answers 'done'.
	{
		const std::string string = throughPooler("127.0.0.1", "Server Pooling=transaction");
		BlueTuskConnection victim = BlueTuskConnection::open(string);
		BlueTuskConnection bystander = BlueTuskConnection::open(string);
		Outcome cancelled, completed;
		std::thread first([&] { cancelled = run(victim, "SELECT 'not cancelled'::text FROM pg_sleep(30)"); });
		std::thread second([&] { completed = run(bystander, BYSTANDER_SQL); });
		std::this_thread::sleep_for(std::chrono::milliseconds(500));
		victim.session().cancel();
		first.join();
		second.join();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(cancelled.message, std::string("57014"), cancelled.sqlState);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(cancelled.milliseconds), cancelled.milliseconds < 5000);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(completed.message, std::string("done"), completed.value);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(completed.milliseconds), completed.milliseconds >= 1900);
		CPPUNIT_ASSERT_EQUAL(2, victim.query("SELECT 1 + 1").row(0).get<int>(0));
		CPPUNIT_ASSERT_EQUAL(2, bystander.query("SELECT 1 + 1").row(0).get<int>(0));
	}

	void testCommandTimeoutOneOfTwo()
		/// Command Timeout=1 on the first client: its pg_sleep(30) ends with 57014 naming the command timeout
		/// after about a second; the second client (no timeout) answers 'done'.
	{
		BlueTuskConnection victim = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction;Command Timeout=1"));
		BlueTuskConnection bystander = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=transaction"));
		Outcome cancelled, completed;
		std::thread first([&] { cancelled = run(victim, "SELECT 'not cancelled'::text FROM pg_sleep(30)"); });
		std::thread second([&] { completed = run(bystander, BYSTANDER_SQL); });
		first.join();
		second.join();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(cancelled.message, std::string("57014"), cancelled.sqlState);
		CPPUNIT_ASSERT_MESSAGE(cancelled.message, cancelled.message.find("ommand timeout") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(cancelled.milliseconds), cancelled.milliseconds >= 900 && cancelled.milliseconds < 6000);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(completed.message, std::string("done"), completed.value);
		CPPUNIT_ASSERT_EQUAL(2, victim.query("SELECT 1 + 1").row(0).get<int>(0));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerCancelTest);
