//
// BinaryCopyReaderTest.cpp
//
// The binary COPY format reader: rows decoded whatever the chunking (whole, byte by byte), NULLs, the
// header extension skipped, and each malformed input refused with its own message.
//

#include "BlueTusk/BinaryCopyReader.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/CopyIn.h"
#include "BlueTusk/TypeOid.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;

namespace {

std::string int16Bytes(int value)
{
	return std::string{static_cast<char>((value >> 8) & 0xff), static_cast<char>(value & 0xff)};
}


std::string int32Bytes(Poco::Int32 value)
{
	const Poco::UInt32 v = static_cast<Poco::UInt32>(value);
	return std::string{static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xff), static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}


std::string field(const std::string& bytes)
{
	return int32Bytes(static_cast<Poco::Int32>(bytes.size())) + bytes;
}


std::string header(const std::string& extension = "")
{
	return std::string("PGCOPY\n\377\r\n\0", 11) + int32Bytes(0) + int32Bytes(static_cast<Poco::Int32>(extension.size())) + extension;
}


std::string sample()
	/// (42, 'hé', NULL), (-1, '', 7), then the trailer; with a 3-byte header extension.
{
	return header("xyz") +
		int16Bytes(3) + field(std::string("\0\0\0\0\0\0\0\x2a", 8)) + field("h\xc3\xa9") + int32Bytes(-1) +
		int16Bytes(3) + field(std::string(8, '\xff')) + field("") + field(std::string("\0\0\0\x07", 4)) +
		int16Bytes(-1);
}

} // namespace


class BinaryCopyReaderTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(BinaryCopyReaderTest);
	CPPUNIT_TEST(testWholeAndByteByByte);
	CPPUNIT_TEST(testTextCopyRefused);
	CPPUNIT_TEST(testFieldCountMismatch);
	CPPUNIT_TEST(testTruncatedAndTrailing);
	CPPUNIT_TEST(testWrittenFieldLengthBound);
	CPPUNIT_TEST_SUITE_END();

public:
	void testWholeAndByteByByte()
	{
		const std::string data = sample();
		for (std::size_t chunk: {data.size(), std::size_t(1), std::size_t(5)})
		{
			std::vector<std::string> seen;
			BinaryCopyReader reader({TypeOid::Int8, TypeOid::Text, TypeOid::Int4}, [&](const RowView& row)
			{
				seen.push_back(std::to_string(row.get<Poco::Int64>(0)) + "|" + row.get<std::string>(1) + "|" +
					(row.isNull(2) ? "NULL" : std::to_string(row.get<Poco::Int32>(2))));
			});
			for (std::size_t at = 0; at < data.size(); at += chunk) reader.feed(data.data() + at, std::min(chunk, data.size() - at));
			reader.finish();
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), reader.rows());
			CPPUNIT_ASSERT_EQUAL(std::size_t(2), seen.size());
			CPPUNIT_ASSERT_EQUAL(std::string("42|h\xc3\xa9|NULL"), seen[0]);
			CPPUNIT_ASSERT_EQUAL(std::string("-1||7"), seen[1]);
		}
	}

	void testTextCopyRefused()
	{
		BinaryCopyReader reader({TypeOid::Int4}, [](const RowView&) {});
		try
		{
			reader.feed("1\tname\n", 7);
			CPPUNIT_FAIL("text data accepted");
		}
		catch (BlueTuskProtocolException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("FORMAT binary") != std::string::npos);
		}
	}

	void testFieldCountMismatch()
	{
		BinaryCopyReader reader({TypeOid::Int8, TypeOid::Text}, [](const RowView&) {});
		const std::string data = sample();
		try
		{
			reader.feed(data.data(), data.size());
			CPPUNIT_FAIL("three fields accepted for two column types");
		}
		catch (BlueTuskUsageException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("3 fields but 2 column types") != std::string::npos);
		}
	}

	void testWrittenFieldLengthBound()
	{
		// The writing side (CopyIn::writeRow()): a field's length is an Int32, so a value of 2 GiB or more
		// would be cut short and its rest read as further fields and rows (review, session 9). Checked
		// here on the lengths, without allocating gigabytes.
		Detail::checkFieldLength(0, 0);
		Detail::checkFieldLength(0x7FFFFFFF, 0);
		for (const Poco::UInt64 length: {Poco::UInt64(0x80000000u), Poco::UInt64(0xFFFFFFFFu), (Poco::UInt64(1) << 32) + 5})
		{
			try
			{
				Detail::checkFieldLength(length, 2);
				CPPUNIT_FAIL("a field of " + std::to_string(length) + " bytes must be refused");
			}
			catch (BlueTuskTypeException& exc)
			{
				CPPUNIT_ASSERT_EQUAL(std::string("binary COPY, column 3: the value is too long (" + std::to_string(length) +
					" bytes; the COPY binary format allows 2^31-1)"), exc.message());
			}
		}
	}

	void testTruncatedAndTrailing()
	{
		const std::string data = sample();
		{
			BinaryCopyReader reader({TypeOid::Int8, TypeOid::Text, TypeOid::Int4}, [](const RowView&) {});
			reader.feed(data.data(), data.size() - 2);   // no trailer
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2), reader.rows());
			CPPUNIT_ASSERT_THROW(reader.finish(), BlueTuskProtocolException);
		}
		{
			BinaryCopyReader reader({TypeOid::Int8, TypeOid::Text, TypeOid::Int4}, [](const RowView&) {});
			reader.feed(data.data(), 10);   // inside the header
			CPPUNIT_ASSERT_THROW(reader.finish(), BlueTuskProtocolException);
		}
		{
			BinaryCopyReader reader({TypeOid::Int8, TypeOid::Text, TypeOid::Int4}, [](const RowView&) {});
			const std::string extra = data + "junk";
			CPPUNIT_ASSERT_THROW(reader.feed(extra.data(), extra.size()), BlueTuskProtocolException);
		}
		{
			BinaryCopyReader reader({TypeOid::Int4}, [](const RowView&) {});
			const std::string bad = header() + int16Bytes(1) + int32Bytes(-5);
			CPPUNIT_ASSERT_THROW(reader.feed(bad.data(), bad.size()), BlueTuskProtocolException);
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(BinaryCopyReaderTest);
