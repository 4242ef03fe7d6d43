//
// ResultRowsTest.cpp
//
// ResultRows, RowRef and FieldRef: DataRow bodies packed into the arena read back the values the separate-value
// decoder (BackendMessage::dataRow) gives, malformed bodies fail alike and leave nothing behind, rows span
// blocks and large rows, copies and moves keep the values, and the proxies read like std::optional<std::string>.
//

#include "protocol/BackendMessage.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/QueryResult.h"
#include "BlueTusk/TypeOid.h"
#include <cppunit/TestFixture.h>
#include <functional>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;

namespace {

std::string int32(Poco::UInt32 v)
{
	std::string s;
	for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xFF));
	return s;
}


std::string int16(Poco::UInt16 v)
{
	return std::string(1, static_cast<char>(v >> 8)) + std::string(1, static_cast<char>(v & 0xFF));
}


std::string dataRow(const Row& row)
	/// The DataRow body of row.
{
	std::string body = int16(static_cast<Poco::UInt16>(row.size()));
	for (const FieldValue& value: row)
		body += value ? int32(static_cast<Poco::UInt32>(value->size())) + *value : int32(0xFFFFFFFF);
	return body;
}


void appendBody(ResultRows& rows, const std::string& body, std::size_t columns)
{
	rows.appendDataRow(body.data(), body.size(), columns);
}


std::string errorOf(const std::function<void()>& call)
{
	try
	{
		call();
	}
	catch (BlueTuskProtocolException& exc)
	{
		return exc.message();
	}
	return "(no exception)";
}


void assertSameRow(const Row& expected, RowRef actual)
{
	CPPUNIT_ASSERT_EQUAL(expected.size(), actual.size());
	for (std::size_t i = 0; i < expected.size(); ++i)
	{
		CPPUNIT_ASSERT_EQUAL(expected[i].has_value(), actual[i].has_value());
		if (expected[i]) CPPUNIT_ASSERT_EQUAL(*expected[i], *actual[i]);
		CPPUNIT_ASSERT(actual[i] == expected[i]);
	}
	CPPUNIT_ASSERT(Row(actual) == expected);
}

} // namespace


class ResultRowsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ResultRowsTest);
	CPPUNIT_TEST(testDataRowsReadBackAsDecoded);
	CPPUNIT_TEST(testMalformedRowsFailAsDecodedAndLeaveNothing);
	CPPUNIT_TEST(testRowsSpanBlocksAndLargeRows);
	CPPUNIT_TEST(testCopyAndMove);
	CPPUNIT_TEST(testFieldRefReadsLikeOptional);
	CPPUNIT_TEST(testRowViewReadsHeldRowsInPlace);
	CPPUNIT_TEST(testMutatedBodiesAgreeWithTheDecoder);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDataRowsReadBackAsDecoded()
	{
		const std::vector<Row> rows = {
			{std::string("42"), std::nullopt, std::string("")},
			{std::string("a\0b", 3)},
			{std::nullopt, std::nullopt},
			{},
			{std::string(""), std::string("x"), std::nullopt, std::string(300, 'q')},
		};
		for (const Row& row: rows)
		{
			ResultRows held;
			const std::string body = dataRow(row);
			appendBody(held, body, row.size());
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), held.size());
			assertSameRow(BackendMessage('D', body).dataRow(row.size()), held[0]);
			assertSameRow(row, held.at(0));
			// the packed row takes exactly the body's bytes
			CPPUNIT_ASSERT_EQUAL(body.size(), held[0].bytes());
			ResultRows appended;
			appended.append(row);
			assertSameRow(row, appended.back());
			CPPUNIT_ASSERT_EQUAL(body.size(), appended[0].bytes());
		}
	}

	void testMalformedRowsFailAsDecodedAndLeaveNothing()
	{
		const std::vector<std::pair<std::string, std::size_t>> bodies = {
			{"", 1},
			{std::string("\x00", 1), 1},
			{int16(2) + int32(0) + int32(0), 3},                  // count differs
			{int16(1) + int32(10) + "abc", 1},                   // value longer than the message
			{int16(1) + int32(0xFFFFFFFE), 1},                   // negative length other than -1
			{int16(2) + int32(1) + "a", 2},                      // second length missing
			{int16(3) + int32(1), 3},                            // shorter than the length words
			{int16(1) + int32(1) + "ab", 1},                     // trailing data
			{int16(1) + int32(0xFFFFFFFF) + "z", 1},             // trailing data after NULL
		};
		for (const auto& bad: bodies)
		{
			ResultRows held;
			appendBody(held, dataRow({std::string("before")}), 1);
			const std::string expected = errorOf([&] { BackendMessage('D', bad.first).dataRow(bad.second); });
			const std::string actual = errorOf([&] { appendBody(held, bad.first, bad.second); });
			CPPUNIT_ASSERT_EQUAL_MESSAGE(expected, expected, actual);
			CPPUNIT_ASSERT(actual != "(no exception)");
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), held.size());
			if (bad.second == 1)
			{
				appendBody(held, dataRow({std::string("after")}), 1);
				CPPUNIT_ASSERT_EQUAL(std::string("before"), *held[0][0]);
				CPPUNIT_ASSERT_EQUAL(std::string("after"), *held[1][0]);
			}
		}
	}

	void testRowsSpanBlocksAndLargeRows()
	{
		ResultRows held;
		std::size_t bodyBytes = 0;
		for (int i = 0; i < 20000; ++i)
		{
			Row row{std::to_string(i), std::string(static_cast<std::size_t>(i % 50), 'a' + i % 26), std::nullopt};
			if (i % 5000 == 7) row[1] = std::string(100000 + static_cast<std::size_t>(i), 'L');   // a block of its own
			const std::string body = dataRow(row);
			bodyBytes += body.size();
			appendBody(held, body, 3);
		}
		CPPUNIT_ASSERT_EQUAL(std::size_t(20000), held.size());
		std::size_t index = 0;
		for (RowRef row: held)
		{
			const int i = static_cast<int>(index++);
			CPPUNIT_ASSERT_EQUAL(std::to_string(i), *row[0]);
			const std::size_t length = i % 5000 == 7 ? 100000 + static_cast<std::size_t>(i) : static_cast<std::size_t>(i % 50);
			CPPUNIT_ASSERT_EQUAL(length, row[1]->size());
			if (length > 0) CPPUNIT_ASSERT_EQUAL(i % 5000 == 7 ? 'L' : static_cast<char>('a' + i % 26), row[1].data()[length - 1]);
			CPPUNIT_ASSERT(!row[2]);
		}
		// the arena holds the bodies with at most a block's tail lost per block, plus the first blocks
		CPPUNIT_ASSERT(held.arenaBytes() >= bodyBytes);
		CPPUNIT_ASSERT(held.arenaBytes() < bodyBytes + bodyBytes / 10 + 128 * 1024);
		held.clear();
		CPPUNIT_ASSERT(held.empty());
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), held.arenaBytes());
	}

	void testCopyAndMove()
	{
		ResultRows original{{std::string("1"), std::nullopt}, {std::string("two"), std::string(40, 'x')}};
		const FieldRef before = original[1][1];
		ResultRows copy(original);
		ResultRows moved(std::move(original));
		CPPUNIT_ASSERT(original.empty());
		CPPUNIT_ASSERT_EQUAL(std::string(40, 'x'), *before);   // a move keeps the arena
		CPPUNIT_ASSERT(copy[1][1].data() != before.data());    // a copy packs anew
		original = ResultRows{{std::string("other")}};
		original = copy;
		copy.clear();
		for (const ResultRows* rows: {&moved, &original})
		{
			CPPUNIT_ASSERT_EQUAL(std::size_t(2), rows->size());
			assertSameRow({std::string("1"), std::nullopt}, (*rows)[0]);
			assertSameRow({std::string("two"), std::string(40, 'x')}, rows->back());
		}
		QueryResult result;
		result.rows = moved;
		QueryResult assigned;
		assigned = std::move(result);
		CPPUNIT_ASSERT_EQUAL(std::string("two"), *assigned.rows[1][0]);
	}

	void testFieldRefReadsLikeOptional()
	{
		ResultRows held{{std::string("t"), std::nullopt, std::string("")}};
		const RowRef row = held[0];
		CPPUNIT_ASSERT(row[0] == "t");
		CPPUNIT_ASSERT(row[0] == std::string("t"));
		CPPUNIT_ASSERT(row[0] == FieldValue("t"));
		CPPUNIT_ASSERT(FieldValue("t") == row[0]);
		CPPUNIT_ASSERT(row[0] != "f");
		CPPUNIT_ASSERT(row[1] == std::nullopt);
		CPPUNIT_ASSERT(row[1] == FieldValue());
		CPPUNIT_ASSERT(row[1] != "");
		CPPUNIT_ASSERT(row[2] == "");
		CPPUNIT_ASSERT(row[2] != std::nullopt);
		CPPUNIT_ASSERT(!row[1]);
		CPPUNIT_ASSERT(row[2]);
		CPPUNIT_ASSERT_EQUAL(std::string("t"), row[0].value());
		CPPUNIT_ASSERT_THROW(row[1].value(), std::bad_optional_access);
		CPPUNIT_ASSERT_EQUAL(std::string("NULL"), row[1].value_or("NULL"));
		CPPUNIT_ASSERT_EQUAL(std::string(""), row[2].value_or("NULL"));
		const FieldValue copied = row[0];
		CPPUNIT_ASSERT(copied && *copied == "t");
		CPPUNIT_ASSERT(!static_cast<FieldValue>(row[1]));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), row.size());
		CPPUNIT_ASSERT_THROW(row.at(3), std::out_of_range);
		CPPUNIT_ASSERT_THROW(held.at(1), std::out_of_range);
		std::size_t nulls = 0;
		for (FieldRef field: row) nulls += field.isNull() ? 1 : 0;
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), nulls);
	}

	void testRowViewReadsHeldRowsInPlace()
	{
		QueryResult result;
		ColumnDescription number;
		number.name = "n";
		number.typeOid = TypeOid::Int8;
		ColumnDescription note;
		note.name = "note";
		note.typeOid = TypeOid::Text;
		result.columns = {number, note};
		appendBody(result.rows, dataRow({std::string("5000000000"), std::nullopt}), 2);
		appendBody(result.rows, dataRow({std::string("-7"), std::string("x")}), 2);
		Poco::Int64 total = 0;
		for (RowView row: result) total += row.get<Poco::Int64>("n");
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(4999999993), total);
		CPPUNIT_ASSERT(!result.row(0).get<std::optional<std::string>>("note"));
		CPPUNIT_ASSERT_EQUAL(std::string("x"), result.row(1).get<std::string>(1));
		CPPUNIT_ASSERT(result.row(0).isNull(1));
		CPPUNIT_ASSERT_EQUAL(result.rows[1][1].data(), result.row(1).raw(1).data());   // in place, no copy
		CPPUNIT_ASSERT_THROW(result.row(0).get<std::string>(1), BlueTuskTypeException);
		CPPUNIT_ASSERT_THROW(result.row(0).get<std::string>(2), BlueTuskUsageException);
		CPPUNIT_ASSERT_THROW(result.row(2), BlueTuskUsageException);
	}

	void testMutatedBodiesAgreeWithTheDecoder()
	{
		// Valid bodies with one byte changed, cut or extended (a fixed seed): the packed decoder accepts what
		// dataRow() accepts, with the same values, and refuses the rest with the same message.
		std::uint32_t seed = 12345;
		auto next = [&seed]() { seed = seed * 1103515245u + 12345u; return (seed >> 8) & 0xFFFF; };
		int accepted = 0, refused = 0;
		for (int round = 0; round < 3000; ++round)
		{
			Row row;
			const std::size_t columns = next() % 4;
			for (std::size_t i = 0; i < columns; ++i)
				row.push_back(next() % 5 == 0 ? FieldValue() : FieldValue(std::string(next() % 6, static_cast<char>('a' + next() % 26))));
			std::string body = dataRow(row);
			switch (next() % 4)
			{
			case 0: if (!body.empty()) body[next() % body.size()] = static_cast<char>(next() % 8 == 0 ? 0xFF : next() % 7); break;
			case 1: body.resize(next() % (body.size() + 1)); break;
			case 2: body.push_back('x'); break;
			default: break;
			}
			const std::size_t expected = next() % 8 == 0 ? columns + 1 : columns;
			ResultRows held;
			Row decoded;
			const std::string decodedError = errorOf([&] { decoded = BackendMessage('D', body).dataRow(expected); });
			const std::string packedError = errorOf([&] { appendBody(held, body, expected); });
			CPPUNIT_ASSERT_EQUAL(decodedError, packedError);
			if (decodedError == "(no exception)")
			{
				++accepted;
				CPPUNIT_ASSERT_EQUAL(std::size_t(1), held.size());
				assertSameRow(decoded, held[0]);
			}
			else
			{
				++refused;
				CPPUNIT_ASSERT(held.empty());
			}
		}
		CPPUNIT_ASSERT(accepted > 500);
		CPPUNIT_ASSERT(refused > 500);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(ResultRowsTest);
