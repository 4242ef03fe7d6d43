//
// FakeBackendTest.cpp
//
// Self-tests of the scripted fake PostgreSQL backend: every script, read byte by byte with RawClient.
//

#include "FakeBackend.h"
#include "RawClient.h"
#include "Poco/Exception.h"
#include "Poco/Net/NetException.h"
#include "Poco/Stopwatch.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>

using namespace BlueTusk::Test;
using Poco::Net::SocketAddress;

namespace {

const std::string PROBE = "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')";

long elapsedMs(const Poco::Stopwatch& watch)
{
	return static_cast<long>(watch.elapsed() / 1000);
}

bool contains(const std::vector<char>& types, char type)
{
	return std::find(types.begin(), types.end(), type) != types.end();
}

}


class FakeBackendTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(FakeBackendTest);
	CPPUNIT_TEST(testPrimaryStartup);
	CPPUNIT_TEST(testBindsChosenLoopbackAddress);
	CPPUNIT_TEST(testSslRequestAnsweredN);
	CPPUNIT_TEST(testRoleProbeAnswers);
	CPPUNIT_TEST(testWithoutRoleParameters);
	CPPUNIT_TEST(testStartingUpError);
	CPPUNIT_TEST(testTooManyClientsAfterAuthentication);
	CPPUNIT_TEST(testPasswordFailure);
	CPPUNIT_TEST(testCleartextPassword);
	CPPUNIT_TEST(testMd5Password);
	CPPUNIT_TEST(testCloseOnAccept);
	CPPUNIT_TEST(testCloseAfterStartup);
	CPPUNIT_TEST(testResetAfterStartup);
	CPPUNIT_TEST(testGarbage);
	CPPUNIT_TEST(testStartupDelay);
	CPPUNIT_TEST(testHangEndsPromptlyOnDestruction);
	CPPUNIT_TEST(testSimpleQueries);
	CPPUNIT_TEST(testTransactionStatus);
	CPPUNIT_TEST(testExtendedQuery);
	CPPUNIT_TEST(testCancelRequestInterruptsDelayedQuery);
	CPPUNIT_TEST(testDropConnectionAnswer);
	CPPUNIT_TEST(testCloseAllConnections);
	CPPUNIT_TEST(testSetScriptPromotesOpenSession);
	CPPUNIT_TEST(testCountersAndTerminate);
	CPPUNIT_TEST(testConcurrentClients);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPrimaryStartup()
	{
		FakeBackend backend(BackendScript::primary("15.4"));
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), backend.host());
		CPPUNIT_ASSERT(backend.port() != 0);
		CPPUNIT_ASSERT_EQUAL("127.0.0.1:" + std::to_string(backend.port()), backend.hostAndPort());

		RawClient client(backend.address());
		RawResult result = client.startup("alice", "app");
		CPPUNIT_ASSERT_EQUAL('I', result.status);
		CPPUNIT_ASSERT_EQUAL('R', result.types.front());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), result.authentications.size());
		CPPUNIT_ASSERT_EQUAL(0, result.authentications[0]);
		CPPUNIT_ASSERT_EQUAL(std::string("15.4"), result.parameters["server_version"]);
		CPPUNIT_ASSERT_EQUAL(std::string("off"), result.parameters["in_hot_standby"]);
		CPPUNIT_ASSERT_EQUAL(std::string("off"), result.parameters["default_transaction_read_only"]);
		CPPUNIT_ASSERT_EQUAL(std::string("UTF8"), result.parameters["client_encoding"]);
		CPPUNIT_ASSERT_EQUAL(std::string("peer-test"), result.parameters["application_name"]);
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), result.parameters["session_authorization"]);
		CPPUNIT_ASSERT(result.processId >= 4000);
		CPPUNIT_ASSERT_EQUAL('Z', result.types.back());
		CPPUNIT_ASSERT_EQUAL('K', result.types[result.types.size() - 2]);

		CPPUNIT_ASSERT_EQUAL(1, backend.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(1, backend.startupMessages());
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
		CPPUNIT_ASSERT_EQUAL(0, backend.sslRequests());
		auto startup = backend.lastStartupParameters();
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), startup["user"]);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), startup["database"]);
	}

	void testBindsChosenLoopbackAddress()
	{
		FakeBackend a(BackendScript::primary(), "127.0.0.2");
		FakeBackend b(BackendScript::standby(), "127.0.0.3");
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2"), a.host());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.3"), b.endpoint().host());
		CPPUNIT_ASSERT_EQUAL(b.port(), b.endpoint().port());
		RawClient client(b.address());
		CPPUNIT_ASSERT_EQUAL(std::string("on"), client.startup().parameters["in_hot_standby"]);
		CPPUNIT_ASSERT_EQUAL(0, a.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(1, b.connectionsAccepted());

		// a fixed port on another address works too
		FakeBackend c(BackendScript::primary(), "127.0.0.4", b.port());
		CPPUNIT_ASSERT_EQUAL(b.port(), c.port());
	}

	void testSslRequestAnsweredN()
	{
		FakeBackend backend;
		RawClient client(backend.address());
		RawResult result = client.startup("alice", "app", "", true);
		CPPUNIT_ASSERT_EQUAL('I', result.status);
		CPPUNIT_ASSERT_EQUAL(1, backend.sslRequests());
		CPPUNIT_ASSERT_EQUAL(1, backend.startupMessages());
	}

	void testRoleProbeAnswers()
	{
		struct Case { BackendScript script; std::string recovery, readOnly, hotStandby, defaultReadOnly; };
		std::vector<Case> cases = {
			{BackendScript::primary(), "f", "off", "off", "off"},
			{BackendScript::standby(), "t", "on", "on", "off"},
			{BackendScript::readOnlyPrimary(), "f", "on", "off", "on"}
		};
		for (auto& c: cases)
		{
			FakeBackend backend(c.script);
			RawClient client(backend.address());
			RawResult startup = client.startup();
			CPPUNIT_ASSERT_EQUAL(c.hotStandby, startup.parameters["in_hot_standby"]);
			CPPUNIT_ASSERT_EQUAL(c.defaultReadOnly, startup.parameters["default_transaction_read_only"]);
			RawResult probe = client.query(PROBE);
			CPPUNIT_ASSERT_EQUAL(std::size_t(2), probe.columns.size());
			CPPUNIT_ASSERT_EQUAL(std::string("pg_is_in_recovery"), probe.columns[0]);
			CPPUNIT_ASSERT_EQUAL(std::string("current_setting"), probe.columns[1]);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt32(16), probe.columnTypes[0]);
			CPPUNIT_ASSERT_EQUAL(Poco::UInt32(25), probe.columnTypes[1]);
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), probe.rows.size());
			CPPUNIT_ASSERT_EQUAL(c.recovery, *probe.rows[0][0]);
			CPPUNIT_ASSERT_EQUAL(c.readOnly, *probe.rows[0][1]);
			CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), probe.tags.at(0));
			CPPUNIT_ASSERT_EQUAL('I', probe.status);

			RawResult show = client.query("SHOW transaction_read_only");
			CPPUNIT_ASSERT_EQUAL(std::string("transaction_read_only"), show.columns.at(0));
			CPPUNIT_ASSERT_EQUAL(c.readOnly, *show.rows.at(0).at(0));
			CPPUNIT_ASSERT_EQUAL(2, backend.queryCount());
			CPPUNIT_ASSERT_EQUAL(PROBE, backend.queries()[0]);
		}
	}

	void testWithoutRoleParameters()
	{
		FakeBackend backend(BackendScript::standby().withoutRoleParameters());
		RawClient client(backend.address());
		RawResult startup = client.startup();
		CPPUNIT_ASSERT_EQUAL('I', startup.status);
		CPPUNIT_ASSERT(startup.parameters.count("in_hot_standby") == 0);
		CPPUNIT_ASSERT(startup.parameters.count("default_transaction_read_only") == 0);
		CPPUNIT_ASSERT_EQUAL(std::string("13.11"), startup.parameters["server_version"]);
		RawResult probe = client.query(PROBE);
		CPPUNIT_ASSERT_EQUAL(std::string("t"), *probe.rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("on"), *probe.rows.at(0).at(1));
	}

	void testStartingUpError()
	{
		FakeBackend backend(BackendScript::startingUp());
		RawClient client(backend.address());
		RawResult result = client.startup();
		CPPUNIT_ASSERT(!contains(result.types, 'R'));
		CPPUNIT_ASSERT_EQUAL(std::string("FATAL"), result.error['S']);
		CPPUNIT_ASSERT_EQUAL(std::string("FATAL"), result.error['V']);
		CPPUNIT_ASSERT_EQUAL(std::string("57P03"), result.error['C']);
		CPPUNIT_ASSERT_EQUAL(std::string("the database system is starting up"), result.error['M']);
		CPPUNIT_ASSERT(result.eof);
		CPPUNIT_ASSERT_EQUAL(1, backend.startupMessages());
		CPPUNIT_ASSERT_EQUAL(0, backend.sessionsReady());
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));

		FakeBackend custom(BackendScript::startupError("57P01", "terminating connection due to administrator command"));
		RawClient second(custom.address());
		CPPUNIT_ASSERT_EQUAL(std::string("57P01"), second.startup().error['C']);
	}

	void testTooManyClientsAfterAuthentication()
	{
		FakeBackend backend(BackendScript::tooManyClients());
		RawClient client(backend.address());
		RawResult result = client.startup();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), result.authentications.size());
		CPPUNIT_ASSERT_EQUAL(0, result.authentications[0]);
		CPPUNIT_ASSERT_EQUAL(std::string("53300"), result.error['C']);
		CPPUNIT_ASSERT_EQUAL(std::string("sorry, too many clients already"), result.error['M']);
		CPPUNIT_ASSERT(!contains(result.types, 'Z'));
		CPPUNIT_ASSERT(result.eof);
	}

	void testPasswordFailure()
	{
		FakeBackend backend(BackendScript::passwordFailure());
		RawClient client(backend.address());
		RawResult result = client.startup("bob", "app", "whatever");
		CPPUNIT_ASSERT_EQUAL(3, result.authentications.at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("28P01"), result.error['C']);
		CPPUNIT_ASSERT_EQUAL(std::string("password authentication failed for user \"bob\""), result.error['M']);
		CPPUNIT_ASSERT(result.eof);
		CPPUNIT_ASSERT_EQUAL(1, backend.passwordsReceived());
		CPPUNIT_ASSERT_EQUAL(0, backend.sessionsReady());
	}

	void testCleartextPassword()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::Cleartext, "s3cret"));
		{
			RawClient client(backend.address());
			RawResult result = client.startup("alice", "app", "s3cret");
			CPPUNIT_ASSERT_EQUAL('I', result.status);
			CPPUNIT_ASSERT_EQUAL(3, result.authentications.at(0));
			CPPUNIT_ASSERT_EQUAL(0, result.authentications.at(1));
		}
		RawClient wrong(backend.address());
		RawResult result = wrong.startup("alice", "app", "nope");
		CPPUNIT_ASSERT_EQUAL(std::string("28P01"), result.error['C']);
		CPPUNIT_ASSERT_EQUAL(2, backend.passwordsReceived());
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
	}

	void testMd5Password()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::Md5, "s3cret"));
		{
			RawClient client(backend.address());
			RawResult result = client.startup("alice", "app", "s3cret");
			CPPUNIT_ASSERT_EQUAL(5, result.authentications.at(0));
			CPPUNIT_ASSERT_EQUAL('I', result.status);
		}
		RawClient wrong(backend.address());
		CPPUNIT_ASSERT_EQUAL(std::string("28P01"), wrong.startup("alice", "app", "S3cret").error['C']);
	}

	void testCloseOnAccept()
	{
		FakeBackend backend(BackendScript::closeOnAccept());
		RawClient client(backend.address());
		client.send(Wire::startupMessage({{"user", "alice"}}));
		CPPUNIT_ASSERT_EQUAL(std::string(), client.readAll()); // a clean EOF, no reset
		CPPUNIT_ASSERT_EQUAL(1, backend.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages());
	}

	void testCloseAfterStartup()
	{
		FakeBackend backend(BackendScript::closeAfterStartup());
		RawClient client(backend.address());
		RawResult result = client.startup();
		CPPUNIT_ASSERT(result.eof);
		CPPUNIT_ASSERT(result.types.empty());
		CPPUNIT_ASSERT_EQUAL(1, backend.startupMessages());
	}

	void testResetAfterStartup()
	{
		FakeBackend backend(BackendScript::resetAfterStartup());
		RawClient client(backend.address());
		client.send(Wire::startupMessage({{"user", "alice"}}));
		char buffer[16];
		CPPUNIT_ASSERT_THROW(client.socket().receiveBytes(buffer, sizeof(buffer)), Poco::Net::ConnectionResetException);
		CPPUNIT_ASSERT_EQUAL(1, backend.startupMessages());
	}

	void testGarbage()
	{
		FakeBackend backend(BackendScript::garbage("SSH-2.0-OpenSSH_9.2\r\n"));
		RawClient client(backend.address());
		client.send(Wire::startupMessage({{"user", "alice"}}));
		CPPUNIT_ASSERT_EQUAL(std::string("SSH-2.0-OpenSSH_9.2\r\n"), client.readAll());
	}

	void testStartupDelay()
	{
		FakeBackend backend(BackendScript::primary().delayStartup(300));
		RawClient client(backend.address());
		Poco::Stopwatch watch;
		watch.start();
		RawResult result = client.startup();
		CPPUNIT_ASSERT_EQUAL('I', result.status);
		CPPUNIT_ASSERT(elapsedMs(watch) >= 290);
		CPPUNIT_ASSERT(elapsedMs(watch) < 1000);

		// the delay comes before errors as well
		FakeBackend slowError(BackendScript::startingUp().delayStartup(200));
		RawClient second(slowError.address());
		watch.restart();
		CPPUNIT_ASSERT_EQUAL(std::string("57P03"), second.startup().error['C']);
		CPPUNIT_ASSERT(elapsedMs(watch) >= 190);
	}

	void testHangEndsPromptlyOnDestruction()
	{
		Poco::Stopwatch watch;
		std::unique_ptr<RawClient> client;
		{
			FakeBackend backend(BackendScript::hang());
			client.reset(new RawClient(backend.address()));
			client->send(Wire::startupMessage({{"user", "alice"}}));
			CPPUNIT_ASSERT(backend.waitForConnectionsAccepted(1, Poco::Timespan(1, 0)));
			char buffer[1];
			client->socket().setReceiveTimeout(Poco::Timespan(0, 200000));
			CPPUNIT_ASSERT_THROW(client->socket().receiveBytes(buffer, 1), Poco::TimeoutException);
			CPPUNIT_ASSERT_EQUAL(1, backend.activeConnections());
			watch.start();
		}
		CPPUNIT_ASSERT(elapsedMs(watch) < 300);
		client->socket().setReceiveTimeout(Poco::Timespan(1, 0));
		CPPUNIT_ASSERT_EQUAL(std::string(), client->readAll());

		// a client that gives up ends the hang at once
		FakeBackend backend(BackendScript::hang());
		{
			RawClient quitter(backend.address());
			quitter.send(Wire::startupMessage({{"user", "alice"}}));
			CPPUNIT_ASSERT(backend.waitForConnectionsAccepted(1, Poco::Timespan(1, 0)));
		}
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(0, 500000)));
	}

	void testSimpleQueries()
	{
		FakeBackend backend(BackendScript::primary()
			.answer("SELECT name FROM users", QueryAnswer{{"name"}, {}, {{std::string("ann")}, {std::nullopt}}, "", "", "", 0, false})
			.answer("SELECT broken", QueryAnswer::error("42703", "column \"broken\" does not exist")));
		RawClient client(backend.address());
		client.startup();

		RawResult one = client.query("SELECT 1");
		CPPUNIT_ASSERT_EQUAL(std::string("?column?"), one.columns.at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *one.rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), one.tags.at(0));

		RawResult users = client.query("SELECT name FROM users;");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), users.rows.size());
		CPPUNIT_ASSERT_EQUAL(std::string("ann"), *users.rows[0][0]);
		CPPUNIT_ASSERT(!users.rows[1][0].has_value());
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 2"), users.tags.at(0));

		RawResult broken = client.query("SELECT broken");
		CPPUNIT_ASSERT_EQUAL(std::string("ERROR"), broken.error['S']);
		CPPUNIT_ASSERT_EQUAL(std::string("42703"), broken.error['C']);
		CPPUNIT_ASSERT_EQUAL('I', broken.status);

		RawResult several = client.query("SET search_path = public; DISCARD ALL; SELECT 1");
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), several.tags.size());
		CPPUNIT_ASSERT_EQUAL(std::string("SET"), several.tags[0]);
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), several.tags[1]);
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), several.tags[2]);

		RawResult empty = client.query("  ");
		CPPUNIT_ASSERT(contains(empty.types, 'I'));
		CPPUNIT_ASSERT_EQUAL('I', empty.status);
	}

	void testTransactionStatus()
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT fail", QueryAnswer::error("22012", "division by zero")));
		RawClient client(backend.address());
		client.startup();
		CPPUNIT_ASSERT_EQUAL('T', client.query("BEGIN").status);
		CPPUNIT_ASSERT_EQUAL('T', client.query("SELECT 1").status);
		RawResult failed = client.query("SELECT fail");
		CPPUNIT_ASSERT_EQUAL('E', failed.status);
		RawResult ignored = client.query("SELECT 1");
		CPPUNIT_ASSERT_EQUAL(std::string("25P02"), ignored.error['C']);
		CPPUNIT_ASSERT_EQUAL('E', ignored.status);
		RawResult rollback = client.query("ROLLBACK");
		CPPUNIT_ASSERT_EQUAL(std::string("ROLLBACK"), rollback.tags.at(0));
		CPPUNIT_ASSERT_EQUAL('I', rollback.status);
	}

	void testExtendedQuery()
	{
		FakeBackend backend;
		RawClient client(backend.address());
		client.startup();
		std::string messages =
			Wire::MessageWriter('P').cstring("").cstring("SELECT $1::int + $2").int16(0).finish() +
			Wire::MessageWriter('B').cstring("").cstring("").int16(0).int16(2).int32(1).bytes("1").int32(1).bytes("2").int16(0).finish() +
			Wire::MessageWriter('D').byte('P').cstring("").finish() +
			Wire::MessageWriter('E').cstring("").int32(0).finish() +
			Wire::MessageWriter('S').finish();
		client.send(messages);
		RawResult result = client.readUntilReady();
		std::vector<char> expected = {'1', '2', 'T', 'D', 'C', 'Z'};
		CPPUNIT_ASSERT(expected == result.types);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *result.rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT $1::int + $2"), backend.queries().back());

		// describe a statement: ParameterDescription with one text type per $n
		client.send(Wire::MessageWriter('P').cstring("s1").cstring("SELECT $1, $2, $3").int16(0).finish() +
			Wire::MessageWriter('D').byte('S').cstring("s1").finish() + Wire::MessageWriter('S').finish());
		char type;
		std::string body;
		CPPUNIT_ASSERT(client.readMessage(type, body));
		CPPUNIT_ASSERT_EQUAL('1', type);
		CPPUNIT_ASSERT(client.readMessage(type, body));
		CPPUNIT_ASSERT_EQUAL('t', type);
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(3), Wire::MessageReader(body).int16());

		// an unknown statement: error, then everything is skipped until Sync
		RawResult rest = client.readUntilReady();
		client.send(Wire::MessageWriter('B').cstring("").cstring("nope").int16(0).int16(0).int16(0).finish() +
			Wire::MessageWriter('E').cstring("").int32(0).finish() + Wire::MessageWriter('S').finish());
		RawResult error = client.readUntilReady();
		CPPUNIT_ASSERT_EQUAL(std::string("26000"), error.error['C']);
		std::vector<char> errorTypes = {'E', 'Z'};
		CPPUNIT_ASSERT(errorTypes == error.types);
	}

	void testCancelRequestInterruptsDelayedQuery()
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT pg_sleep(10)", QueryAnswer::value("").delay(10000)));
		RawClient client(backend.address());
		RawResult startup = client.startup();
		Poco::Stopwatch watch;
		watch.start();
		client.send(Wire::query("SELECT pg_sleep(10)"));
		// The cancel must follow the statement, as with PostgreSQL (a cancel that arrives while the session
		// is idle is ignored): wait until the backend has read it.
		CPPUNIT_ASSERT(waitUntil([&backend] { return backend.queryCount() == 1; }, Poco::Timespan(5, 0)));
		{
			RawClient canceller(backend.address());
			canceller.send(Wire::MessageWriter().int32(Wire::CANCEL_REQUEST_CODE).int32(startup.processId).int32(startup.secretKey).finish());
			CPPUNIT_ASSERT_EQUAL(std::string(), canceller.readAll());
		}
		RawResult result = client.readUntilReady();
		CPPUNIT_ASSERT_EQUAL(std::string("57014"), result.error['C']);
		CPPUNIT_ASSERT_EQUAL(std::string("canceling statement due to user request"), result.error['M']);
		CPPUNIT_ASSERT_EQUAL('I', result.status);
		CPPUNIT_ASSERT(elapsedMs(watch) < 1000);
		CPPUNIT_ASSERT_EQUAL(1, backend.cancelRequests());
		CPPUNIT_ASSERT_EQUAL(2, backend.connectionsAccepted());

		// a wrong key cancels nothing
		client.send(Wire::query("SELECT pg_sleep(10)"));
		CPPUNIT_ASSERT(waitUntil([&backend] { return backend.queryCount() == 2; }, Poco::Timespan(5, 0)));
		{
			RawClient canceller(backend.address());
			canceller.send(Wire::MessageWriter().int32(Wire::CANCEL_REQUEST_CODE).int32(startup.processId).int32(startup.secretKey + 1).finish());
			canceller.readAll();
		}
		client.socket().setReceiveTimeout(Poco::Timespan(0, 200000));
		char type;
		std::string body;
		CPPUNIT_ASSERT_THROW(client.readMessage(type, body), Poco::TimeoutException);
	}

	void testDropConnectionAnswer()
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT crash", QueryAnswer::dropConnection()));
		RawClient client(backend.address());
		client.startup();
		RawResult result = client.query("SELECT crash");
		CPPUNIT_ASSERT(result.eof);
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
	}

	void testCloseAllConnections()
	{
		FakeBackend backend;
		RawClient first(backend.address());
		RawClient second(backend.address());
		first.startup();
		second.startup();
		CPPUNIT_ASSERT_EQUAL(2, backend.activeConnections());
		backend.closeAllConnections();
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		CPPUNIT_ASSERT(first.query("SELECT 1").eof);

		RawClient third(backend.address());
		third.startup();
		backend.closeAllConnections(true);
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		char buffer[8];
		CPPUNIT_ASSERT_THROW(third.socket().receiveBytes(buffer, sizeof(buffer)), Poco::Net::ConnectionResetException);

		// the listener still serves new sessions
		RawClient fourth(backend.address());
		CPPUNIT_ASSERT_EQUAL('I', fourth.startup().status);
	}

	void testSetScriptPromotesOpenSession()
	{
		FakeBackend backend(BackendScript::standby());
		RawClient client(backend.address());
		client.startup();
		CPPUNIT_ASSERT_EQUAL(std::string("t"), *client.query(PROBE).rows.at(0).at(0));
		backend.setScript(BackendScript::primary());
		CPPUNIT_ASSERT_EQUAL(std::string("f"), *client.query(PROBE).rows.at(0).at(0));
		backend.setScript(BackendScript::startingUp());
		RawClient later(backend.address());
		CPPUNIT_ASSERT_EQUAL(std::string("57P03"), later.startup().error['C']);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *client.query("SELECT 1").rows.at(0).at(0));
	}

	void testCountersAndTerminate()
	{
		FakeBackend backend;
		{
			RawClient client(backend.address());
			client.startup();
			client.query("SELECT 1");
			client.terminate();
			CPPUNIT_ASSERT_EQUAL(std::string(), client.readAll());
		}
		CPPUNIT_ASSERT_EQUAL(1, backend.terminates());
		CPPUNIT_ASSERT_EQUAL(1, backend.queryCount());
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
		backend.resetCounters();
		CPPUNIT_ASSERT_EQUAL(0, backend.connectionsAccepted());
		CPPUNIT_ASSERT_EQUAL(0, backend.startupMessages());
		CPPUNIT_ASSERT_EQUAL(0, backend.terminates());
		CPPUNIT_ASSERT(backend.queries().empty());
		CPPUNIT_ASSERT(backend.lastStartupParameters().empty());
	}

	void testConcurrentClients()
	{
		FakeBackend backend(BackendScript::primary().delayStartup(200));
		Poco::Stopwatch watch;
		watch.start();
		std::vector<std::unique_ptr<RawClient>> clients;
		for (int i = 0; i < 8; ++i)
		{
			clients.emplace_back(new RawClient(backend.address()));
			clients.back()->send(Wire::startupMessage({{"user", "u" + std::to_string(i)}}));
		}
		for (auto& client: clients) CPPUNIT_ASSERT_EQUAL('I', client->readUntilReady().status);
		CPPUNIT_ASSERT(elapsedMs(watch) < 800); // served in parallel, not 8 x 200 ms
		CPPUNIT_ASSERT_EQUAL(8, backend.sessionsReady());
		CPPUNIT_ASSERT_EQUAL(8, backend.activeConnections());
		clients.clear();
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(1, 0)));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(FakeBackendTest);
