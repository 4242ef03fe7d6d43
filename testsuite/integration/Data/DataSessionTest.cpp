//
// DataSessionTest.cpp
//
// Sessions of the bluetusk Poco::Data connector on the local cluster: routing (a refused first host and a
// standby before the primary, read-write lands on the primary), shared data sources and leases,
// transactions and isolation seen from a second session, Poco's Transaction, autoCommit, reset(), close
// then a statement (NotConnectedException without the password), reconnect(), properties, and Poco's
// SessionPool stacked on top with 8 threads.
//

#include "DataTestSupport.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/Data/DataException.h"
#include "Poco/Clock.h"
#include "Poco/Data/SessionPool.h"
#include "Poco/Data/Statement.h"
#include "Poco/Data/Transaction.h"
#include "Poco/Version.h"
#include "Poco/Net/ServerSocket.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <thread>

using namespace BlueTusk::Test;
using namespace Poco::Data::Keywords;
using Poco::Data::Session;

namespace {

std::string node(int n)
{
	return cluster().hosts.at(n - 1);
}


std::string endpointOf(int n)
{
	return node(n) + ":" + std::to_string(cluster().port);
}


int refusedPort()
	/// A loopback port nobody listens on (bound, then closed).
{
	Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
	const int port = socket.address().port();
	socket.close();
	return port;
}


Poco::Int64 count(Session& session, const std::string& table)
{
	Poco::Int64 n = -1;
	session << "SELECT count(*) FROM " + table, into(n), now;
	return n;
}


Poco::Int64 countWhere(Session& session, const std::string& table, const std::string& condition)
{
	return count(session, table + " WHERE " + condition);
}

} // namespace


class DataSessionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DataSessionTest);
	CPPUNIT_TEST(testReadWriteLandsOnPrimary);
	CPPUNIT_TEST(testPreferStandbyAndProperties);
	CPPUNIT_TEST(testEveryConnectionStringForm);
	CPPUNIT_TEST(testSameStringSharesOneDataSource);
	CPPUNIT_TEST(testTransactionsAndIsolation);
	CPPUNIT_TEST(testPocoTransaction);
	CPPUNIT_TEST(testAutoCommit);
	CPPUNIT_TEST(testResetReallyResets);
	CPPUNIT_TEST(testCloseThenStatement);
	CPPUNIT_TEST(testReconnectRoutesAnew);
	CPPUNIT_TEST(testConnectFailureNamesAttempts);
	CPPUNIT_TEST(testStatementErrorCarriesSqlState);
	CPPUNIT_TEST(testSessionPoolWithEightThreads);
	CPPUNIT_TEST(testOpenDuringFailoverLandsOnPromotedNode);
	CPPUNIT_TEST(testLoginTimeoutBoundsTheCheckout);
	CPPUNIT_TEST(testLoginTimeoutBoundsTheFailoverWait);
	CPPUNIT_TEST(testConnectionTimeoutStaysWithItsSession);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		registerConnectors();
	}

	void testReadWriteLandsOnPrimary()
	{
		const std::string hosts = "127.0.0.1:" + std::to_string(refusedPort()) + "," + node(2) + "," + node(1);
		Session session("bluetusk", bluetuskString(hosts, "Target Session Attributes=read-write"));
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), Poco::AnyCast<std::string>(session.getProperty("endpoint")));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), Poco::AnyCast<std::string>(session.getProperty("role")));
		bool recovery = true;
		session << "SELECT pg_is_in_recovery()", into(recovery), now;
		CPPUNIT_ASSERT(!recovery);
	}

	void testPreferStandbyAndProperties()
	{
		Session session("bluetusk", bluetuskString(node(1) + "," + node(2), "Target Session Attributes=prefer-standby"));
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), Poco::AnyCast<std::string>(session.getProperty("endpoint")));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), Poco::AnyCast<std::string>(session.getProperty("role")));
		BlueTusk::BlueTuskConnection* connection = Poco::AnyCast<BlueTusk::BlueTuskConnection*>(session.getProperty("connection"));
		CPPUNIT_ASSERT(connection && connection->isPooled());
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), connection->connectedEndpoint().toString());
		CPPUNIT_ASSERT(session.getFeature("bulk"));
		CPPUNIT_ASSERT_THROW(session.setProperty("endpoint", std::string("x")), Poco::InvalidAccessException);
		// the shared data source as the raw pointer and as the shared_ptr a metrics exporter attaches
		BlueTusk::BlueTuskDataSource* raw = Poco::AnyCast<BlueTusk::BlueTuskDataSource*>(session.getProperty("dataSource"));
		BlueTusk::BlueTuskDataSource::Ptr shared = Poco::AnyCast<BlueTusk::BlueTuskDataSource::Ptr>(session.getProperty("sharedDataSource"));
		CPPUNIT_ASSERT(raw != nullptr);
		CPPUNIT_ASSERT_EQUAL(raw, shared.get());
		std::size_t busyOnStandby = 0;
		for (const auto& pool: shared->getHostPoolStatistics())
			if (pool.first.toString() == endpointOf(2)) busyOnStandby = pool.second.busy;
		CPPUNIT_ASSERT(busyOnStandby >= 1);   // this session's lease, seen through the shared_ptr
		CPPUNIT_ASSERT_THROW(session.setProperty("sharedDataSource", shared), Poco::InvalidAccessException);
	}

	void testEveryConnectionStringForm()
	{
		// the anchor's libpq keyword/value string works unchanged, and so does a URL
		const ClusterInfo& c = cluster();
		const std::string port = std::to_string(c.port);
		const std::string libpq = "host=" + node(2) + "," + node(1) + " port=" + port + " user=" + c.user + " password=" + c.password +
			" dbname=" + c.database + " sslmode=disable target_session_attrs=read-write";
		const std::string url = "postgresql://" + c.user + ":" + c.password + "@" + node(3) + ":" + port + "," + node(1) + ":" + port + "/" +
			c.database + "?sslmode=disable&target_session_attrs=standby";
		Session keywordValue("bluetusk", libpq);
		Session fromUrl("bluetusk", url);
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), Poco::AnyCast<std::string>(keywordValue.getProperty("endpoint")));
		CPPUNIT_ASSERT_EQUAL(endpointOf(3), Poco::AnyCast<std::string>(fromUrl.getProperty("endpoint")));
		CPPUNIT_ASSERT(keywordValue.uri().find(c.password) == std::string::npos);
		CPPUNIT_ASSERT(fromUrl.uri().find(c.password) == std::string::npos);
	}

	void testSameStringSharesOneDataSource()
	{
		const std::string text = primaryString("Maximum Pool Size=2");
		std::string firstPid, secondPid, thirdPid;
		{
			Session first("bluetusk", text);
			first << "SELECT pg_backend_pid()::text", into(firstPid), now;
			Session second("bluetusk", text);   // the first still holds its lease: another session
			second << "SELECT pg_backend_pid()::text", into(secondPid), now;
			CPPUNIT_ASSERT(firstPid != secondPid);
		}
		Session third("bluetusk", text);   // a lease from the same pool: one of the two backends again
		third << "SELECT pg_backend_pid()::text", into(thirdPid), now;
		CPPUNIT_ASSERT(thirdPid == firstPid || thirdPid == secondPid);
		BlueTusk::BlueTuskConnection* connection = Poco::AnyCast<BlueTusk::BlueTuskConnection*>(third.getProperty("handle"));
		CPPUNIT_ASSERT_EQUAL(1, connection->attemptLog().size() == 1 && connection->attemptLog()[0].reused ? 1 : 0);
	}

	void testTransactionsAndIsolation()
	{
		Session writer("bluetusk", primaryString());
		Session reader("bluetusk", primaryString());
		writer << "DROP TABLE IF EXISTS pd_tx; CREATE TABLE pd_tx (id int)", now;
		CPPUNIT_ASSERT(!writer.isTransaction());
		writer.begin();
		CPPUNIT_ASSERT(writer.isTransaction());
		writer << "INSERT INTO pd_tx VALUES (1)", now;
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(reader, "pd_tx"));
		writer.commit();
		CPPUNIT_ASSERT(!writer.isTransaction());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(reader, "pd_tx"));
		writer.begin();
		writer << "INSERT INTO pd_tx VALUES (2)", now;
		writer.rollback();
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(reader, "pd_tx"));
		// isolation: repeatable read keeps its snapshot while another session writes
		reader.setTransactionIsolation(Session::TRANSACTION_REPEATABLE_READ);
		CPPUNIT_ASSERT(reader.isTransactionIsolation(Session::TRANSACTION_REPEATABLE_READ));
		std::string level;
		reader << "SHOW default_transaction_isolation", into(level), now;
		CPPUNIT_ASSERT_EQUAL(std::string("repeatable read"), level);
		reader.begin();
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(reader, "pd_tx"));
		writer << "INSERT INTO pd_tx VALUES (3)", now;
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(reader, "pd_tx"));
		reader.commit();
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(2), count(reader, "pd_tx"));
		CPPUNIT_ASSERT_THROW(reader.setTransactionIsolation(Session::TRANSACTION_READ_UNCOMMITTED), Poco::InvalidArgumentException);
		CPPUNIT_ASSERT(!reader.hasTransactionIsolation(Session::TRANSACTION_READ_UNCOMMITTED));
	}

	void testPocoTransaction()
	{
		Session session("bluetusk", primaryString());
		session << "DROP TABLE IF EXISTS pd_ptx; CREATE TABLE pd_ptx (id int)", now;
		{
			Poco::Data::Transaction transaction(session);
			session << "INSERT INTO pd_ptx VALUES (1)", now;
		}   // not committed: rolled back
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(session, "pd_ptx"));
		{
			Poco::Data::Transaction transaction(session);
			session << "INSERT INTO pd_ptx VALUES (2)", now;
			transaction.commit();
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(session, "pd_ptx"));
		// Since Poco 1.13 Session::begin() turns autoCommit off before the connector's begin() and on again
		// after commit(): neither is "already in a transaction", and afterwards statements autocommit again.
		Session other("bluetusk", primaryString());
		{
			Poco::Data::Transaction transaction(session);
			CPPUNIT_ASSERT(session.isTransaction());
			session << "UPDATE pd_ptx SET id = 3", now;
			CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), countWhere(other, "pd_ptx", "id = 3"));
			transaction.commit();
		}
		CPPUNIT_ASSERT(!session.isTransaction());
		CPPUNIT_ASSERT(session.getFeature("autoCommit"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), countWhere(other, "pd_ptx", "id = 3"));
		session << "INSERT INTO pd_ptx VALUES (4)", now;
		CPPUNIT_ASSERT(!session.isTransaction());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(2), count(other, "pd_ptx"));
	}

	void testAutoCommit()
	{
		Session session("bluetusk", primaryString());
		Session other("bluetusk", primaryString());
		session << "DROP TABLE IF EXISTS pd_auto; CREATE TABLE pd_auto (id int)", now;
		CPPUNIT_ASSERT(session.getFeature("autoCommit"));
		session.setFeature("autoCommit", false);   // a transaction begins: at once on Poco 1.11, with the next
		                                           // statement on 1.13 and later (as Poco's own connectors)
		session << "INSERT INTO pd_auto VALUES (1)", now;
		CPPUNIT_ASSERT(session.isTransaction());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(other, "pd_auto"));
		session.commit();
		session << "INSERT INTO pd_auto VALUES (2)", now;   // runs in a new transaction
		CPPUNIT_ASSERT(session.isTransaction());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(other, "pd_auto"));
		session.rollback();
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(other, "pd_auto"));
		session << "INSERT INTO pd_auto VALUES (3)", now;
#if POCO_VERSION >= 0x010D0000
		// Poco 1.13 and later: autoCommit does not change inside a transaction (as Poco's own connectors)
		CPPUNIT_ASSERT_THROW(session.setFeature("autoCommit", true), Poco::InvalidAccessException);
		CPPUNIT_ASSERT(!session.getFeature("autoCommit"));
		session.commit();
#endif
		session.setFeature("autoCommit", true);    // Poco 1.11: commits the open transaction
		CPPUNIT_ASSERT(!session.isTransaction());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(2), count(other, "pd_auto"));
		session << "INSERT INTO pd_auto VALUES (4)", now;
		CPPUNIT_ASSERT(!session.isTransaction());
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(3), count(other, "pd_auto"));
	}

	void testResetReallyResets()
	{
		Session session("bluetusk", primaryString());
		session << "SET search_path = pg_catalog", now;
		session << "CREATE TEMP TABLE pd_scratch (a int)", now;
		session.setFeature("autoCommit", false);
		session.setTransactionIsolation(Session::TRANSACTION_SERIALIZABLE);
		session.impl()->reset();   // what Poco's SessionPool calls on a returned session
		CPPUNIT_ASSERT(!session.isTransaction());
		CPPUNIT_ASSERT(session.getFeature("autoCommit"));
		CPPUNIT_ASSERT(session.isTransactionIsolation(Session::TRANSACTION_READ_COMMITTED));
		std::string path;
		session << "SHOW search_path", into(path), now;
		CPPUNIT_ASSERT_EQUAL(std::string("\"$user\", public"), path);
		Poco::Int64 temps = -1;
		session << "SELECT count(*) FROM pg_class WHERE relname = 'pd_scratch'", into(temps), now;
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), temps);
		CPPUNIT_ASSERT(session.isGood());
	}

	void testCloseThenStatement()
	{
		const std::string text = primaryString();
		Session session("bluetusk", text);
		CPPUNIT_ASSERT(session.isConnected());
		CPPUNIT_ASSERT(session.uri().find(cluster().password) == std::string::npos);
		CPPUNIT_ASSERT(session.uri().find("Password=***") != std::string::npos);
		session.close();
		CPPUNIT_ASSERT(!session.isConnected());
		CPPUNIT_ASSERT(!session.isGood());
		try
		{
			int one = 0;
			session << "SELECT 1", into(one), now;
			CPPUNIT_FAIL("a closed session must refuse statements");
		}
		catch (Poco::Data::NotConnectedException& exc)
		{
			CPPUNIT_ASSERT(exc.displayText().find(cluster().password) == std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find("Host=127.0.0.1") != std::string::npos);
		}
		session.open();
		int one = 0;
		session << "SELECT 1", into(one), now;
		CPPUNIT_ASSERT_EQUAL(1, one);
	}

	void testReconnectRoutesAnew()
	{
		Session session("bluetusk", bluetuskString(node(1) + "," + node(2)));
		std::string before;
		session << "SELECT pg_backend_pid()::text", into(before), now;
		try
		{
			session << "SELECT pg_terminate_backend(pg_backend_pid())", now;   // the server ends this session
			CPPUNIT_FAIL("the terminated session must report it");
		}
		catch (BlueTusk::Data::StatementException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("57P01"), exc.sqlState());
			CPPUNIT_ASSERT(!exc.sessionUsable());
		}
		CPPUNIT_ASSERT(!session.isGood());
		session.reconnect();
		CPPUNIT_ASSERT(session.isGood());
		std::string after;
		session << "SELECT pg_backend_pid()::text", into(after), now;
		CPPUNIT_ASSERT(after != before);
	}

	void testConnectFailureNamesAttempts()
	{
		const int port = refusedPort();
		const std::string marker = "MarkerSecret-9f3c";
		const std::string text = "Host=127.0.0.1,127.0.0.2;Port=" + std::to_string(port) + ";Username=bluetusk;Password=" + marker +
			";Timeout=2;SSL Mode=disable";
		try
		{
			Session session("bluetusk", text);
			CPPUNIT_FAIL("nothing listens there");
		}
		catch (Poco::Data::ConnectionFailedException& exc)
		{
			const std::string shown = exc.displayText();
			CPPUNIT_ASSERT(shown.find(marker) == std::string::npos);
			CPPUNIT_ASSERT(shown.find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
			CPPUNIT_ASSERT(shown.find("127.0.0.2:" + std::to_string(port)) != std::string::npos);
			CPPUNIT_ASSERT(shown.find("refused") != std::string::npos);
			CPPUNIT_ASSERT(dynamic_cast<const BlueTusk::BlueTuskException*>(exc.nested()) != nullptr);
			CPPUNIT_ASSERT(dynamic_cast<BlueTusk::Data::ConnectionException*>(&exc) != nullptr);
		}
	}

	void testStatementErrorCarriesSqlState()
	{
		Session session("bluetusk", primaryString());
		session << "DROP TABLE IF EXISTS pd_unique; CREATE TABLE pd_unique (id int PRIMARY KEY)", now;
		session << "INSERT INTO pd_unique VALUES (1)", now;
		try
		{
			session << "INSERT INTO pd_unique VALUES (1)", now;
			CPPUNIT_FAIL("duplicate key");
		}
		catch (Poco::Data::ExecutionException& exc)
		{
			auto* statement = dynamic_cast<BlueTusk::Data::StatementException*>(&exc);
			CPPUNIT_ASSERT(statement);
			CPPUNIT_ASSERT_EQUAL(std::string("23505"), statement->sqlState());
			CPPUNIT_ASSERT_EQUAL(std::string("pd_unique_pkey"), statement->fields().constraint);
			CPPUNIT_ASSERT(exc.message().find("INSERT INTO pd_unique VALUES (1)") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(session, "pd_unique"));
	}

	void testOpenDuringFailoverLandsOnPromotedNode()
	{
		// The primary is down and node 2 is promoted a second later: a read-write session opened in between
		// waits (Failover Timeout) and lands on the new primary.
		struct Restore
		{
			~Restore()
			{
				cluster().runClusterCommand("reset");
				// The reset rebuilt every server: the idle sessions the suite's shared data sources pooled
				// before it talk to servers that are gone. Drain them, so the fixtures after this one start
				// as on a fresh cluster (DataTypesTest's first statement met such a session under load).
				BlueTusk::Data::Connector::unregisterConnector();
				BlueTusk::Data::Connector::registerConnector();
			}
		} restore;
		CPPUNIT_ASSERT_EQUAL(0, cluster().runClusterCommand("stop-node 1"));
		std::thread promote([]
		{
			std::this_thread::sleep_for(std::chrono::seconds(1));
			cluster().runClusterCommand("promote 2");
		});
		std::string endpoint;
		try
		{
			Session session("bluetusk", bluetuskString(node(1) + "," + node(2) + "," + node(3),
				"Target Session Attributes=read-write;Failover Timeout=30;Timeout=2"));
			endpoint = Poco::AnyCast<std::string>(session.getProperty("endpoint"));
			session << "CREATE TEMP TABLE pd_after_failover (a int)", now;   // writable
		}
		catch (...)
		{
			promote.join();
			throw;
		}
		promote.join();
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), endpoint);
	}

	void testLoginTimeoutBoundsTheCheckout()
	{
		// one session per endpoint at most: a second Session waits for it, but only its login timeout (1 s)
		const std::string text = primaryString("Maximum Pool Size=1;Checkout Timeout=30");
		Session holder("bluetusk", text, 1);
		Poco::Clock clock;
		try
		{
			Session second("bluetusk", text, 1);
			CPPUNIT_FAIL("the pool is full: the checkout must time out");
		}
		catch (BlueTusk::Data::ConnectionException& exc)
		{
			CPPUNIT_ASSERT(dynamic_cast<const BlueTusk::BlueTuskPoolTimeoutException*>(exc.nested()) != nullptr);
		}
		const double seconds = clock.elapsed() / 1e6;
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds >= 0.9 && seconds < 5);
	}

	void testLoginTimeoutBoundsTheFailoverWait()
	{
		// no primary among the hosts: a read-write open waits for one, Failover Timeout=30, but only its login
		// timeout (1 s; a new-user trial waited the whole 30 s)
		const std::string text = bluetuskString(node(2) + "," + node(3), "Target Session Attributes=read-write;Failover Timeout=30");
		Poco::Clock clock;
		try
		{
			Session session("bluetusk", text, 1);
			CPPUNIT_FAIL("no primary: the open must fail");
		}
		catch (BlueTusk::Data::ConnectionException&)
		{
		}
		const double seconds = clock.elapsed() / 1e6;
		CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds >= 0.9 && seconds < 5);
	}

	void testConnectionTimeoutStaysWithItsSession()
	{
		// setConnectionTimeout() is the command timeout of one Poco session (found by review, session 9):
		// it used to stay on the pooled server session, so the next Poco session on it, which set none,
		// had its 1.5 s statement cancelled after 1 s.
		const std::string text = primaryString("Maximum Pool Size=1;Application Name=timeout-stays");
		std::string firstPid, secondPid;
		{
			Session first("bluetusk", text);
			first.setConnectionTimeout(1);
			first << "SELECT pg_backend_pid()::text", into(firstPid), now;
			CPPUNIT_ASSERT_THROW((first << "SELECT pg_sleep(1.5)", now), Poco::Data::DataException);   // it does apply here
		}
		Session second("bluetusk", text);
		second << "SELECT pg_backend_pid()::text", into(secondPid), now;
		CPPUNIT_ASSERT_EQUAL(firstPid, secondPid);   // the same server session
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), second.getConnectionTimeout());
		second << "SELECT pg_sleep(1.5)", now;
		int one = 0;
		second << "SELECT 1", into(one), now;
		CPPUNIT_ASSERT_EQUAL(1, one);
	}

	void testSessionPoolWithEightThreads()
	{
		// Poco's SessionPool (at most 4) over bluetusk sessions (at most 4 per endpoint): the documented rule
		Poco::Data::SessionPool pool("bluetusk", primaryString("Maximum Pool Size=4"), 1, 4);
		std::atomic<int> done{0};
		std::atomic<int> failures{0};
		std::vector<std::thread> threads;
		for (int t = 0; t < 8; ++t)
		{
			threads.emplace_back([&, t]
			{
				for (int i = 0; i < 25; ++i)
				{
					try
					{
						Session session(pool.get());
						int value = 0;
						int input = t * 100 + i;
						session << "SELECT $1::int4 + 1", use(input), into(value), now;
						if (value == input + 1) ++done;
						else ++failures;
					}
					catch (Poco::Data::SessionPoolExhaustedException&)
					{
						std::this_thread::sleep_for(std::chrono::milliseconds(5));   // Poco's pool throws at once when full
						--i;
					}
					catch (...)
					{
						++failures;
					}
				}
			});
		}
		for (auto& thread: threads) thread.join();
		CPPUNIT_ASSERT_EQUAL(0, failures.load());
		CPPUNIT_ASSERT_EQUAL(200, done.load());
		CPPUNIT_ASSERT(pool.allocated() <= 4);
		CPPUNIT_ASSERT_EQUAL(pool.allocated(), pool.idle());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(DataSessionTest);
