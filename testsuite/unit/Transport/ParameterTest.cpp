//
// ParameterTest.cpp
//
// Typed parameters: the natural type OIDs, the binary forms PostgreSQL's *_recv functions read, the
// conversions to the type the server inferred, and the refusals; the statement cache's LRU and counting.
//

#include "BlueTusk/BlueTuskException.h"
#include "protocol/MessageWriter.h"
#include "BlueTusk/Parameter.h"
#include "session/StatementCache.h"
#include "BlueTusk/Transaction.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>

using namespace BlueTusk;

namespace {

std::string bytes(std::initializer_list<int> values)
{
	std::string out;
	for (int v: values) out.push_back(static_cast<char>(v));
	return out;
}


std::string wire(const Parameter& parameter, Poco::UInt32 target, bool expectBinary = true)
{
	std::string out;
	const bool binary = parameter.encode(target, 0, out);
	CPPUNIT_ASSERT_EQUAL(expectBinary, binary);
	return out;
}


std::string refusal(const Parameter& parameter, Poco::UInt32 target)
{
	std::string out;
	try
	{
		parameter.encode(target, 1, out);
	}
	catch (BlueTuskTypeException& exc)
	{
		return exc.message();
	}
	return "(no error)";
}


StatementCache::DescriptionPtr statement(const std::string& sql, const std::string& name)
{
	auto description = std::make_shared<PreparedStatement::Description>();
	description->sql = sql;
	description->name = name;
	return description;
}

} // namespace


class ParameterTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ParameterTest);
	CPPUNIT_TEST(testNaturalTypes);
	CPPUNIT_TEST(testBinaryForms);
	CPPUNIT_TEST(testConversionsToInferredTypes);
	CPPUNIT_TEST(testRefusals);
	CPPUNIT_TEST(testBindMessage);
	CPPUNIT_TEST(testCacheMinUsages);
	CPPUNIT_TEST(testCacheLruEviction);
	CPPUNIT_TEST(testCacheKeyIncludesTypes);
	CPPUNIT_TEST(testCacheOff);
	CPPUNIT_TEST(testBeginSql);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNaturalTypes()
	{
		CPPUNIT_ASSERT_EQUAL(TypeOid::Bool, Parameter(true).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Int2, Parameter(static_cast<Poco::Int16>(1)).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Int4, Parameter(1).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Int4, Parameter(static_cast<Poco::UInt16>(1)).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Int8, Parameter(1u).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Int8, Parameter(1LL).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Float4, Parameter(1.0f).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Float8, Parameter(1.0).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Unspecified, Parameter("text").naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Bytea, Parameter(Bytes{1, 2}).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Uuid, Parameter(Poco::UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::TimestampTz, Parameter(Poco::Timestamp()).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Timestamp, Parameter::timestamp(Poco::DateTime()).naturalOid());
		CPPUNIT_ASSERT_EQUAL(TypeOid::Date, Parameter::date(Poco::DateTime()).naturalOid());
		CPPUNIT_ASSERT(Parameter(std::optional<int>()).isNull());
		CPPUNIT_ASSERT(!Parameter(std::optional<int>(3)).isNull());
		CPPUNIT_ASSERT(Parameter(std::nullopt).isNull());
		CPPUNIT_ASSERT(Parameter(static_cast<const char*>(nullptr)).isNull());
		try
		{
			Parameter p(static_cast<Poco::UInt64>(1) << 63);
			CPPUNIT_FAIL("2^63 does not fit int8");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("the unsigned value 9223372036854775808 is beyond int8's maximum (2^63-1)"), exc.message());
		}
	}

	void testBinaryForms()
	{
		CPPUNIT_ASSERT_EQUAL(bytes({0xFF, 0xFE}), wire(Parameter(static_cast<Poco::Int16>(-2)), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0x80, 0, 0, 0}), wire(Parameter(-2147483647 - 1), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), wire(Parameter(-1LL), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0x3F, 0xF8, 0, 0, 0, 0, 0, 0}), wire(Parameter(1.5), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0xC0, 0x20, 0, 0}), wire(Parameter(-2.5f), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({1}), wire(Parameter(true), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0xFF}), wire(Parameter(Bytes{0, 0xFF}), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}),
			wire(Parameter(Poco::UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")), 0));
		// 2000-01-01 00:00:00.000001 UTC is 1 microsecond after PostgreSQL's epoch
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 0, 0, 0, 0, 1}), wire(Parameter(Poco::Timestamp(946684800000001LL)), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), wire(Parameter(Poco::DateTime(1999, 12, 31, 23, 59, 59, 999, 999)), 0));
		// 2000-02-29 is day 59; 12:00:00.5 is 43200500000 microseconds
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 59}), wire(Parameter::date(Poco::DateTime(2000, 2, 29, 13, 0)), 0));
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 0x0A, 0x0E, 0xF3, 0x51, 0x20}), wire(Parameter::time(Poco::Timespan(43200500000LL)), 0));
		// NaN and infinity are float8 values like any other
		CPPUNIT_ASSERT_EQUAL(bytes({0x7F, 0xF0, 0, 0, 0, 0, 0, 0}), wire(Parameter(HUGE_VAL), 0));
		// strings go in text format, unchanged
		CPPUNIT_ASSERT_EQUAL(std::string("h\xC3\xA9"), wire(Parameter("h\xC3\xA9"), TypeOid::Int4, false));
	}

	void testConversionsToInferredTypes()
	{
		// an int32 widens to int8; an int64 narrows when it fits
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 0, 0, 0, 0, 7}), wire(Parameter(7), TypeOid::Int8));
		CPPUNIT_ASSERT_EQUAL(bytes({0, 7}), wire(Parameter(7LL), TypeOid::Int2));
		// numbers into numeric and text go as text
		CPPUNIT_ASSERT_EQUAL(std::string("-42"), wire(Parameter(-42), TypeOid::Numeric, false));
		CPPUNIT_ASSERT_EQUAL(std::string("0.1"), wire(Parameter(0.1), TypeOid::Numeric, false));
		CPPUNIT_ASSERT_EQUAL(std::string("42"), wire(Parameter(42), TypeOid::Text, false));
		CPPUNIT_ASSERT_EQUAL(std::string("true"), wire(Parameter(true), TypeOid::Varchar, false));
		// an integer into float8 is exact up to 2^53; a float into float8 too
		CPPUNIT_ASSERT_EQUAL(bytes({0x40, 0x45, 0, 0, 0, 0, 0, 0}), wire(Parameter(42), TypeOid::Float8));
		CPPUNIT_ASSERT_EQUAL(bytes({0x3F, 0xF8, 0, 0, 0, 0, 0, 0}), wire(Parameter(1.5f), TypeOid::Float8));
		// a date into a timestamp is its midnight; a timestamp into text its ISO form
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 0, 0, 0, 0, 0}), wire(Parameter::date(Poco::DateTime(2000, 1, 1)), TypeOid::Timestamp));
		CPPUNIT_ASSERT_EQUAL(std::string("2000-01-01 00:00:00.000001+00"), wire(Parameter(Poco::Timestamp(946684800000001LL)), TypeOid::Text, false));
	}

	void testRefusals()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("parameter $2 (int2): cannot send a int32 value: 70000 is out of range for int2"), refusal(Parameter(70000), TypeOid::Int2));
		CPPUNIT_ASSERT_EQUAL(std::string("parameter $2 (int4): cannot send a bool value: the conversion could lose the value"), refusal(Parameter(true), TypeOid::Int4));
		CPPUNIT_ASSERT_EQUAL(std::string("parameter $2 (int4): cannot send a double value: the conversion could lose the value"), refusal(Parameter(1.5), TypeOid::Int4));
		CPPUNIT_ASSERT_EQUAL(std::string("parameter $2 (float4): cannot send a double value: 0.1 has no exact float4"), refusal(Parameter(0.1), TypeOid::Float4));
		CPPUNIT_ASSERT_EQUAL(std::string("parameter $2 (uuid): cannot send a BlueTusk::Bytes value"), refusal(Parameter(Bytes{1}), TypeOid::Uuid));
		CPPUNIT_ASSERT_EQUAL(std::string("parameter $2 (date): cannot send a Poco::Timestamp value"), refusal(Parameter(Poco::Timestamp()), TypeOid::Date));
		CPPUNIT_ASSERT(refusal(Parameter(1LL << 54), TypeOid::Float8).find("has no exact float8") != std::string::npos);
		try
		{
			Parameter::time(Poco::Timespan(-1));
			CPPUNIT_FAIL("a negative time of day is refused");
		}
		catch (BlueTuskTypeException&)
		{
		}
	}

	void testBindMessage()
	{
		// Bind: portal "", statement "s", 3 format codes, 3 values (int4 binary, text, NULL), 1 result format
		MessageWriter writer;
		writer.bind("", "s", Parameters{5, "ab", Parameter::null()}, {TypeOid::Int4, TypeOid::Text, TypeOid::Int4}, {1});
		const std::string expected = std::string("B") + bytes({0, 0, 0, 39}) + std::string("\0s\0", 3) +
			bytes({0, 3, 0, 1, 0, 0, 0, 0}) + bytes({0, 3}) + bytes({0, 0, 0, 4, 0, 0, 0, 5}) + bytes({0, 0, 0, 2}) + "ab" +
			bytes({0xFF, 0xFF, 0xFF, 0xFF}) + bytes({0, 1, 0, 1});
		CPPUNIT_ASSERT_EQUAL(expected.size(), writer.buffer().size());
		CPPUNIT_ASSERT(expected == writer.buffer());
	}

	void testCacheMinUsages()
	{
		StatementCache cache(10, 3);
		CPPUNIT_ASSERT(!cache.use("SELECT 1", {}));
		CPPUNIT_ASSERT(!cache.use("SELECT 1", {}));
		CPPUNIT_ASSERT(cache.use("SELECT 1", {}));   // the third execution prepares
		CPPUNIT_ASSERT(!cache.find("SELECT 1", {}));
		std::vector<StatementCache::DescriptionPtr> evicted;
		cache.insert(statement("SELECT 1", "_bt1"), evicted);
		CPPUNIT_ASSERT(evicted.empty());
		CPPUNIT_ASSERT_EQUAL(std::string("_bt1"), cache.find("SELECT 1", {})->name);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), cache.size());
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), cache.candidates());
	}

	void testCacheLruEviction()
	{
		StatementCache cache(2, 1);
		std::vector<StatementCache::DescriptionPtr> evicted;
		cache.insert(statement("A", "_bt1"), evicted);
		cache.insert(statement("B", "_bt2"), evicted);
		CPPUNIT_ASSERT(cache.find("A", {}));            // A is now the most recently used
		cache.insert(statement("C", "_bt3"), evicted);  // B goes
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), evicted.size());
		CPPUNIT_ASSERT_EQUAL(std::string("_bt2"), evicted[0]->name);
		CPPUNIT_ASSERT(!cache.find("B", {}));
		CPPUNIT_ASSERT(std::vector<std::string>({"_bt3", "_bt1"}) == cache.names());
		cache.erase(cache.find("A", {}));
		CPPUNIT_ASSERT(std::vector<std::string>({"_bt3"}) == cache.names());
		// the candidates counted but not prepared are bounded too (at least 64)
		StatementCache small(1, 5);
		for (int i = 0; i < 100; ++i) small.use("SELECT " + std::to_string(i), {});
		CPPUNIT_ASSERT_EQUAL(std::size_t(64), small.candidates());
	}

	void testCacheKeyIncludesTypes()
	{
		StatementCache cache(10, 1);
		std::vector<StatementCache::DescriptionPtr> evicted;
		auto int4 = statement("SELECT $1", "_bt1");
		int4->parseTypes = {TypeOid::Int4};
		cache.insert(int4, evicted);
		CPPUNIT_ASSERT(cache.find("SELECT $1", {TypeOid::Int4}));
		CPPUNIT_ASSERT(!cache.find("SELECT $1", {TypeOid::Int8}));
		CPPUNIT_ASSERT(cache.use("SELECT $1", {TypeOid::Int8}));
	}

	void testCacheOff()
	{
		StatementCache cache(0, 1);
		CPPUNIT_ASSERT(!cache.use("SELECT 1", {}));
		std::vector<StatementCache::DescriptionPtr> evicted;
		cache.insert(statement("SELECT 1", "_bt1"), evicted);
		CPPUNIT_ASSERT(!cache.find("SELECT 1", {}));
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), cache.size());
	}

	void testBeginSql()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("BEGIN"), TransactionOptions().beginSql());
		CPPUNIT_ASSERT_EQUAL(std::string("BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE"),
			(TransactionOptions{IsolationLevel::Serializable, true, true}).beginSql());
		CPPUNIT_ASSERT_EQUAL(std::string("BEGIN ISOLATION LEVEL REPEATABLE READ"), (TransactionOptions{IsolationLevel::RepeatableRead}).beginSql());
		CPPUNIT_ASSERT_EQUAL(std::string("BEGIN ISOLATION LEVEL READ COMMITTED"), (TransactionOptions{IsolationLevel::ReadCommitted}).beginSql());
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(ParameterTest);
