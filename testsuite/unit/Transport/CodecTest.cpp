//
// CodecTest.cpp
//
// MessageWriter encodings, MessageReader framing and limits, BackendMessage decoding (PostgreSQL docs 55.7).
//

#include "protocol/BackendMessage.h"
#include "BlueTusk/BlueTuskException.h"
#include "protocol/MessageReader.h"
#include "protocol/MessageWriter.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;

namespace {

std::string bytes(std::initializer_list<int> values)
{
	std::string s;
	for (int v: values) s.push_back(static_cast<char>(v));
	return s;
}


std::string int32(Poco::UInt32 v)
{
	return bytes({int(v >> 24) & 0xFF, int(v >> 16) & 0xFF, int(v >> 8) & 0xFF, int(v) & 0xFF});
}


std::string int16(Poco::UInt16 v)
{
	return bytes({(v >> 8) & 0xFF, v & 0xFF});
}


std::string cstr(const std::string& s)
{
	return s + std::string(1, '\0');
}


std::string frame(char type, const std::string& body)
{
	return std::string(1, type) + int32(static_cast<Poco::UInt32>(body.size() + 4)) + body;
}

} // namespace


class CodecTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(CodecTest);
	CPPUNIT_TEST(testStartupMessage);
	CPPUNIT_TEST(testSslAndCancelRequest);
	CPPUNIT_TEST(testQueryAndTerminate);
	CPPUNIT_TEST(testExtendedQueryMessages);
	CPPUNIT_TEST(testPasswordAndSaslMessages);
	CPPUNIT_TEST(testNulRejected);
	CPPUNIT_TEST(testUnnamedQuery);
	CPPUNIT_TEST(testTypedBindAndExecuteUnnamed);
	CPPUNIT_TEST(testReaderFraming);
	CPPUNIT_TEST(testReaderViews);
	CPPUNIT_TEST(testReaderLimits);
	CPPUNIT_TEST(testErrorFields);
	CPPUNIT_TEST(testRowDescriptionAndDataRow);
	CPPUNIT_TEST(testMalformedMessages);
	CPPUNIT_TEST(testSmallMessages);
	CPPUNIT_TEST(testTypeNames);
	CPPUNIT_TEST_SUITE_END();

public:
	void testStartupMessage()
	{
		MessageWriter writer;
		writer.startupMessage({{"user", "bob"}, {"database", "db"}, {"client_encoding", "UTF8"}});
		const std::string body = int32(196608) + cstr("user") + cstr("bob") + cstr("database") + cstr("db") +
			cstr("client_encoding") + cstr("UTF8") + std::string(1, '\0');
		CPPUNIT_ASSERT_EQUAL(int32(static_cast<Poco::UInt32>(body.size() + 4)) + body, writer.buffer());
	}

	void testSslAndCancelRequest()
	{
		MessageWriter writer;
		writer.sslRequest();
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F}), writer.buffer());
		writer.clear();
		CPPUNIT_ASSERT(writer.empty());
		writer.cancelRequest(1234, -2);
		CPPUNIT_ASSERT_EQUAL(bytes({0, 0, 0, 16, 0x04, 0xD2, 0x16, 0x2E}) + int32(1234) + int32(0xFFFFFFFE), writer.buffer());
	}

	void testQueryAndTerminate()
	{
		MessageWriter writer;
		writer.query("SELECT 1");
		writer.terminate();
		CPPUNIT_ASSERT_EQUAL(frame('Q', cstr("SELECT 1")) + frame('X', ""), writer.buffer());
	}

	void testExtendedQueryMessages()
	{
		MessageWriter writer;
		writer.parse("", "SELECT $1, $2, $3");
		writer.bind("", "", {std::string("a"), std::nullopt, std::string("")});
		writer.describePortal("");
		writer.execute("", 0);
		writer.sync();
		std::string expected = frame('P', cstr("") + cstr("SELECT $1, $2, $3") + int16(0));
		expected += frame('B', cstr("") + cstr("") + int16(0) + int16(3) + int32(1) + "a" + int32(0xFFFFFFFF) + int32(0) + int16(0));
		expected += frame('D', "P" + cstr(""));
		expected += frame('E', cstr("") + int32(0));
		expected += frame('S', "");
		CPPUNIT_ASSERT_EQUAL(expected, writer.buffer());
		writer.clear();
		writer.parse("s1", "SELECT $1", {23});
		writer.describeStatement("s1");
		writer.flush();
		CPPUNIT_ASSERT_EQUAL(frame('P', cstr("s1") + cstr("SELECT $1") + int16(1) + int32(23)) + frame('D', "S" + cstr("s1")) + frame('H', ""), writer.buffer());
	}

	void testPasswordAndSaslMessages()
	{
		MessageWriter writer;
		writer.passwordMessage("pw");
		CPPUNIT_ASSERT_EQUAL(frame('p', cstr("pw")), writer.buffer());
		writer.clear();
		writer.saslInitialResponse("SCRAM-SHA-256", "n,,n=,r=abc");
		CPPUNIT_ASSERT_EQUAL(frame('p', cstr("SCRAM-SHA-256") + int32(11) + "n,,n=,r=abc"), writer.buffer());
		writer.clear();
		writer.saslResponse("c=biws");
		CPPUNIT_ASSERT_EQUAL(frame('p', "c=biws"), writer.buffer());
	}

	void testNulRejected()
	{
		MessageWriter writer;
		CPPUNIT_ASSERT_THROW(writer.query(std::string("SELECT 1\0; DROP", 15)), BlueTuskProtocolException);
		writer.clear();
		writer.query("SELECT 2");
		CPPUNIT_ASSERT_EQUAL(frame('Q', cstr("SELECT 2")), writer.buffer());
	}

	void testUnnamedQuery()
	{
		// The one-pass form writes the bytes of parse/bind/describePortal/execute/sync, after what is there.
		MessageWriter sequence;
		sequence.query("DISCARD ALL");
		sequence.parse("", "SELECT $1, $2, $3");
		sequence.bind("", "", {std::string("a"), std::nullopt, std::string("")});
		sequence.describePortal("");
		sequence.execute("", 0);
		sequence.sync();
		MessageWriter writer;
		writer.query("DISCARD ALL");
		writer.unnamedQuery("SELECT $1, $2, $3", {std::string("a"), std::nullopt, std::string("")});
		CPPUNIT_ASSERT_EQUAL(sequence.buffer(), writer.buffer());
		writer.clear();
		writer.unnamedQuery("SELECT 1", {});
		CPPUNIT_ASSERT_EQUAL(frame('P', cstr("") + cstr("SELECT 1") + int16(0)) + frame('B', cstr("") + cstr("") + int16(0) + int16(0) + int16(0)) +
			frame('D', "P" + cstr("")) + frame('E', cstr("") + int32(0)) + frame('S', ""), writer.buffer());
		writer.clear();
		CPPUNIT_ASSERT_THROW(writer.unnamedQuery(std::string("SELECT 1\0", 9), {}), BlueTuskProtocolException);
		CPPUNIT_ASSERT(writer.empty());   // checked before anything is written
		CPPUNIT_ASSERT_THROW(writer.unnamedQuery("SELECT 1", std::vector<FieldValue>(65536, std::string("1"))), BlueTuskProtocolException);
		CPPUNIT_ASSERT(writer.empty());
	}

	void testTypedBindAndExecuteUnnamed()
		/// The one-growth writers of the unnamed-statement path (doc/performance.md, row 13f): the typed
		/// Bind's bytes, named and unnamed, with a NULL and a binary int4; executeUnnamed() as
		/// describePortal(""), execute("", 0) and sync(), after what is there; a NUL in a name refused.
	{
		MessageWriter writer;
		writer.query("SELECT 0");
		writer.bind("", "s1", Parameters{Poco::Int32(41), Parameter::null()}, {23, 25}, {1, 0});
		CPPUNIT_ASSERT_EQUAL(frame('Q', cstr("SELECT 0")) + frame('B', cstr("") + cstr("s1") + int16(2) + int16(1) + int16(0) + int16(2) +
			int32(4) + int32(41) + int32(0xFFFFFFFF) + int16(2) + int16(1) + int16(0)), writer.buffer());
		writer.clear();
		writer.bind("", "", Parameters{}, {}, {});
		CPPUNIT_ASSERT_EQUAL(frame('B', cstr("") + cstr("") + int16(0) + int16(0) + int16(0)), writer.buffer());
		writer.clear();
		CPPUNIT_ASSERT_THROW(writer.bind("", std::string("s\0", 2), Parameters{}, {}, {}), BlueTuskProtocolException);
		CPPUNIT_ASSERT(writer.empty());
		MessageWriter sequence;
		sequence.sync();
		sequence.describePortal("");
		sequence.execute("", 0);
		sequence.sync();
		sequence.execute("", 0);
		sequence.sync();
		writer.sync();
		writer.executeUnnamed(true);
		writer.executeUnnamed(false);
		CPPUNIT_ASSERT_EQUAL(sequence.buffer(), writer.buffer());
	}

	void testReaderViews()
	{
		// Views and copies mixed, fed byte by byte: each view's body is the message's, in order.
		MessageReader reader;
		const std::string stream = frame('T', int16(0)) + frame('D', int16(1) + int32(2) + "42") + frame('C', cstr("SELECT 1")) + frame('Z', "I");
		std::vector<std::string> bodies;
		std::string types;
		for (char c: stream)
		{
			reader.feed(&c, 1);
			CPPUNIT_ASSERT_EQUAL(reader.complete(), reader.complete());   // asking twice changes nothing
			MessageReader::View view;
			if (types.size() % 2 == 0 ? reader.next(view) : false)
			{
				types += view.type;
				bodies.emplace_back(view.body, view.length);
			}
			BackendMessage message;
			if (types.size() % 2 == 1 && reader.next(message))
			{
				types += message.type;
				bodies.push_back(message.body);
			}
		}
		CPPUNIT_ASSERT_EQUAL(std::string("TDCZ"), types);
		CPPUNIT_ASSERT_EQUAL(int16(1) + int32(2) + "42", bodies[1]);
		CPPUNIT_ASSERT_EQUAL(cstr("SELECT 1"), bodies[2]);
		CPPUNIT_ASSERT_EQUAL(std::string("I"), bodies[3]);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), reader.buffered());
		// A large consumed front is compacted away while a partial message stays intact.
		const std::string big = frame('D', int16(1) + int32(70000) + std::string(70000, 'x'));
		reader.feed(big.data(), big.size());
		reader.feed(stream.data(), 6);   // 6 of the RowDescription's 7 bytes
		MessageReader::View view;
		CPPUNIT_ASSERT(reader.next(view));
		CPPUNIT_ASSERT_EQUAL(big.size() - 5, view.length);
		CPPUNIT_ASSERT(!reader.next(view));
		reader.feed(stream.data() + 6, stream.size() - 6);   // compacts (the consumed 70 KB) before appending
		BackendMessage message;
		CPPUNIT_ASSERT(reader.next(message));
		CPPUNIT_ASSERT_EQUAL('T', message.type);
		CPPUNIT_ASSERT_EQUAL(int16(0), message.body);
		CPPUNIT_ASSERT_EQUAL(stream.size() - 7, reader.buffered());
		reader.clear();
		CPPUNIT_ASSERT(!reader.complete());
	}

	void testReaderFraming()
	{
		MessageReader reader;
		BackendMessage message;
		const std::string stream = frame('Z', "I") + frame('C', cstr("SELECT 1")) + frame('S', cstr("a") + cstr("b"));
		// byte by byte
		std::vector<BackendMessage> got;
		for (char c: stream)
		{
			reader.feed(&c, 1);
			while (reader.next(message)) got.push_back(message);
		}
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), got.size());
		CPPUNIT_ASSERT_EQUAL('Z', got[0].type);
		CPPUNIT_ASSERT_EQUAL(std::string("I"), got[0].body);
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), got[1].commandComplete());
		CPPUNIT_ASSERT_EQUAL(std::string("b"), got[2].parameterStatus().second);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), reader.buffered());
		// all at once, plus a partial message that stays buffered
		reader.feed(stream.data(), stream.size());
		reader.feed("D\0\0", 3);
		int count = 0;
		while (reader.next(message)) ++count;
		CPPUNIT_ASSERT_EQUAL(3, count);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), reader.buffered());
		CPPUNIT_ASSERT(!reader.next(message));
	}

	void testReaderLimits()
	{
		BackendMessage message;
		{
			MessageReader reader;
			std::string bad = "Z" + int32(3);
			reader.feed(bad.data(), bad.size());
			CPPUNIT_ASSERT_THROW(reader.next(message), BlueTuskProtocolException);
		}
		{
			// a short type (ParameterStatus) over 30000 bytes is refused from its header alone
			MessageReader reader;
			std::string header = "S" + int32(40000);
			reader.feed(header.data(), header.size());
			try
			{
				reader.next(message);
				CPPUNIT_FAIL("must throw");
			}
			catch (BlueTuskProtocolException& exc)
			{
				CPPUNIT_ASSERT(exc.message().find("ParameterStatus") != std::string::npos);
				CPPUNIT_ASSERT(exc.message().find("too long") != std::string::npos);
			}
		}
		{
			// a long type (DataRow) may exceed 30000 bytes, but not maxLength()
			MessageReader reader(1000000);
			std::string header = "D" + int32(500000);
			reader.feed(header.data(), header.size());
			CPPUNIT_ASSERT(!reader.next(message));
			MessageReader small(100);
			small.feed(header.data(), header.size());
			CPPUNIT_ASSERT_THROW(small.next(message), BlueTuskProtocolException);
		}
		{
			// garbage: an HTTP answer instead of a protocol message
			MessageReader reader;
			std::string http = "HTTP/1.1 400 Bad Request\r\n\r\n";
			reader.feed(http.data(), http.size());
			CPPUNIT_ASSERT_THROW(reader.next(message), BlueTuskProtocolException);
		}
		CPPUNIT_ASSERT_EQUAL(std::size_t(1) << 30, MessageReader::DEFAULT_MAX_LENGTH);
	}

	void testErrorFields()
	{
		const std::string body = "SERREUR" + std::string(1, '\0') + cstr("VERROR") + cstr("C42P01") + cstr("Mrelation \"x\" does not exist") +
			cstr("Dsome detail") + cstr("Hsome hint") + cstr("P15") + cstr("sschema") + cstr("ttable") + cstr("ccolumn") +
			cstr("nconstraint") + cstr("Fparse_relation.c") + cstr("L1392") + cstr("RparserOpenTable") + cstr("Zunknown") + std::string(1, '\0');
		BackendMessage message('E', body);
		BlueTuskServerException::Fields fields = message.errorFields();
		CPPUNIT_ASSERT_EQUAL(std::string("ERROR"), fields.severity);
		CPPUNIT_ASSERT_EQUAL(std::string("42P01"), fields.sqlState);
		CPPUNIT_ASSERT_EQUAL(std::string("relation \"x\" does not exist"), fields.message);
		CPPUNIT_ASSERT_EQUAL(std::string("some detail"), fields.detail);
		CPPUNIT_ASSERT_EQUAL(std::string("some hint"), fields.hint);
		CPPUNIT_ASSERT_EQUAL(15, fields.position);
		CPPUNIT_ASSERT_EQUAL(std::string("schema"), fields.schema);
		CPPUNIT_ASSERT_EQUAL(std::string("table"), fields.table);
		CPPUNIT_ASSERT_EQUAL(std::string("column"), fields.column);
		CPPUNIT_ASSERT_EQUAL(std::string("constraint"), fields.constraint);
		BlueTuskServerException exc(fields, true);
		CPPUNIT_ASSERT_EQUAL(std::string("ERROR: relation \"x\" does not exist (SQLSTATE 42P01); DETAIL: some detail; HINT: some hint; at character 15"), exc.message());

		// without V (servers before 9.6) the localized S is used
		BackendMessage old('N', cstr("SWARNING") + cstr("C01000") + cstr("Mcareful") + std::string(1, '\0'));
		CPPUNIT_ASSERT_EQUAL(std::string("WARNING"), old.errorFields().severity);
		// unterminated
		CPPUNIT_ASSERT_THROW(BackendMessage('E', "SERROR").errorFields(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('E', cstr("SERROR")).errorFields(), BlueTuskProtocolException);
	}

	void testRowDescriptionAndDataRow()
	{
		const std::string description = int16(2) +
			cstr("id") + int32(16384) + int16(1) + int32(23) + int16(4) + int32(0xFFFFFFFF) + int16(0) +
			cstr("name") + int32(0) + int16(0) + int32(25) + int16(0xFFFF) + int32(0xFFFFFFFF) + int16(0);
		std::vector<ColumnDescription> columns = BackendMessage('T', description).rowDescription();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), columns.size());
		CPPUNIT_ASSERT_EQUAL(std::string("id"), columns[0].name);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(16384), columns[0].tableOid);
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(1), columns[0].columnNumber);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(23), columns[0].typeOid);
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(4), columns[0].typeSize);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(-1), columns[0].typeModifier);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(25), columns[1].typeOid);
		CPPUNIT_ASSERT_EQUAL(Poco::Int16(-1), columns[1].typeSize);

		Row row = BackendMessage('D', int16(3) + int32(2) + "42" + int32(0xFFFFFFFF) + int32(0)).dataRow(3);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), row.size());
		CPPUNIT_ASSERT_EQUAL(std::string("42"), *row[0]);
		CPPUNIT_ASSERT(!row[1]);
		CPPUNIT_ASSERT(row[2]);
		CPPUNIT_ASSERT_EQUAL(std::string(""), *row[2]);
		// binary-safe values
		Row binary = BackendMessage('D', int16(1) + int32(3) + std::string("a\0b", 3)).dataRow(1);
		CPPUNIT_ASSERT_EQUAL(std::string("a\0b", 3), *binary[0]);
	}

	void testMalformedMessages()
	{
		// column count differs from the row description
		CPPUNIT_ASSERT_THROW(BackendMessage('D', int16(2) + int32(0) + int32(0)).dataRow(3), BlueTuskProtocolException);
		// value longer than the message
		CPPUNIT_ASSERT_THROW(BackendMessage('D', int16(1) + int32(10) + "abc").dataRow(1), BlueTuskProtocolException);
		// negative length other than -1
		CPPUNIT_ASSERT_THROW(BackendMessage('D', int16(1) + int32(0xFFFFFFF0)).dataRow(1), BlueTuskProtocolException);
		// trailing bytes
		CPPUNIT_ASSERT_THROW(BackendMessage('D', int16(1) + int32(1) + "ab").dataRow(1), BlueTuskProtocolException);
		// truncated row description
		CPPUNIT_ASSERT_THROW(BackendMessage('T', int16(1) + cstr("id") + int32(0)).rowDescription(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('T', int16(0xFFFF)).rowDescription(), BlueTuskProtocolException);
		// ReadyForQuery with an unknown status, or the wrong length
		CPPUNIT_ASSERT_THROW(BackendMessage('Z', "X").readyForQuery(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('Z', "II").readyForQuery(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('K', int32(1)).backendKeyData(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('S', "name").parameterStatus(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('C', "SELECT 1").commandComplete(), BlueTuskProtocolException);
		CPPUNIT_ASSERT_THROW(BackendMessage('R', "ab").authenticationCode(), BlueTuskProtocolException);
		try
		{
			BackendMessage('D', int16(5)).dataRow(5);
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskProtocolException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("malformed DataRow message") != std::string::npos);
		}
	}

	void testSmallMessages()
	{
		CPPUNIT_ASSERT_EQUAL('T', BackendMessage('Z', "T").readyForQuery());
		std::pair<Poco::Int32, Poco::Int32> key = BackendMessage('K', int32(4711) + int32(0x80000001)).backendKeyData();
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(4711), key.first);
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(0x80000001), key.second);
		BackendMessage sasl('R', int32(10) + cstr("SCRAM-SHA-256-PLUS") + cstr("SCRAM-SHA-256") + std::string(1, '\0'));
		CPPUNIT_ASSERT_EQUAL(Poco::Int32(10), sasl.authenticationCode());
		std::vector<std::string> mechanisms = sasl.saslMechanisms();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), mechanisms.size());
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), mechanisms[1]);
		BackendMessage md5('R', int32(5) + "salt");
		CPPUNIT_ASSERT_EQUAL(std::string("salt"), md5.authenticationData());
	}

	void testTypeNames()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("ErrorResponse"), BackendMessage::typeName('E'));
		CPPUNIT_ASSERT_EQUAL(std::string("DataRow"), BackendMessage::typeName('D'));
		CPPUNIT_ASSERT_EQUAL(std::string("message type 'x'"), BackendMessage::typeName('x'));
		CPPUNIT_ASSERT_EQUAL(std::string("message type 0x07"), BackendMessage::typeName('\x07'));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CodecTest);
