//
// PoolerSignTest.cpp
//
// The two signs of a transaction pooler against node 1's real PgBouncer, on the paths PoolerAutoRetryTest
// does not take:
// - 42P05 (a Parse of a name that already exists on the server session it landed on): with Server
//   Pooling=auto, prepare() and query()'s statement cache switch to transaction pooling and run again
//   unnamed, and the application sees no error;
// - 26000 with Server Pooling=session set by hand: the error reaches the application (nothing switches), with
//   a HINT that the endpoint is probably a transaction pooler; on the server itself no such hint.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/Transaction.h"
#include "PoolerSupport.h"
#include "session/PoolerDetection.h"
#include "Poco/AutoPtr.h"
#include "Poco/Channel.h"
#include "Poco/Logger.h"
#include "Poco/Message.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string poolerEndpoint()
{
	return "127.0.0.1:" + std::to_string(poolerPort());
}


int plantOnEveryServerSession(const std::string& name)
	/// Holds every server session of node 1's PgBouncer at once and leaves on each only a statement called
	/// name (an SQL-level PREPARE outlives its transaction), as an earlier client could have. Returns how many
	/// distinct server processes got it.
{
	std::vector<BlueTuskConnection> holders;
	std::set<Poco::Int32> processes;
	for (int i = 0; i < POOLER_SERVER_SESSIONS; ++i)
	{
		holders.push_back(BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=session;Max Auto Prepare=0")));
		holders.back().executeSimple("BEGIN; DEALLOCATE ALL; PREPARE \"" + name + "\" AS SELECT 0");
		processes.insert(holders.back().executeSimple("SELECT pg_backend_pid()").front().row(0).get<Poco::Int32>(0));
	}
	for (BlueTuskConnection& holder: holders) holder.executeSimple("COMMIT");
	return static_cast<int>(processes.size());
}


class Capture: public Poco::Channel
	/// The BlueTusk.Transport logger's warnings while a test runs.
{
public:
	void log(const Poco::Message& message) override
	{
		if (message.getPriority() <= Poco::Message::PRIO_WARNING) text += message.getText() + "\n";
	}

	std::string text;
};


class CaptureScope
{
public:
	CaptureScope(): _logger(Poco::Logger::get("BlueTusk.Transport")), _channel(new Capture),
		_previous(static_cast<Poco::Channel*>(_logger.getChannel()), true), _level(_logger.getLevel())
	{
		_logger.setChannel(_channel);
		_logger.setLevel(Poco::Message::PRIO_WARNING);
	}

	~CaptureScope()
	{
		_logger.setChannel(_previous);
		_logger.setLevel(_level);
	}

	const std::string& text() const
	{
		return _channel->text;
	}

private:
	Poco::Logger& _logger;
	Poco::AutoPtr<Capture> _channel;
	Poco::AutoPtr<Poco::Channel> _previous;
	int _level;
};


BlueTuskConnection freshAutoSessionMeeting42P05()
	/// A session of default settings through node 1's PgBouncer, which this process has not found yet, and
	/// every server session behind it holding the name of that session's first named statement.
{
	Detail::forgetTransactionPooler(poolerEndpoint());
	BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1"));
	CPPUNIT_ASSERT_EQUAL(poolerEndpoint(), connection.connectedEndpoint().toString());
	const std::string first = Detail::statementName(connection.session().sessionId(), 1);
	CPPUNIT_ASSERT_EQUAL(POOLER_SERVER_SESSIONS, plantOnEveryServerSession(first));
	CPPUNIT_ASSERT(!Detail::isTransactionPooler(poolerEndpoint()));
	return connection;
}


void assertSwitchedOn42P05(const CaptureScope& capture)
{
	CPPUNIT_ASSERT(Detail::isTransactionPooler(poolerEndpoint()));
	CPPUNIT_ASSERT_MESSAGE(capture.text(), capture.text().find(poolerEndpoint() + " is behind a transaction pooler") != std::string::npos);
	CPPUNIT_ASSERT_MESSAGE(capture.text(), capture.text().find("already exists, SQLSTATE 42P05") != std::string::npos);
}

} // namespace


class PoolerSignTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PoolerSignTest);
	CPPUNIT_TEST(testPrepareMeetsDuplicate);
	CPPUNIT_TEST(testQueryMeetsDuplicate);
	CPPUNIT_TEST(testSessionPoolingHint);
	CPPUNIT_TEST(testNoHintOnTheServer);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPrepareMeetsDuplicate()
		/// prepare()'s Parse meets 42P05: the session switches, prepares the statement again unnamed and the
		/// handle runs; the statement is no named one.
	{
		CaptureScope capture;
		BlueTuskConnection connection = freshAutoSessionMeeting42P05();
		PreparedStatement statement = connection.prepare("SELECT $1::int4 * 3");
		assertSwitchedOn42P05(capture);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(123), connection.execute(statement, {Poco::Int32(41)}).row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(6), connection.execute(statement, {Poco::Int32(2)}).row(0).get<Poco::Int32>(0));
	}

	void testQueryMeetsDuplicate()
		/// query() of one text: the first run is unnamed, the second prepares it for the statement cache and
		/// its Parse meets 42P05: it runs again unnamed, answers right, and nothing is prepared or cached.
	{
		CaptureScope capture;
		BlueTuskConnection connection = freshAutoSessionMeeting42P05();
		for (Poco::Int32 i = 1; i <= 4; ++i)
			CPPUNIT_ASSERT_EQUAL(i + 100, connection.query("SELECT $1::int4 + 100", {i}).row(0).get<Poco::Int32>(0));
		assertSwitchedOn42P05(capture);
		const StatementStatistics statistics = connection.session().statementStatistics();
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), std::uint64_t(statistics.prepared));
		CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), std::uint64_t(statistics.cacheHits));
	}

	void testSessionPoolingHint()
		/// Server Pooling=session in front of the PgBouncer: a prepared statement whose server session lost it
		/// fails with 26000 inside a transaction block, and the error says the endpoint is probably a
		/// transaction pooler and what to set.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=session"));
		PreparedStatement statement = connection.prepare("SELECT $1::int4 - 1");
		CPPUNIT_ASSERT_EQUAL(POOLER_SERVER_SESSIONS, deallocateOnEveryServerSession());
		Transaction transaction(connection.session());
		try
		{
			connection.execute(statement, {Poco::Int32(1)});
			CPPUNIT_FAIL("a statement deallocated on every server session ran");
		}
		catch (const BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("26000"), exc.sqlState());
			const std::string& hint = exc.fields().hint;
			CPPUNIT_ASSERT_MESSAGE(hint, hint.find("Server Pooling=session, but " + poolerEndpoint() + " is probably a transaction pooler") == 0);
			CPPUNIT_ASSERT_MESSAGE(hint, hint.find("Set Server Pooling=transaction (or leave it at auto)") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("HINT: Server Pooling=session, but") != std::string::npos);
		}
		transaction.rollback();
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(5), connection.query("SELECT $1::int4 + 1", {Poco::Int32(4)}).row(0).get<Poco::Int32>(0));
	}

	void testNoHintOnTheServer()
		/// Server Pooling=session on the server itself (the role probe showed it): the application's own
		/// DEALLOCATE ALL makes the next run inside a transaction block fail with 26000, without the hint.
	{
		BlueTuskConnection connection = BlueTuskConnection::open(toServer("Server Pooling=session;Target Session Attributes=primary"));
		PreparedStatement statement = connection.prepare("SELECT $1::int4 - 1");
		connection.executeSimple("DEALLOCATE ALL");
		Transaction transaction(connection.session());
		try
		{
			connection.execute(statement, {Poco::Int32(1)});
			CPPUNIT_FAIL("a deallocated statement ran");
		}
		catch (const BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("26000"), exc.sqlState());
			CPPUNIT_ASSERT_MESSAGE(exc.fields().hint, exc.fields().hint.empty());
		}
		transaction.rollback();
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PoolerSignTest);
