//
// LsnTest.cpp
//
// The freshness rules' values (doc/freshness.md): WAL positions as pg_lsn writes them ("16/B374D848"),
// their order and distance; byte sizes with PostgreSQL's units and their errors; the three keywords
// (Read Your Writes, Read Your Writes Timeout, Max Standby Lag) with defaults and the round trip.
//

#include "ConnectionStringTestHelpers.h"
#include "BlueTusk/Lsn.h"
#include "Poco/Exception.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class LsnTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LsnTest);
	CPPUNIT_TEST(testParse);
	CPPUNIT_TEST(testInvalidLsn);
	CPPUNIT_TEST(testOrderAndDistance);
	CPPUNIT_TEST(testRecordEnd);
	CPPUNIT_TEST(testByteSize);
	CPPUNIT_TEST(testByteSizeErrors);
	CPPUNIT_TEST(testFormatByteSize);
	CPPUNIT_TEST(testKeywords);
	CPPUNIT_TEST_SUITE_END();

public:
	void testParse()
	{
		const Lsn lsn = Lsn::parse("16/B374D848");
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0x16B374D848ull), lsn.value());
		CPPUNIT_ASSERT_EQUAL(std::string("16/B374D848"), lsn.toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0x16B374D848ull), Lsn::parse(" 16/b374d848 ").value());
		CPPUNIT_ASSERT_EQUAL(std::string("0/3000060"), Lsn::parse("0/03000060").toString());
		CPPUNIT_ASSERT_EQUAL(std::string("FFFFFFFF/FFFFFFFF"), Lsn::parse("FFFFFFFF/FFFFFFFF").toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0xFFFFFFFFFFFFFFFFull), Lsn::parse("FFFFFFFF/FFFFFFFF").value());
		CPPUNIT_ASSERT(!Lsn::parse("0/0").isValid());
		CPPUNIT_ASSERT(!Lsn().isValid());
		CPPUNIT_ASSERT_EQUAL(std::string("0/0"), Lsn().toString());
		CPPUNIT_ASSERT(Lsn::parse("0/1").isValid());
		CPPUNIT_ASSERT_EQUAL(std::string("1/0"), Lsn(0x100000000ull).toString());
	}

	void testInvalidLsn()
	{
		for (const char* text: {"", "16", "16/", "/B374D848", "16/B374D84G", "123456789/0", "0/123456789", "-1/0", "16//1", "0x16/1"})
		{
			Lsn result(42);
			CPPUNIT_ASSERT_MESSAGE(text, !Lsn::tryParse(text, result));
			CPPUNIT_ASSERT_EQUAL(Poco::UInt64(42), result.value());
			try
			{
				Lsn::parse(text);
				CPPUNIT_FAIL(std::string("must fail: ") + text);
			}
			catch (Poco::SyntaxException& exc)
			{
				BLUETUSK_ASSERT_CONTAINS(exc.message(), "not a WAL position");
				BLUETUSK_ASSERT_CONTAINS(exc.message(), std::string("\"") + text + "\"");
			}
		}
	}

	void testOrderAndDistance()
	{
		const Lsn a = Lsn::parse("16/B374D848");
		const Lsn b = Lsn::parse("17/0");
		const Lsn c = Lsn::parse("16/B374D849");
		CPPUNIT_ASSERT(a < b && a < c && c < b);
		CPPUNIT_ASSERT(b > a && a <= a && a >= a && a != c && a == Lsn::parse("16/b374d848"));
		// the high half counts for 2^32: 17/0 - 16/B374D848 = 0x100000000 - 0xB374D848
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0x100000000ull - 0xB374D848ull), Lsn::bytesBehind(b, a));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), Lsn::bytesBehind(c, a));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), Lsn::bytesBehind(a, c));   // already reached
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), Lsn::bytesBehind(a, a));
	}

	void testRecordEnd()
	{
		const Poco::UInt64 block = 8192, segment = 16 * 1024 * 1024;
		// just past a page header: back to the page boundary
		CPPUNIT_ASSERT_EQUAL(std::string("0/3002000"), Lsn::recordEnd(Lsn::parse("0/3002018"), block, segment).toString());
		// just past the long header of a segment's first page
		CPPUNIT_ASSERT_EQUAL(std::string("0/4000000"), Lsn::recordEnd(Lsn::parse("0/4000028"), block, segment).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("16/B3000000"), Lsn::recordEnd(Lsn::parse("16/B3000028"), block, segment).toString());
		// a record may end at offset 40 of an ordinary page, or anywhere else: unchanged
		CPPUNIT_ASSERT_EQUAL(std::string("0/3002028"), Lsn::recordEnd(Lsn::parse("0/3002028"), block, segment).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("0/4000018"), Lsn::recordEnd(Lsn::parse("0/4000018"), block, segment).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("16/B374D848"), Lsn::recordEnd(Lsn::parse("16/B374D848"), block, segment).toString());
		// sizes unknown: nothing corrected
		CPPUNIT_ASSERT_EQUAL(std::string("0/3002018"), Lsn::recordEnd(Lsn::parse("0/3002018"), 0, 0).toString());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(8192), parseByteSize("8192", "wal_block_size"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(segment), parseByteSize("16MB", "wal_segment_size"));
	}

	void testByteSize()
	{
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), parseByteSize("0", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(16384), parseByteSize("16384", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(100), parseByteSize("100B", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(512 * 1024), parseByteSize("512kB", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1024 * 1024), parseByteSize("1MB", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(16 * 1024 * 1024), parseByteSize(" 16 MB ", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(2ull * 1024 * 1024 * 1024), parseByteSize("2GB", "Max Standby Lag"));
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(3ull << 40), parseByteSize("3TB", "Max Standby Lag"));
	}

	void testByteSizeErrors()
	{
		const struct { const char* text; const char* why; } cases[] = {
			{"", "is not a size"}, {"MB", "is not a size"}, {"-1MB", "is not a size"}, {"1.5MB", "is not a whole number"},
			{"1mb", "unknown unit \"mb\""}, {"1KB", "unknown unit \"KB\""}, {"1 megabyte", "unknown unit \"megabyte\""},
			{"9999999TB", "is too large"}, {"99999999999999999999", "is too large"}, {"1MB2", "unknown unit \"MB2\""}};
		for (const auto& c: cases)
		{
			try
			{
				parseByteSize(c.text, "Max Standby Lag");
				CPPUNIT_FAIL(std::string("must fail: ") + c.text);
			}
			catch (BlueTuskConnectionStringException& exc)
			{
				BLUETUSK_ASSERT_CONTAINS(exc.message(), "Max Standby Lag: ");
				BLUETUSK_ASSERT_CONTAINS(exc.message(), c.why);
				BLUETUSK_ASSERT_CONTAINS(exc.message(), "B, kB, MB, GB or TB");
			}
		}
	}

	void testFormatByteSize()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("0 bytes"), formatByteSize(0));
		CPPUNIT_ASSERT_EQUAL(std::string("1 byte"), formatByteSize(1));
		CPPUNIT_ASSERT_EQUAL(std::string("1023 bytes"), formatByteSize(1023));
		CPPUNIT_ASSERT_EQUAL(std::string("1 kB"), formatByteSize(1024));
		CPPUNIT_ASSERT_EQUAL(std::string("1.5 kB"), formatByteSize(1536));
		CPPUNIT_ASSERT_EQUAL(std::string("1 MB"), formatByteSize(1024 * 1024));
		CPPUNIT_ASSERT_EQUAL(std::string("4.2 MB"), formatByteSize(static_cast<Poco::UInt64>(4.2 * 1024 * 1024)));
		CPPUNIT_ASSERT_EQUAL(std::string("1024 MB"), formatByteSize(1024ull * 1024 * 1024 - 1)); // rounds up within its unit
		CPPUNIT_ASSERT_EQUAL(std::string("3.5 GB"), formatByteSize(3584ull * 1024 * 1024));
		CPPUNIT_ASSERT_EQUAL(std::string("2 TB"), formatByteSize(2ull << 40));
		CPPUNIT_ASSERT_EQUAL(std::string("1MB"), formatByteSizeSetting(1024 * 1024));
		CPPUNIT_ASSERT_EQUAL(std::string("1536kB"), formatByteSizeSetting(1536 * 1024));
		CPPUNIT_ASSERT_EQUAL(std::string("100B"), formatByteSizeSetting(100));
		CPPUNIT_ASSERT_EQUAL(std::string("0"), formatByteSizeSetting(0));
	}

	void testKeywords()
	{
		const auto defaults = parse("Host=db-a;Username=u");
		CPPUNIT_ASSERT(!defaults.readYourWrites);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000), defaults.readYourWritesTimeout.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), defaults.maxStandbyLag);
		CPPUNIT_ASSERT(!contains(defaults.toString(), "Read Your Writes"));
		CPPUNIT_ASSERT(!contains(defaults.toString(), "Max Standby Lag"));

		const auto s = parse("Host=db-a;Username=u;Read Your Writes=true;Read Your Writes Timeout=250;Max Standby Lag=1MB");
		CPPUNIT_ASSERT(s.readYourWrites);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(250), s.readYourWritesTimeout.totalMilliseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1024 * 1024), s.maxStandbyLag);
		const std::string text = s.toString();
		BLUETUSK_ASSERT_CONTAINS(text, "Read Your Writes=true;");
		BLUETUSK_ASSERT_CONTAINS(text, "Read Your Writes Timeout=250;");
		BLUETUSK_ASSERT_CONTAINS(text, "Max Standby Lag=1MB;");
		CPPUNIT_ASSERT(parse(text) == s);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Read Your Writes=true;Read Your Writes Timeout=250;Max Standby Lag=1025kB") != s);

		const auto compact = parse("Host=db-a;Username=u;ReadYourWrites=on;MaxStandbyLag=512kB");
		CPPUNIT_ASSERT(compact.readYourWrites);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(512 * 1024), compact.maxStandbyLag);

		std::string message = parseError("Host=db-a;Username=u;Password=sekrit-pw;Max Standby Lag=1 mb");
		BLUETUSK_ASSERT_CONTAINS(message, "Max Standby Lag");
		BLUETUSK_ASSERT_CONTAINS(message, "unknown unit");
		CPPUNIT_ASSERT(!contains(message, "sekrit-pw"));
		message = parseError("Host=db-a;Username=u;Read Your Writes Timeout=1.5");
		BLUETUSK_ASSERT_CONTAINS(message, "Read Your Writes Timeout");
		message = parseError("Host=db-a;Username=u;Read Your Writes=maybe");
		BLUETUSK_ASSERT_CONTAINS(message, "Read Your Writes");
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(LsnTest);
