//
// SchemaCycleTest.cpp
//
// What Poco's own Data/PostgreSQL test suite does, with the bluetusk connector and its default settings
// (statement cache on): one Session for everything, the same tables dropped and created again with other
// column types before each test, and the same SQL texts run against each version ("INSERT INTO Strings
// VALUES ($1)" into a VARCHAR, then an INTEGER, a FLOAT, a UUID... column; "INSERT INTO Person VALUES
// ($1, $2, $3, $4)" with an INTEGER, BYTEA, TIMESTAMP, DATE or TIME fourth column), single and bulk, with
// limit(). Before the cache followed the schema, the cached statements kept the first table's parameter and result types. And
// the same cycle when another session changes the table.
//

#include "DataTestSupport.h"
#include "Poco/Data/LOB.h"
#include "Poco/Data/BulkBinding.h"
#include "Poco/Data/BulkExtraction.h"
#include "Poco/Data/Date.h"
#include "Poco/Data/RecordSet.h"
#include "Poco/Data/Statement.h"
#include "Poco/Data/Time.h"
#include "Poco/DateTime.h"
#include "Poco/UUID.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <vector>

using namespace BlueTusk::Test;
using namespace Poco::Data::Keywords;
using Poco::Data::Session;

namespace {

void recreate(Session& session, const std::string& table, const std::string& columns)
	/// Poco's recreate...Table(): DROP TABLE IF EXISTS, then CREATE TABLE, as two statements.
{
	session << "DROP TABLE IF EXISTS " + table, now;
	session << "CREATE TABLE " + table + " (" + columns + ")", now;
}


Poco::Data::BLOB blob(const std::string& bytes)
{
	return Poco::Data::BLOB(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}


template <typename T>
void roundTrip(Session& session, const std::string& type, const T& first, const T& second)
	/// Strings (str <type>): one value inserted with use(), then two more in bulk, read back with into(),
	/// then read with limit(2), each compared with what was written.
{
	recreate(session, "Strings", "str " + type);
	T value = first;
	session << "INSERT INTO Strings VALUES ($1)", use(value), now;
	std::vector<T> more{second, first};
	session << "INSERT INTO Strings VALUES ($1)", use(more), now;
	T back;
	session << "SELECT str FROM Strings LIMIT 1", into(back), now;
	CPPUNIT_ASSERT_MESSAGE(type + ": single value", back == first);
	std::vector<T> all;
	session << "SELECT str FROM Strings", into(all), now;
	CPPUNIT_ASSERT_EQUAL_MESSAGE(type + ": rows", std::size_t(3), all.size());
	CPPUNIT_ASSERT_MESSAGE(type + ": bulk value", all.at(1) == second);
	Poco::Data::Statement paged = (session << "SELECT str FROM Strings", into(all), limit(2));
	all.clear();
	std::size_t pages = 0;
	while (!paged.done())
	{
		paged.execute();
		++pages;
	}
	CPPUNIT_ASSERT_EQUAL_MESSAGE(type + ": rows paged", std::size_t(3), all.size());
	CPPUNIT_ASSERT_MESSAGE(type + ": pages", pages >= 2);
	int count = 0;
	session << "SELECT count(*) FROM Strings", into(count), now;
	CPPUNIT_ASSERT_EQUAL_MESSAGE(type + ": count", 3, count);
}


void allTypes(Session& session)
{
	roundTrip<std::string>(session, "VARCHAR(30)", "abc", "d\xC3\xA9f");
	roundTrip<int>(session, "INTEGER", 42, -7);
	roundTrip<Poco::UInt32>(session, "BIGINT", 4000000000u, 1u);
	roundTrip<Poco::UInt16>(session, "INTEGER", 65000, 3);
	roundTrip<Poco::UInt8>(session, "SMALLINT", 200, 0);
	roundTrip<Poco::Int64>(session, "BIGINT", 9000000000LL, -1);
	roundTrip<float>(session, "REAL", 1.5f, -0.25f);
	roundTrip<double>(session, "DOUBLE PRECISION", 2.25, 1e300);
	roundTrip<double>(session, "FLOAT", 3.5, -4.75);
	roundTrip<bool>(session, "BOOLEAN", true, false);
	roundTrip<Poco::UUID>(session, "UUID", Poco::UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), Poco::UUID("00000000-0000-0000-0000-000000000001"));
	roundTrip<Poco::Data::Date>(session, "DATE", Poco::Data::Date(2024, 2, 29), Poco::Data::Date(1999, 12, 31));
	roundTrip<Poco::Data::Time>(session, "TIME", Poco::Data::Time(12, 30, 15), Poco::Data::Time(23, 59, 59));
	roundTrip<Poco::DateTime>(session, "TIMESTAMP", Poco::DateTime(2024, 2, 29, 12, 30, 15, 123, 456), Poco::DateTime(1970, 1, 2));
	roundTrip<Poco::Data::BLOB>(session, "BYTEA", blob(std::string("\x01\x00\xFF", 3)), blob(std::string("blob")));
	roundTrip<Poco::Data::CLOB>(session, "TEXT", Poco::Data::CLOB(std::string("clob text")), Poco::Data::CLOB(std::string("")));
}


template <typename T>
void personCycle(Session& session, const std::string& fourth, const T& value)
	/// Person (LastName, FirstName, Address, <fourth>) created afresh, one row inserted, its fourth column
	/// read back and compared.
{
	recreate(session, "Person", "LastName VARCHAR(30), FirstName VARCHAR(30), Address VARCHAR(30), " + fourth);
	std::string last = "Simpson", first = "Bart", address = "Springfield";
	T written = value;
	session << "INSERT INTO Person VALUES ($1, $2, $3, $4)", use(last), use(first), use(address), use(written), now;
	T back;
	session << "SELECT " + fourth.substr(0, fourth.find(' ')) + " FROM Person", into(back), now;
	CPPUNIT_ASSERT_MESSAGE(fourth, back == value);
}


const char* const PERSON = "LastName VARCHAR(30), FirstName VARCHAR(30), Address VARCHAR(30)";

} // namespace


class SchemaCycleTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SchemaCycleTest);
	CPPUNIT_TEST(testEveryTypeOnOneSession);
	CPPUNIT_TEST(testEveryTypeInReverseOrder);
	CPPUNIT_TEST(testPersonFourthColumn);
	CPPUNIT_TEST(testRecordSetSeesTheNewTable);
	CPPUNIT_TEST(testAnotherSessionChangesTheTable);
	CPPUNIT_TEST(testReusedStatementAfterDdl);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		registerConnectors();
	}

	void tearDown()
	{
		Session session("bluetusk", primaryString());
		session << "DROP TABLE IF EXISTS Strings", now;
		session << "DROP TABLE IF EXISTS Person", now;
	}

	void testEveryTypeOnOneSession()
	{
		Session session("bluetusk", primaryString());
		allTypes(session);
		allTypes(session);   // the second round meets every statement cached from the first
	}

	void testEveryTypeInReverseOrder()
	{
		// Each type after each other at least once: TEXT -> BYTEA -> TIMESTAMP ... -> VARCHAR.
		Session session("bluetusk", primaryString());
		roundTrip<Poco::Data::CLOB>(session, "TEXT", Poco::Data::CLOB(std::string("x")), Poco::Data::CLOB(std::string("y")));
		roundTrip<Poco::Data::BLOB>(session, "BYTEA", blob(std::string("x")), blob(std::string("y")));
		roundTrip<Poco::DateTime>(session, "TIMESTAMP", Poco::DateTime(2001, 1, 1), Poco::DateTime(2002, 2, 2));
		roundTrip<Poco::UUID>(session, "UUID", Poco::UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8"), Poco::UUID("6ba7b812-9dad-11d1-80b4-00c04fd430c8"));
		roundTrip<double>(session, "DOUBLE PRECISION", 0.5, 1.5);
		roundTrip<int>(session, "INTEGER", 1, 2);
		roundTrip<std::string>(session, "VARCHAR(30)", "one", "two");
	}

	void testPersonFourthColumn()
	{
		// Poco's recreatePersonTable / ...BLOBTable / ...DateTimeTable / ...DateTable / ...TimeTable, each
		// followed by the same "INSERT INTO Person VALUES ($1, $2, $3, $4)".
		Session session("bluetusk", primaryString());
		personCycle(session, "Age INTEGER", 10);
		personCycle(session, "Image BYTEA", blob(std::string("\x89PNG\r\n", 6)));
		personCycle(session, "Born TIMESTAMP", Poco::DateTime(1980, 4, 1, 8, 15, 30, 250, 0));
		personCycle(session, "BornDate DATE", Poco::Data::Date(1980, 4, 1));
		personCycle(session, "BornTime TIME", Poco::Data::Time(8, 15, 30));
		personCycle(session, "Age INTEGER", 11);
	}

	void testRecordSetSeesTheNewTable()
	{
		// "SELECT * FROM Person" cached with four columns, then with five of other types.
		Session session("bluetusk", primaryString());
		recreate(session, "Person", std::string(PERSON) + ", Age INTEGER");
		session << "INSERT INTO Person VALUES ('a', 'b', 'c', 1)", now;
		{
			Poco::Data::Statement select = (session << "SELECT * FROM Person", now);
			Poco::Data::RecordSet rows(select);
			CPPUNIT_ASSERT_EQUAL(std::size_t(4), rows.columnCount());
			CPPUNIT_ASSERT(rows.columnType(3) == Poco::Data::MetaColumn::FDT_INT32);
		}
		recreate(session, "Person", std::string(PERSON) + ", Born TIMESTAMP, Note TEXT");
		session << "INSERT INTO Person VALUES ('a', 'b', 'c', '2020-01-02 03:04:05', 'n')", now;
		Poco::Data::Statement select = (session << "SELECT * FROM Person", now);
		Poco::Data::RecordSet rows(select);
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), rows.columnCount());
		CPPUNIT_ASSERT(rows.columnType(3) == Poco::Data::MetaColumn::FDT_TIMESTAMP);
		CPPUNIT_ASSERT_EQUAL(std::string("born"), rows.columnName(3));
		CPPUNIT_ASSERT_EQUAL(std::string("n"), rows.value(4, 0).convert<std::string>());
	}

	void testAnotherSessionChangesTheTable()
	{
		// A migration from another process while this session holds cached statements: found by the
		// errors (42804, 0A000) or by a value the old types refuse, and retried once outside a transaction.
		Session session("bluetusk", primaryString());
		Session migration("bluetusk", primaryString());
		recreate(migration, "Strings", "str VARCHAR(30)");
		std::string text = "abc";
		session << "INSERT INTO Strings VALUES ($1)", use(text), now;
		recreate(migration, "Strings", "str INTEGER");
		int number = 17;
		session << "INSERT INTO Strings VALUES ($1)", use(number), now;
		recreate(migration, "Strings", "str TIMESTAMP");
		Poco::DateTime when(2021, 5, 6, 7, 8, 9);
		session << "INSERT INTO Strings VALUES ($1)", use(when), now;
		Poco::DateTime back;
		session << "SELECT str FROM Strings", into(back), now;
		CPPUNIT_ASSERT(back == when);
		recreate(migration, "Strings", "str BYTEA");
		Poco::Data::BLOB bytes = blob(std::string("\x00\x01", 2));
		session << "INSERT INTO Strings VALUES ($1)", use(bytes), now;
		Poco::Data::BLOB blobBack;
		session << "SELECT str FROM Strings", into(blobBack), now;
		CPPUNIT_ASSERT(blobBack == bytes);
	}

	void testReusedStatementAfterDdl()
	{
		// One Poco Statement object executed again after its own session changed the table under it.
		Session session("bluetusk", primaryString());
		recreate(session, "Strings", "str VARCHAR(30)");
		session << "INSERT INTO Strings VALUES ('5')", now;
		std::vector<std::string> texts;
		Poco::Data::Statement select = (session << "SELECT str FROM Strings", into(texts));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), select.execute());
		recreate(session, "Strings", "str INTEGER");
		session << "INSERT INTO Strings VALUES (6), (7)", now;
		texts.clear();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), select.execute());
		CPPUNIT_ASSERT_EQUAL(std::string("6"), texts.at(0));
		CPPUNIT_ASSERT_EQUAL(std::string("7"), texts.at(1));
		Poco::Data::RecordSet rows(select);
		CPPUNIT_ASSERT(rows.columnType(0) == Poco::Data::MetaColumn::FDT_INT32);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(SchemaCycleTest);
