//
// TransactionTest.cpp
//
// Scoped transactions and savepoints against the primary: commit, rollback by the destructor, nested
// savepoints, an aborted transaction (25P02), isolation levels seen from a second session, and a
// serializable conflict that reaches the caller as 40001.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Transaction.h"
#include "TransportTestSupport.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

Poco::Int64 count(Session& session, const std::string& table)
{
	return session.query("SELECT count(*) FROM " + table).row(0).get<Poco::Int64>(0);
}


void createTable(const std::string& name)
{
	ProtocolSession::Ptr admin = openNode(1);
	admin->executeSimple("DROP TABLE IF EXISTS " + name + "; CREATE TABLE " + name + " (id int PRIMARY KEY, v int)");
}

} // namespace


class TransactionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TransactionTest);
	CPPUNIT_TEST(testCommitIsVisibleToOthers);
	CPPUNIT_TEST(testDestructorRollsBack);
	CPPUNIT_TEST(testSavepointRollbackKeepsOuterWork);
	CPPUNIT_TEST(testFailedStatementAbortsUntilRollback);
	CPPUNIT_TEST(testRepeatableReadSnapshot);
	CPPUNIT_TEST(testReadOnly);
	CPPUNIT_TEST(testSerializableConflict);
	CPPUNIT_TEST(testNestedBeginRefused);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCommitIsVisibleToOthers()
	{
		createTable("tx_commit");
		ProtocolSession::Ptr writer = openNode(1);
		ProtocolSession::Ptr reader = openNode(1);
		Transaction transaction(*writer);
		CPPUNIT_ASSERT(writer->transactionStatus() == TransactionStatus::InTransaction);
		writer->query("INSERT INTO tx_commit VALUES ($1, $2)", {1, 10});
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(*writer, "tx_commit"));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(*reader, "tx_commit"));   // read committed: not yet
		transaction.commit();
		CPPUNIT_ASSERT(!transaction.isActive());
		CPPUNIT_ASSERT(writer->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(*reader, "tx_commit"));
		try
		{
			transaction.commit();
			CPPUNIT_FAIL("a finished transaction cannot commit again");
		}
		catch (BlueTuskUsageException&)
		{
		}
	}

	void testDestructorRollsBack()
	{
		createTable("tx_destructor");
		ProtocolSession::Ptr session = openNode(1);
		{
			Transaction transaction(*session);
			session->query("INSERT INTO tx_destructor VALUES ($1, $2)", {1, 10});
		}
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(*session, "tx_destructor"));
		// an exception unwinding through the scope rolls back too
		try
		{
			Transaction transaction(*session);
			session->query("INSERT INTO tx_destructor VALUES ($1, $2)", {2, 20});
			throw std::runtime_error("the application failed");
		}
		catch (std::runtime_error&)
		{
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(*session, "tx_destructor"));
	}

	void testSavepointRollbackKeepsOuterWork()
	{
		createTable("tx_savepoint");
		ProtocolSession::Ptr session = openNode(1);
		Transaction transaction(*session);
		session->query("INSERT INTO tx_savepoint VALUES (1, 1)");
		{
			Savepoint outer(transaction);
			session->query("INSERT INTO tx_savepoint VALUES (2, 2)");
			{
				Savepoint inner(transaction);
				CPPUNIT_ASSERT(inner.name() != outer.name());
				session->query("INSERT INTO tx_savepoint VALUES (3, 3)");
				try
				{
					session->query("INSERT INTO tx_savepoint VALUES (1, 9)");   // duplicate key: aborts up to here
					CPPUNIT_FAIL("duplicate key");
				}
				catch (BlueTuskServerException& exc)
				{
					CPPUNIT_ASSERT_EQUAL(std::string("23505"), exc.sqlState());
				}
				CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Failed);
			}   // inner rolls back: row 3 gone, the transaction usable again
			CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::InTransaction);
			outer.release();
		}
		transaction.commit();
		QueryResult rows = session->query("SELECT id FROM tx_savepoint ORDER BY id");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), rows.rows.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), rows.row(0).get<Poco::Int32>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(2), rows.row(1).get<Poco::Int32>(0));
	}

	void testFailedStatementAbortsUntilRollback()
	{
		createTable("tx_failed");
		ProtocolSession::Ptr session = openNode(1);
		Transaction transaction(*session);
		session->query("INSERT INTO tx_failed VALUES (1, 1)");
		try
		{
			session->query("SELECT 1 / 0");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("22012"), exc.sqlState());
		}
		try
		{
			session->query("SELECT 1");
			CPPUNIT_FAIL("the aborted transaction refuses further statements");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("25P02"), exc.sqlState());
		}
		try
		{
			transaction.commit();
			CPPUNIT_FAIL("COMMIT of a failed transaction is a rollback and must say so");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("25P02"), exc.sqlState());
			CPPUNIT_ASSERT(exc.message().find("COMMIT rolled it back") != std::string::npos);
		}
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(*session, "tx_failed"));
	}

	void testRepeatableReadSnapshot()
	{
		createTable("tx_snapshot");
		ProtocolSession::Ptr reader = openNode(1);
		ProtocolSession::Ptr writer = openNode(1);
		Transaction transaction(*reader, IsolationLevel::RepeatableRead);
		CPPUNIT_ASSERT_EQUAL(std::string("repeatable read"), reader->query("SHOW transaction_isolation").row(0).get<std::string>(0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(*reader, "tx_snapshot"));
		writer->query("INSERT INTO tx_snapshot VALUES (1, 1)");
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), count(*reader, "tx_snapshot"));   // its snapshot does not move
		transaction.commit();
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), count(*reader, "tx_snapshot"));
	}

	void testReadOnly()
	{
		createTable("tx_read_only");
		ProtocolSession::Ptr session = openNode(1);
		Transaction transaction(*session, IsolationLevel::Serializable, true, true);
		CPPUNIT_ASSERT_EQUAL(std::string("on"), session->query("SHOW transaction_read_only").row(0).get<std::string>(0));
		CPPUNIT_ASSERT_EQUAL(std::string("on"), session->query("SHOW transaction_deferrable").row(0).get<std::string>(0));
		try
		{
			session->query("INSERT INTO tx_read_only VALUES (1, 1)");
			CPPUNIT_FAIL("a read-only transaction refuses writes");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("25006"), exc.sqlState());
		}
	}

	void testSerializableConflict()
	{
		createTable("tx_serial");
		ProtocolSession::Ptr a = openNode(1);
		ProtocolSession::Ptr b = openNode(1);
		a->executeSimple("INSERT INTO tx_serial VALUES (1, 0), (2, 0)");
		// write skew: each reads the other's row and writes its own
		Transaction ta(*a, IsolationLevel::Serializable);
		Transaction tb(*b, IsolationLevel::Serializable);
		a->query("SELECT v FROM tx_serial WHERE id = 2");
		b->query("SELECT v FROM tx_serial WHERE id = 1");
		a->query("UPDATE tx_serial SET v = 1 WHERE id = 1");
		b->query("UPDATE tx_serial SET v = 1 WHERE id = 2");
		ta.commit();
		std::string state;
		try
		{
			tb.commit();
		}
		catch (BlueTuskServerException& exc)
		{
			state = exc.sqlState();
		}
		CPPUNIT_ASSERT_EQUAL(std::string("40001"), state);
		CPPUNIT_ASSERT(b->transactionStatus() == TransactionStatus::Idle);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), b->query("SELECT sum(v) FROM tx_serial").row(0).get<Poco::Int64>(0));
	}

	void testNestedBeginRefused()
	{
		ProtocolSession::Ptr session = openNode(1);
		Transaction outer(*session);
		try
		{
			Transaction inner(*session);
			CPPUNIT_FAIL("a transaction inside a transaction block must be refused");
		}
		catch (BlueTuskUsageException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("use a Savepoint") != std::string::npos);
		}
		CPPUNIT_ASSERT(outer.isActive());
		outer.rollback();
		CPPUNIT_ASSERT(session->transactionStatus() == TransactionStatus::Idle);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(TransactionTest);
