//
// CompatibilityTest.cpp
//
// The same Poco::Data code run once with Poco's own libpq-based connector ("postgresql") and once with
// "bluetusk", both on the primary: the results must be equal where the anchor is correct; the documented
// differences (doc/poco-data.md) are asserted as differences, so a change on either side shows up.
//

#include "DataTestSupport.h"
#include "Poco/Version.h"
#include "Poco/Data/BulkBinding.h"
#include "Poco/Data/RecordSet.h"
#include "Poco/Data/Statement.h"
#include "Poco/DateTimeFormatter.h"
#include "Poco/Nullable.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sstream>

using namespace BlueTusk::Test;
using namespace Poco::Data::Keywords;
using Poco::Data::Session;

namespace {

#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL

Session open(const std::string& connector)
{
	return connector == "bluetusk" ? Session("bluetusk", primaryString()) : Session("postgresql", postgresqlString());
}


std::string table(const std::string& connector, const std::string& name)
{
	return name + "_" + (connector == "bluetusk" ? "bt" : "pg");
}


std::string scalars(const std::string& connector)
	/// Integers, doubles, strings, booleans written and read back, as one line of text.
{
	Session session = open(connector);
	const std::string t = table(connector, "compat_scalars");
	session << "DROP TABLE IF EXISTS " + t, now;
	session << "CREATE TABLE " + t + " (i int, b bigint, d float8, s varchar(20), f bool)", now;
	int i = -7;
	Poco::Int64 b = 9000000000LL;
	double d = 2.25;
	std::string s = "h\xC3\xA9llo";
	bool f = true;
	session << "INSERT INTO " + t + " VALUES ($1, $2, $3, $4, $5)", use(i), use(b), use(d), use(s), use(f), now;
	int i2 = 0;
	Poco::Int64 b2 = 0;
	double d2 = 0;
	std::string s2;
	bool f2 = false;
	session << "SELECT i, b, d, s, f FROM " + t, into(i2), into(b2), into(d2), into(s2), into(f2), now;
	std::ostringstream out;
	out << i2 << "|" << b2 << "|" << d2 << "|" << s2 << "|" << f2;
	return out.str();
}


std::string nulls(const std::string& connector)
{
	Session session = open(connector);
	std::vector<Poco::Nullable<int>> values;
	session << "SELECT x FROM (VALUES (1), (NULL), (3)) AS v(x) ORDER BY x NULLS FIRST", into(values), now;
	std::string out;
	for (const auto& v: values) out += v.isNull() ? std::string("NULL,") : std::to_string(v.value()) + ",";
	return out;
}


std::string metadata(const std::string& connector)
	/// RecordSet columns: names and Poco types.
{
	Session session = open(connector);
	Poco::Data::Statement select = (session << "SELECT 1::int2 AS a, 2::int4 AS b, 3::int8 AS c, 1.5::float8 AS d, 'x'::varchar AS e, "
		"'y'::text AS f, true AS g, 'z'::bytea AS h, current_date AS i, now() AS j, 2.5::numeric AS k", now);
	Poco::Data::RecordSet records(select);
	std::string out;
	for (std::size_t c = 0; c < records.columnCount(); ++c)
		out += records.columnName(c) + ":" + std::to_string(static_cast<int>(records.columnType(c))) + ",";
	return out;
}


std::string paging(const std::string& connector)
{
	Session session = open(connector);
	std::vector<int> page;
	Poco::Data::Statement select = (session << "SELECT i FROM generate_series(1, 7) AS i", into(page), limit(3));
	std::string out;
	while (!select.done())
	{
		page.clear();
		out += std::to_string(select.execute()) + ":";
		for (int v: page) out += std::to_string(v) + ",";
		out += ";";
	}
	return out;
}


std::string transactions(const std::string& connector)
{
	Session session = open(connector);
	const std::string t = table(connector, "compat_tx");
	session << "DROP TABLE IF EXISTS " + t, now;
	session << "CREATE TABLE " + t + " (id int)", now;
	session.begin();
	session << "INSERT INTO " + t + " VALUES (1)", now;
	const bool inside = session.isTransaction();
	session.rollback();
	session.begin();
	session << "INSERT INTO " + t + " VALUES (2)", now;
	session.commit();
	int sum = 0;
	session << "SELECT sum(id)::int FROM " + t, into(sum), now;
	return std::to_string(inside) + "|" + std::to_string(session.isTransaction()) + "|" + std::to_string(sum);
}


std::string timestamps(const std::string& connector)
{
	Session session = open(connector);
	Poco::DateTime whole, fraction;
	session << "SELECT timestamp '2024-02-29 12:34:56', timestamp '2024-02-29 12:34:56.123456'", into(whole), into(fraction), now;
	return Poco::DateTimeFormatter::format(whole, "%Y-%m-%d %H:%M:%S.%F") + "|" + Poco::DateTimeFormatter::format(fraction, "%Y-%m-%d %H:%M:%S.%F");
}

#endif

} // namespace


class CompatibilityTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CompatibilityTest);
	CPPUNIT_TEST(testSameResults);
	CPPUNIT_TEST(testDocumentedDifferences);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		registerConnectors();
	}

	void testSameResults()
	{
#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL
		CPPUNIT_ASSERT_EQUAL(std::string("-7|9000000000|2.25|h\xC3\xA9llo|1"), scalars("postgresql"));
		CPPUNIT_ASSERT_EQUAL(scalars("postgresql"), scalars("bluetusk"));
		CPPUNIT_ASSERT_EQUAL(std::string("NULL,1,3,"), nulls("postgresql"));
		CPPUNIT_ASSERT_EQUAL(nulls("postgresql"), nulls("bluetusk"));
		CPPUNIT_ASSERT_EQUAL(metadata("postgresql"), metadata("bluetusk"));
		CPPUNIT_ASSERT_EQUAL(std::string("3:1,2,3,;3:4,5,6,;1:7,;"), paging("bluetusk"));
		CPPUNIT_ASSERT_EQUAL(paging("postgresql"), paging("bluetusk"));
		CPPUNIT_ASSERT_EQUAL(std::string("1|0|2"), transactions("bluetusk"));
		CPPUNIT_ASSERT_EQUAL(transactions("postgresql"), transactions("bluetusk"));
#else
		CPPUNIT_FAIL("Poco's PostgreSQL connector (libPocoDataPostgreSQL, in libpoco-dev) was not found at configure time");
#endif
	}

	void testDocumentedDifferences()
	{
#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL
		// 1. fractions of a second: kept by bluetusk, dropped by the anchor
		CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29 12:34:56.000000|2024-02-29 12:34:56.123456"), timestamps("bluetusk"));
#if POCO_VERSION >= 0x010E0000
		CPPUNIT_ASSERT_EQUAL(timestamps("bluetusk"), timestamps("postgresql"));   // Poco 1.14's keeps them too
#else
		CPPUNIT_ASSERT(timestamps("postgresql") != timestamps("bluetusk"));
#endif
		// 2. uuid: a UUID column for bluetusk, a BLOB for the anchor
		Session anchor = open("postgresql");
		Session ours = open("bluetusk");
		Poco::Data::Statement a = (anchor << "SELECT gen_random_uuid() AS u", now);
		Poco::Data::Statement b = (ours << "SELECT gen_random_uuid() AS u", now);
		CPPUNIT_ASSERT(Poco::Data::RecordSet(a).columnType(0) == Poco::Data::MetaColumn::FDT_BLOB);
		CPPUNIT_ASSERT(Poco::Data::RecordSet(b).columnType(0) == Poco::Data::MetaColumn::FDT_UUID);
		// 3. bulk binding: refused by the anchor, one pipelined batch for bluetusk
		std::vector<int> ids{1, 2, 3};
		anchor << "DROP TABLE IF EXISTS compat_bulk_pg", now;
		anchor << "CREATE TABLE compat_bulk_pg (id int)", now;
		ours << "DROP TABLE IF EXISTS compat_bulk_bt", now;
		ours << "CREATE TABLE compat_bulk_bt (id int)", now;
		bool anchorRefused = false;
		try
		{
			anchor << "INSERT INTO compat_bulk_pg VALUES ($1)", use(ids, bulk), now;
		}
		catch (Poco::Exception&)
		{
			anchorRefused = true;
		}
		CPPUNIT_ASSERT(anchorRefused);
		ours << "INSERT INTO compat_bulk_bt VALUES ($1)", use(ids, bulk), now;
		int sum = 0;
		ours << "SELECT sum(id)::int FROM compat_bulk_bt", into(sum), now;
		CPPUNIT_ASSERT_EQUAL(6, sum);
		// 4. reset(): a no-op for the anchor, a real reset for bluetusk
		anchor << "SET application_name = 'compat-left-over'", now;
		ours << "SET application_name = 'compat-left-over'", now;
		anchor.impl()->reset();
		ours.impl()->reset();
		std::string left, reset;
		anchor << "SHOW application_name", into(left), now;
		ours << "SHOW application_name", into(reset), now;
		CPPUNIT_ASSERT_EQUAL(std::string("compat-left-over"), left);
		CPPUNIT_ASSERT(reset != "compat-left-over");
#else
		CPPUNIT_FAIL("Poco's PostgreSQL connector (libPocoDataPostgreSQL, in libpoco-dev) was not found at configure time");
#endif
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(CompatibilityTest);
