//
// ValueCodecTest.cpp
//
// Binary and text decoding of every type BlueTusk reads, against byte vectors in the formats PostgreSQL's
// *_send functions write (src/backend/utils/adt) and the text its output functions print (DateStyle ISO).
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/QueryResult.h"
#include "BlueTusk/TypeOid.h"
#include "BlueTusk/ValueCodec.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace BlueTusk;

namespace {

std::string bytes(std::initializer_list<int> values)
{
	std::string out;
	for (int v: values) out.push_back(static_cast<char>(v));
	return out;
}


FieldView binary(Poco::UInt32 oid, const std::string& data)
{
	return FieldView{oid, 1, data.data(), data.size()};
}


FieldView text(Poco::UInt32 oid, const std::string& data)
{
	return FieldView{oid, 0, data.data(), data.size()};
}


template <typename T>
T decode(const FieldView& field)
{
	T value{};
	ValueCodec::read(field, value);
	return value;
}


template <typename T>
std::string errorOf(const FieldView& field)
{
	try
	{
		decode<T>(field);
	}
	catch (BlueTuskTypeException& exc)
	{
		return exc.message();
	}
	return "(no error)";
}

} // namespace


class ValueCodecTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ValueCodecTest);
	CPPUNIT_TEST(testIntegers);
	CPPUNIT_TEST(testIntegerRangeAndTypeErrors);
	CPPUNIT_TEST(testFloats);
	CPPUNIT_TEST(testBoolAndText);
	CPPUNIT_TEST(testBytea);
	CPPUNIT_TEST(testUuid);
	CPPUNIT_TEST(testTimestamps);
	CPPUNIT_TEST(testDatesAndTimes);
	CPPUNIT_TEST(testInfinity);
	CPPUNIT_TEST(testJson);
	CPPUNIT_TEST(testBinaryArrays);
	CPPUNIT_TEST(testTextArrays);
	CPPUNIT_TEST(testRowViewMessages);
	CPPUNIT_TEST(testRowViewIntegerAliases);
	CPPUNIT_TEST_SUITE_END();

public:
	void testIntegers()
	{
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(-2), decode<Poco::Int16>(binary(TypeOid::Int2, bytes({0xFF, 0xFE}))));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(-2147483647 - 1), decode<Poco::Int32>(binary(TypeOid::Int4, bytes({0x80, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(258), decode<Poco::Int32>(binary(TypeOid::Int4, bytes({0, 0, 1, 2}))));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-1), decode<Poco::Int64>(binary(TypeOid::Int8, bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}))));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(4294967295LL), decode<Poco::Int64>(binary(TypeOid::Oid, bytes({0xFF, 0xFF, 0xFF, 0xFF}))));
		// int2 and int4 widen; text format reads the same
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-2), decode<Poco::Int64>(binary(TypeOid::Int2, bytes({0xFF, 0xFE}))));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-9223372036854775807LL - 1), decode<Poco::Int64>(text(TypeOid::Int8, "-9223372036854775808")));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(42), decode<Poco::Int32>(text(TypeOid::Int4, "42")));
		CPPUNIT_ASSERT_EQUAL(std::string("-2"), decode<std::string>(binary(TypeOid::Int2, bytes({0xFF, 0xFE}))));
		CPPUNIT_ASSERT_EQUAL(std::string("258"), decode<std::string>(binary(TypeOid::Int4, bytes({0, 0, 1, 2}))));
	}

	void testIntegerRangeAndTypeErrors()
	{
		// an int8 beyond int32
		CPPUNIT_ASSERT_EQUAL(std::string("int8 cannot be read as int32: the value 4294967296 is out of its range"),
			errorOf<Poco::Int32>(binary(TypeOid::Int8, bytes({0, 0, 0, 1, 0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(std::string("int4 cannot be read as int16: the value 40000 is out of its range"),
			errorOf<Poco::Int16>(text(TypeOid::Int4, "40000")));
		// text into an integer
		CPPUNIT_ASSERT_EQUAL(std::string("text cannot be read as int32: not an integer type"), errorOf<Poco::Int32>(text(TypeOid::Text, "12")));
		CPPUNIT_ASSERT(errorOf<Poco::Int64>(text(TypeOid::Numeric, "1.5")).find("read numeric as std::string") != std::string::npos);
		// malformed data
		CPPUNIT_ASSERT_EQUAL(std::string("int4 cannot be read as int32: malformed binary value (3 bytes, expected 4)"),
			errorOf<Poco::Int32>(binary(TypeOid::Int4, bytes({0, 0, 1}))));
		CPPUNIT_ASSERT_EQUAL(std::string("int4 cannot be read as int32: malformed text \"12x\""), errorOf<Poco::Int32>(text(TypeOid::Int4, "12x")));
	}

	void testFloats()
	{
		// float8 1.5 = 0x3FF8000000000000; float4 -2.5 = 0xC0200000
		CPPUNIT_ASSERT_EQUAL(1.5, decode<double>(binary(TypeOid::Float8, bytes({0x3F, 0xF8, 0, 0, 0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(-2.5f, decode<float>(binary(TypeOid::Float4, bytes({0xC0, 0x20, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(-2.5, decode<double>(binary(TypeOid::Float4, bytes({0xC0, 0x20, 0, 0}))));
		CPPUNIT_ASSERT(std::isnan(decode<double>(binary(TypeOid::Float8, bytes({0x7F, 0xF8, 0, 0, 0, 0, 0, 0})))));
		CPPUNIT_ASSERT_EQUAL(-std::numeric_limits<double>::infinity(), decode<double>(binary(TypeOid::Float8, bytes({0xFF, 0xF0, 0, 0, 0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(std::string("-Infinity"), decode<std::string>(binary(TypeOid::Float8, bytes({0xFF, 0xF0, 0, 0, 0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(std::string("NaN"), decode<std::string>(binary(TypeOid::Float4, bytes({0x7F, 0xC0, 0, 0}))));
		CPPUNIT_ASSERT(std::isinf(decode<double>(text(TypeOid::Float8, "Infinity"))));
		CPPUNIT_ASSERT_EQUAL(0.1, decode<double>(text(TypeOid::Float8, "0.1")));
		// float4 0.1f prints as PostgreSQL prints it, not as the widened double
		CPPUNIT_ASSERT_EQUAL(std::string("0.1"), decode<std::string>(binary(TypeOid::Float4, bytes({0x3D, 0xCC, 0xCC, 0xCD}))));
		// int4 widens to double; float8 0.1 has no exact float
		CPPUNIT_ASSERT_EQUAL(258.0, decode<double>(binary(TypeOid::Int4, bytes({0, 0, 1, 2}))));
		CPPUNIT_ASSERT_EQUAL(std::string("float8 cannot be read as float: 0.1 has no exact float; read it as double"),
			errorOf<float>(text(TypeOid::Float8, "0.1")));
		CPPUNIT_ASSERT(errorOf<double>(text(TypeOid::Numeric, "1.25")).find("numeric can hold more digits") != std::string::npos);
	}

	void testBoolAndText()
	{
		CPPUNIT_ASSERT_EQUAL(true, decode<bool>(binary(TypeOid::Bool, bytes({1}))));
		CPPUNIT_ASSERT_EQUAL(false, decode<bool>(text(TypeOid::Bool, "f")));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), decode<std::string>(binary(TypeOid::Bool, bytes({1}))));
		CPPUNIT_ASSERT_EQUAL(std::string("bool cannot be read as int32: not an integer type"), errorOf<Poco::Int32>(binary(TypeOid::Bool, bytes({1}))));
		CPPUNIT_ASSERT_EQUAL(std::string("int4 cannot be read as bool: not the bool type"), errorOf<bool>(binary(TypeOid::Int4, bytes({0, 0, 0, 1}))));
		// text, varchar, name and numeric (always text) come through unchanged, empty too
		CPPUNIT_ASSERT_EQUAL(std::string("h\xC3\xA9llo"), decode<std::string>(binary(TypeOid::Varchar, "h\xC3\xA9llo")));
		CPPUNIT_ASSERT_EQUAL(std::string(), decode<std::string>(binary(TypeOid::Text, "")));
		CPPUNIT_ASSERT_EQUAL(std::string("12345678901234567890.000000000001"), decode<std::string>(text(TypeOid::Numeric, "12345678901234567890.000000000001")));
	}

	void testBytea()
	{
		const std::string raw = bytes({0, 1, 0xFE, 0xFF});
		CPPUNIT_ASSERT(Bytes({0, 1, 0xFE, 0xFF}) == decode<Bytes>(binary(TypeOid::Bytea, raw)));
		CPPUNIT_ASSERT(Bytes({0, 1, 0xFE, 0xFF}) == decode<Bytes>(text(TypeOid::Bytea, "\\x0001feff")));
		CPPUNIT_ASSERT(Bytes() == decode<Bytes>(text(TypeOid::Bytea, "\\x")));
		CPPUNIT_ASSERT_EQUAL(std::string("\\x0001feff"), decode<std::string>(binary(TypeOid::Bytea, raw)));
		CPPUNIT_ASSERT(errorOf<Bytes>(text(TypeOid::Bytea, "\\001")).find("not hex") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(std::string("text cannot be read as BlueTusk::Bytes: not the bytea type"), errorOf<Bytes>(text(TypeOid::Text, "x")));
	}

	void testUuid()
	{
		const std::string raw = bytes({0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11});
		const Poco::UUID expected("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
		CPPUNIT_ASSERT(expected == decode<Poco::UUID>(binary(TypeOid::Uuid, raw)));
		CPPUNIT_ASSERT(expected == decode<Poco::UUID>(text(TypeOid::Uuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")));
		CPPUNIT_ASSERT_EQUAL(std::string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), decode<std::string>(binary(TypeOid::Uuid, raw)));
	}

	void testTimestamps()
	{
		// 0 is the epoch 2000-01-01 00:00:00; 1 microsecond after it
		CPPUNIT_ASSERT_EQUAL(std::string("2000-01-01 00:00:00"), decode<std::string>(binary(TypeOid::Timestamp, bytes({0, 0, 0, 0, 0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(std::string("2000-01-01 00:00:00.000001+00"), decode<std::string>(binary(TypeOid::TimestampTz, bytes({0, 0, 0, 0, 0, 0, 0, 1}))));
		// -1 microsecond: the last instant of 1999
		CPPUNIT_ASSERT_EQUAL(std::string("1999-12-31 23:59:59.999999"), decode<std::string>(binary(TypeOid::Timestamp, bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}))));
		Poco::Timestamp epoch = decode<Poco::Timestamp>(binary(TypeOid::TimestampTz, bytes({0, 0, 0, 0, 0, 0, 0, 1})));
		CPPUNIT_ASSERT_EQUAL(Poco::Timestamp::TimeVal(946684800000001LL), epoch.epochMicroseconds());
		// 2024-02-29 12:34:56.123456 UTC, a leap day: text with an offset is converted to UTC
		Poco::DateTime leap = decode<Poco::DateTime>(text(TypeOid::TimestampTz, "2024-02-29 14:34:56.123456+02"));
		CPPUNIT_ASSERT_EQUAL(2024, leap.year());
		CPPUNIT_ASSERT_EQUAL(2, leap.month());
		CPPUNIT_ASSERT_EQUAL(29, leap.day());
		CPPUNIT_ASSERT_EQUAL(12, leap.hour());
		CPPUNIT_ASSERT_EQUAL(123, leap.millisecond());
		CPPUNIT_ASSERT_EQUAL(456, leap.microsecond());
		// binary of the same instant: (8825 days * 86400 + 45296) s + .123456
		const Poco::Int64 micros = (8825LL * 86400 + 45296) * 1000000 + 123456;
		std::string raw;
		for (int shift = 56; shift >= 0; shift -= 8) raw.push_back(static_cast<char>((micros >> shift) & 0xFF));
		CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29 12:34:56.123456+00"), decode<std::string>(binary(TypeOid::TimestampTz, raw)));
		CPPUNIT_ASSERT(leap == decode<Poco::DateTime>(binary(TypeOid::TimestampTz, raw)));
		CPPUNIT_ASSERT(errorOf<Poco::Timestamp>(text(TypeOid::TimestampTz, "02/29/2024 12:00")).find("DateStyle ISO") != std::string::npos);
		// before year 0 no Poco::DateTime exists; the text form says BC
		CPPUNIT_ASSERT_EQUAL(std::string("0044-03-15 12:00:00 BC"), decode<std::string>(text(TypeOid::Timestamp, "0044-03-15 12:00:00 BC")) );
		CPPUNIT_ASSERT(errorOf<Poco::DateTime>(text(TypeOid::Timestamp, "0044-03-15 12:00:00 BC")).find("outside Poco::DateTime's range") != std::string::npos);
	}

	void testDatesAndTimes()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("2000-01-01"), decode<std::string>(binary(TypeOid::Date, bytes({0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(std::string("1999-12-31"), decode<std::string>(binary(TypeOid::Date, bytes({0xFF, 0xFF, 0xFF, 0xFF}))));
		// 2000-02-29 is day 59 (2000 is a leap year)
		CPPUNIT_ASSERT_EQUAL(std::string("2000-02-29"), decode<std::string>(binary(TypeOid::Date, bytes({0, 0, 0, 59}))));
		Poco::DateTime day = decode<Poco::DateTime>(binary(TypeOid::Date, bytes({0, 0, 0, 59})));
		CPPUNIT_ASSERT_EQUAL(2000, day.year());
		CPPUNIT_ASSERT_EQUAL(29, day.day());
		CPPUNIT_ASSERT_EQUAL(0, day.hour());
		CPPUNIT_ASSERT(day == decode<Poco::DateTime>(text(TypeOid::Date, "2000-02-29")));
		CPPUNIT_ASSERT(errorOf<Poco::DateTime>(text(TypeOid::Date, "2023-02-29")).find("malformed") != std::string::npos);
		// time: microseconds since midnight
		CPPUNIT_ASSERT_EQUAL(std::string("12:00:00.5"), decode<std::string>(binary(TypeOid::Time, bytes({0, 0, 0, 0x0A, 0x0E, 0xF3, 0x51, 0x20}))));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(43200500000LL), decode<Poco::Timespan>(text(TypeOid::Time, "12:00:00.5")).totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(86399999999LL), decode<Poco::Timespan>(text(TypeOid::Time, "23:59:59.999999")).totalMicroseconds());
	}

	void testInfinity()
	{
		const std::string plus = bytes({0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
		const std::string minus = bytes({0x80, 0, 0, 0, 0, 0, 0, 0});
		CPPUNIT_ASSERT_EQUAL(std::string("infinity"), decode<std::string>(binary(TypeOid::TimestampTz, plus)));
		CPPUNIT_ASSERT_EQUAL(std::string("-infinity"), decode<std::string>(binary(TypeOid::Timestamp, minus)));
		CPPUNIT_ASSERT(ValueCodec::isInfinite(binary(TypeOid::TimestampTz, plus)));
		CPPUNIT_ASSERT(ValueCodec::isInfinite(text(TypeOid::Date, "-infinity")));
		CPPUNIT_ASSERT(!ValueCodec::isInfinite(binary(TypeOid::Timestamp, bytes({0, 0, 0, 0, 0, 0, 0, 0}))));
		CPPUNIT_ASSERT_EQUAL(std::string("timestamptz cannot be read as Poco::Timestamp: infinity has no such value; read it as std::string or test isInfinite()"),
			errorOf<Poco::Timestamp>(binary(TypeOid::TimestampTz, plus)));
		CPPUNIT_ASSERT(errorOf<Poco::DateTime>(binary(TypeOid::Date, bytes({0x80, 0, 0, 0}))).find("-infinity has no such value") != std::string::npos);
	}

	void testJson()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("{\"a\": 1}"), decode<std::string>(binary(TypeOid::Jsonb, std::string("\x01{\"a\": 1}"))));
		CPPUNIT_ASSERT_EQUAL(std::string("[1,2]"), decode<std::string>(binary(TypeOid::Json, "[1,2]")));
		CPPUNIT_ASSERT(errorOf<std::string>(binary(TypeOid::Jsonb, std::string("\x02{}"))).find("jsonb binary version") != std::string::npos);
	}

	void testBinaryArrays()
	{
		// int4[] {1,NULL,3}: ndim 1, has nulls 1, element 23, size 3, lower bound 1, then the elements
		const std::string withNull = bytes({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 23, 0, 0, 0, 3, 0, 0, 0, 1,
			0, 0, 0, 4, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 4, 0, 0, 0, 3});
		std::vector<std::optional<Poco::Int32>> optional = decode<std::vector<std::optional<Poco::Int32>>>(binary(TypeOid::Int4Array, withNull));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), optional.size());
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(1), *optional[0]);
		CPPUNIT_ASSERT(!optional[1]);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(3), *optional[2]);
		CPPUNIT_ASSERT_EQUAL(std::string("{1,NULL,3}"), decode<std::string>(binary(TypeOid::Int4Array, withNull)));
		CPPUNIT_ASSERT_EQUAL(std::string("int4[] cannot be read as std::vector<int32>: element 2 is NULL; read it into a std::vector of std::optional"),
			errorOf<std::vector<Poco::Int32>>(binary(TypeOid::Int4Array, withNull)));
		// the empty array has 0 dimensions
		const std::string empty = bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25});
		CPPUNIT_ASSERT(decode<std::vector<std::string>>(binary(TypeOid::TextArray, empty)).empty());
		CPPUNIT_ASSERT_EQUAL(std::string("{}"), decode<std::string>(binary(TypeOid::TextArray, empty)));
		// text[] {"a b",""}: elements needing quotes are quoted in the text form
		const std::string words = bytes({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 1,
			0, 0, 0, 3, 'a', ' ', 'b', 0, 0, 0, 0});
		CPPUNIT_ASSERT(std::vector<std::string>({"a b", ""}) == decode<std::vector<std::string>>(binary(TypeOid::TextArray, words)));
		CPPUNIT_ASSERT_EQUAL(std::string("{\"a b\",\"\"}"), decode<std::string>(binary(TypeOid::TextArray, words)));
		// truncated and two-dimensional data are refused
		CPPUNIT_ASSERT(errorOf<std::vector<Poco::Int32>>(binary(TypeOid::Int4Array, withNull.substr(0, 30))).find("truncated") != std::string::npos);
		const std::string twoDimensions = bytes({0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 23});
		CPPUNIT_ASSERT(errorOf<std::vector<Poco::Int32>>(binary(TypeOid::Int4Array, twoDimensions)).find("2-dimensional") != std::string::npos);
		CPPUNIT_ASSERT(errorOf<std::vector<Poco::Int32>>(binary(TypeOid::Int4, bytes({0, 0, 0, 1}))).find("not an array type") != std::string::npos);
	}

	void testTextArrays()
	{
		CPPUNIT_ASSERT(std::vector<Poco::Int64>({1, -2, 3}) == decode<std::vector<Poco::Int64>>(text(TypeOid::Int8Array, "{1,-2,3}")));
		std::vector<std::optional<std::string>> items = decode<std::vector<std::optional<std::string>>>(text(TypeOid::TextArray, "{\"a,b\",NULL,\"NULL\",\"q\\\"x\",plain}"));
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), items.size());
		CPPUNIT_ASSERT_EQUAL(std::string("a,b"), *items[0]);
		CPPUNIT_ASSERT(!items[1]);
		CPPUNIT_ASSERT_EQUAL(std::string("NULL"), *items[2]);   // quoted: the text NULL, not SQL NULL
		CPPUNIT_ASSERT_EQUAL(std::string("q\"x"), *items[3]);
		CPPUNIT_ASSERT_EQUAL(std::string("plain"), *items[4]);
		CPPUNIT_ASSERT(decode<std::vector<bool>>(text(TypeOid::BoolArray, "{}")).empty());
		CPPUNIT_ASSERT(std::vector<bool>({true, false}) == decode<std::vector<bool>>(text(TypeOid::BoolArray, "{t,f}")));
		CPPUNIT_ASSERT(std::vector<Poco::Int32>({7, 8}) == decode<std::vector<Poco::Int32>>(text(TypeOid::Int4Array, "[0:1]={7,8}")));
		CPPUNIT_ASSERT(errorOf<std::vector<Poco::Int32>>(text(TypeOid::Int4Array, "{{1,2},{3,4}}")).find("multi-dimensional") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(std::string("int4[] element 2: int4 cannot be read as int32: malformed text \"x\""),
			errorOf<std::vector<Poco::Int32>>(text(TypeOid::Int4Array, "{1,x}")));
	}

	void testRowViewMessages()
	{
		std::vector<ColumnDescription> columns(3);
		columns[0].name = "id";
		columns[0].typeOid = TypeOid::Int8;
		columns[1].name = "amount";
		columns[1].typeOid = TypeOid::Numeric;
		columns[2].name = "note";
		columns[2].typeOid = TypeOid::Text;
		Row row{std::string("5000000000"), std::string("12.50"), std::nullopt};
		RowView view(columns, row);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(5000000000LL), view.get<Poco::Int64>("id"));
		CPPUNIT_ASSERT_EQUAL(std::string("12.50"), view.get<std::string>(1));
		CPPUNIT_ASSERT(!view.get<std::optional<std::string>>("note"));
		CPPUNIT_ASSERT(view.isNull(2));
		CPPUNIT_ASSERT_EQUAL(TypeOid::Numeric, view.typeOid(1));
		CPPUNIT_ASSERT_EQUAL(std::string("amount"), view.columnName(1));
		auto message = [&](auto read) -> std::string
		{
			try
			{
				read();
			}
			catch (Poco::Exception& exc)
			{
				return exc.message();
			}
			return "(no error)";
		};
		CPPUNIT_ASSERT_EQUAL(std::string("column 1 \"id\" (int8): int8 cannot be read as int32: the value 5000000000 is out of its range"),
			message([&] { view.get<Poco::Int32>(0); }));
		CPPUNIT_ASSERT_EQUAL(std::string("column 3 \"note\" (text) is NULL and cannot be read as std::string; read it as std::optional or test isNull() first"),
			message([&] { view.get<std::string>("note"); }));
		CPPUNIT_ASSERT_EQUAL(std::string("no column is called \"total\"; the columns are: id, amount, note"), message([&] { view.get<double>("total"); }));
		CPPUNIT_ASSERT_EQUAL(std::string("column index 3 is out of range; the row has 3 columns (indexes start at 0)"), message([&] { view.get<double>(3); }));
		QueryResult result;
		result.columns = columns;
		result.rows.append(row);
		result.rows.append(Row{std::string("7"), std::string("1"), std::string("x")});
		Poco::Int64 sum = 0;
		for (RowView r: result) sum += r.get<Poco::Int64>(0);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(5000000007LL), sum);
		CPPUNIT_ASSERT_EQUAL(std::string("row 2 does not exist; the result has 2 rows"), message([&] { result.row(2); }));
	}

	void testRowViewIntegerAliases()
	{
		// get<long long>() compiles and reads like get<Poco::Int64>() (Poco::Int64 is long on LP64 Linux, so
		// long long is another type); so do the other signed integer spellings, alone and in std::optional.
		std::vector<ColumnDescription> columns(3);
		columns[0].name = "big";
		columns[0].typeOid = TypeOid::Int8;
		columns[1].name = "small";
		columns[1].typeOid = TypeOid::Int2;
		columns[2].name = "gone";
		columns[2].typeOid = TypeOid::Int4;
		Row row{std::string("5000000000"), std::string("-7"), std::nullopt};
		RowView view(columns, row);
		CPPUNIT_ASSERT_EQUAL(5000000000LL, view.get<long long>("big"));
		CPPUNIT_ASSERT_EQUAL(5000000000L, view.get<long>(0));
		CPPUNIT_ASSERT_EQUAL(std::int64_t(5000000000LL), view.get<std::int64_t>(0));
		CPPUNIT_ASSERT_EQUAL(-7, view.get<int>("small"));
		CPPUNIT_ASSERT_EQUAL(short(-7), view.get<short>(1));
		CPPUNIT_ASSERT_EQUAL(-7LL, view.get<long long>(1));
		CPPUNIT_ASSERT(!view.get<std::optional<long long>>("gone"));
		CPPUNIT_ASSERT_EQUAL(5000000000LL, *view.get<std::optional<long long>>(0));
		// Range checks are those of the Poco type of the same size: int8 5000000000 does not fit an int.
		try
		{
			view.get<int>(0);
			CPPUNIT_FAIL("get<int> of 5000000000 did not throw");
		}
		catch (BlueTuskTypeException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("column 1 \"big\" (int8): int8 cannot be read as int32: the value 5000000000 is out of its range"),
				exc.message());
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(ValueCodecTest);
