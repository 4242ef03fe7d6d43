//
// HostileBackendFaultTest.cpp
//
// A hostile or broken server (doc/reliability.md): the fake backend sends bytes chosen to
// break the client, during startup (BackendScript::garbage) and as the answer to a query
// (QueryAnswer::raw). Every case must end as a clear BlueTusk exception of a known class that names
// the endpoint (host:port), within the connect deadline, without growing memory without bound. Query-path
// cases go through BlueTuskConnection, which names the server (a bare ProtocolSession's query errors do not).
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "ProcessMemory.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include "Poco/ByteOrder.h"
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <type_traits>
#include <typeinfo>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string int32(Poco::Int32 value)
{
	const Poco::UInt32 big = Poco::ByteOrder::toNetwork(static_cast<Poco::UInt32>(value));
	return std::string(reinterpret_cast<const char*>(&big), 4);
}


std::string int16(Poco::Int16 value)
{
	const Poco::UInt16 big = Poco::ByteOrder::toNetwork(static_cast<Poco::UInt16>(value));
	return std::string(reinterpret_cast<const char*>(&big), 2);
}


std::string message(char type, const std::string& body)
	/// A correctly framed message.
{
	return std::string(1, type) + int32(static_cast<Poco::Int32>(body.size() + 4)) + body;
}


std::string header(char type, Poco::Int32 length)
	/// A type byte and a length of our choosing (the body, if any, follows separately).
{
	return std::string(1, type) + int32(length);
}


std::string cstring(const std::string& text)
{
	return text + std::string(1, '\0');
}


const std::string AUTH_OK = message('R', int32(0));


std::string startupTail()
	/// The rest of a good startup after AuthenticationOk: role parameters, BackendKeyData, ReadyForQuery.
{
	return message('S', cstring("server_version") + cstring("15.4")) + message('S', cstring("in_hot_standby") + cstring("off")) +
		message('S', cstring("default_transaction_read_only") + cstring("off")) + message('K', int32(4242) + int32(7)) +
		message('Z', "I");
}


std::string describe(const Poco::Exception& exc)
{
	return std::string(typeid(exc).name()) + ": " + exc.displayText();
}

} // namespace


class HostileBackendFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HostileBackendFaultTest);
	CPPUNIT_TEST(testImpossibleLengthsDuringStartup);
	CPPUNIT_TEST(testShortMessagesDuringStartup);
	CPPUNIT_TEST(testUnknownMessageAndAuthenticationTypes);
	CPPUNIT_TEST(testSaslMechanisms);
	CPPUNIT_TEST(testWrongScramNonce);
	CPPUNIT_TEST(testEmptyAndHugeErrorResponses);
	CPPUNIT_TEST(testInvalidReadyForQuery);
	CPPUNIT_TEST(testParameterStatusFlood);
	CPPUNIT_TEST(testParameterStatusNewNamesFlood);
	CPPUNIT_TEST(testImpossibleRowDescriptions);
	CPPUNIT_TEST(testImpossibleDataRows);
	CPPUNIT_TEST(testHostileMessagesAfterStartup);
	CPPUNIT_TEST(testNoticeFloodStaysBounded);
	CPPUNIT_TEST_SUITE_END();

public:
	void testImpossibleLengthsDuringStartup()
		/// Oversized (above the 256 KiB startup limit, 1 GiB, INT32_MAX), negative and below-4 lengths:
		/// a protocol error before any body is awaited or buffered.
	{
		for (const std::string& bytes: {header('R', 0x7FFFFFFF), header('R', -1), header('R', -100000), header('R', 3),
			header('R', 0), AUTH_OK + header('E', 1 << 30), AUTH_OK + header('S', 300 * 1024), AUTH_OK + header('K', 0x40000000)})
		{
			expectStartupFailure<BlueTuskProtocolException>(bytes, {"protocol error", "from the server"});
		}
	}

	void testShortMessagesDuringStartup()
		/// Messages whose length is valid framing but too short for their content.
	{
		expectStartupFailure<BlueTuskProtocolException>(message('R', ""), {"Authentication", "too short"});
		expectStartupFailure<BlueTuskProtocolException>(message('R', std::string(2, '\0')), {"Authentication"});
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('K', int32(1)), {"BackendKeyData", "too short"});
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('S', "server_version"), {"ParameterStatus", "unterminated"});
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('S', cstring("a") + cstring("b") + "x"), {"ParameterStatus", "trailing"});
	}

	void testUnknownMessageAndAuthenticationTypes()
	{
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('q', ""), {"'q'"});
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('\x07', "abc"), {"0x07"});
		expectStartupFailure<BlueTuskProtocolException>(message('D', int16(0)), {"DataRow"});
		expectStartupFailure<BlueTuskAuthenticationException>(message('R', int32(99)), {"99"});
		expectStartupFailure<BlueTuskAuthenticationException>(message('R', int32(-1)), {"-1"});
	}

	void testSaslMechanisms()
		/// AuthenticationSASL with an empty list, only unknown mechanisms, or an unterminated list.
	{
		expectStartupFailure<BlueTuskAuthenticationException>(message('R', int32(10) + std::string(1, '\0')), {"SCRAM-SHA-256"});
		expectStartupFailure<BlueTuskAuthenticationException>(message('R', int32(10) + cstring("X-UNKNOWN") + cstring("GSSAPI") + std::string(1, '\0')),
			{"X-UNKNOWN"});
		expectStartupFailure<BlueTuskProtocolException>(message('R', int32(10) + "SCRAM-SHA-256"), {"unterminated mechanism list"});
	}

	void testWrongScramNonce()
		/// A server-first-message whose nonce does not extend the client's, a missing salt, and a SASL
		/// final message before any continue. (A wrong server signature: SessionStartupFaultTest.)
	{
		const std::string sasl = message('R', int32(10) + cstring("SCRAM-SHA-256") + std::string(1, '\0'));
		expectStartupFailure<BlueTuskAuthenticationException>(sasl + message('R', int32(11) + "r=notTheClientsNonce,s=QSXCR+Q6sek8bf92,i=4096"), {"nonce"});
		expectStartupFailure<BlueTuskAuthenticationException>(sasl + message('R', int32(11) + "garbage"), {"SCRAM"});
		expectStartupFailure<BlueTuskAuthenticationException>(sasl + message('R', int32(12) + "v=AAAA"), {"SCRAM"});
	}

	void testEmptyAndHugeErrorResponses()
	{
		// no fields at all: still a server error naming the endpoint, never an empty message
		expectStartupFailure<BlueTuskServerException>(message('E', std::string(1, '\0')), {});
		// no terminator: malformed
		expectStartupFailure<BlueTuskProtocolException>(message('E', ""), {"ErrorResponse", "terminator"});
		expectStartupFailure<BlueTuskProtocolException>(message('E', "MFATAL"), {"ErrorResponse"});
		// 300 KiB: above the startup limit, refused before it is buffered
		expectStartupFailure<BlueTuskProtocolException>(message('E', "M" + std::string(300 * 1024, 'x') + std::string(2, '\0')), {"too long"});
	}

	void testInvalidReadyForQuery()
	{
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('K', int32(1) + int32(2)) + message('Z', "X"), {"ReadyForQuery", "transaction status"});
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('K', int32(1) + int32(2)) + message('Z', ""), {"ReadyForQuery"});
		expectStartupFailure<BlueTuskProtocolException>(AUTH_OK + message('K', int32(1) + int32(2)) + message('Z', "II"), {"ReadyForQuery"});
	}

	void testParameterStatusFlood()
		/// 200,000 ParameterStatus messages for the same name during startup: the session opens, keeps
		/// the last value, and the process grows by less than 64 MB (each message is handled and dropped).
	{
		std::string flood = AUTH_OK;
		for (int i = 0; i < 200000; ++i) flood += message('S', cstring("application_name") + cstring("flood-" + std::to_string(i)));
		FakeBackend backend(BackendScript::garbage(flood + startupTail()));
		ProtocolSessionFactory factory;
		const long before = statusKilobytes("VmRSS");
		resetPeakResident();
		auto session = factory.openSession(backend.endpoint(), fastSettings(5000));
		const long peak = statusKilobytes("VmHWM");
		CPPUNIT_ASSERT_EQUAL(std::string("flood-199999"), session->parameterStatus("application_name"));
		CPPUNIT_ASSERT_EQUAL(std::string("15.4"), session->parameterStatus("server_version"));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(peak - before) + " kB", peak - before < 64 * 1024);
	}

	void testParameterStatusNewNamesFlood()
		/// 100,000 ParameterStatus messages, each with a new name, then the usual ones: the session keeps
		/// at most 1,000 names (and every name PostgreSQL reports), so memory stays bounded.
	{
		std::string flood = AUTH_OK;
		for (int i = 0; i < 100000; ++i) flood += message('S', cstring("invented_" + std::to_string(i)) + cstring(std::string(200, 'v')));
		FakeBackend backend(BackendScript::garbage(flood + startupTail()));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(5000));
		CPPUNIT_ASSERT_EQUAL(std::string("15.4"), session->parameterStatus("server_version"));   // reported after the flood, kept
		CPPUNIT_ASSERT_EQUAL(std::string(200, 'v'), session->parameterStatus("invented_0"));
		CPPUNIT_ASSERT_EQUAL(std::string(), session->parameterStatus("invented_5000"));          // beyond the bound
	}

	void testImpossibleRowDescriptions()
		/// A field count with no fields behind it, a negative count, a truncated field, trailing bytes,
		/// and a length claiming more than the body: protocol errors that break the session.
	{
		const std::string field = cstring("a") + int32(0) + int16(0) + int32(23) + int16(4) + int32(-1) + int16(0);
		for (const auto& bytes: {message('T', int16(32767)), message('T', int16(-1)), message('T', int16(2) + field),
			message('T', int16(1) + field + "junk"), message('T', int16(1) + "a")})
		{
			expectQueryFailure<BlueTuskProtocolException>(bytes, {"RowDescription"});
		}
	}

	void testImpossibleDataRows()
		/// Column counts that differ from the description, a field length of INT32_MAX with a short body,
		/// a length of -2, and a row with trailing bytes.
	{
		const std::string description = message('T', int16(1) + cstring("a") + int32(0) + int16(0) + int32(25) + int16(-1) + int32(-1) + int16(0));
		for (const auto& row: {message('D', int16(5)), message('D', int16(-3)), message('D', int16(1) + int32(0x7FFFFFFF) + "abc"),
			message('D', int16(1) + int32(-2)), message('D', int16(1) + int32(1) + "ab"), message('D', int16(0))})
		{
			expectQueryFailure<BlueTuskProtocolException>(description + row, {"DataRow"});
		}
		// a DataRow before any RowDescription
		expectQueryFailure<BlueTuskProtocolException>(message('D', int16(1) + int32(1) + "a"), {"DataRow"});
	}

	void testHostileMessagesAfterStartup()
		/// Once the session is open the long-type limit is 1 GiB; a length above it, a negative one, an
		/// unknown type, a bad ReadyForQuery and authentication in mid-session all break the session.
	{
		expectQueryFailure<BlueTuskProtocolException>(header('D', 0x7FFFFFFF), {"too long"});
		expectQueryFailure<BlueTuskProtocolException>(header('C', -5), {"CommandComplete"});
		expectQueryFailure<BlueTuskProtocolException>(header('C', 2), {"invalid length"});
		expectQueryFailure<BlueTuskProtocolException>(message('C', "SELECT 1"), {"CommandComplete"});
		expectQueryFailure<BlueTuskProtocolException>(message('C', cstring("SELECT 0")) + message('Z', "?"), {"ReadyForQuery"});
		expectQueryFailure<BlueTuskProtocolException>(message('!', "x"), {"'!'"});
		expectQueryFailure<BlueTuskProtocolException>(message('R', int32(0)), {"Authentication"});
		expectQueryFailure<BlueTuskProtocolException>(message('E', ""), {"ErrorResponse"});
		expectQueryFailure<BlueTuskProtocolException>(message('N', "Mhello"), {"NoticeResponse"});
		expectQueryFailure<BlueTuskProtocolException>(message('A', int32(1) + "chan"), {"NotificationResponse"});
	}

	void testNoticeFloodStaysBounded()
		/// 200,000 NoticeResponse messages before the result: the query answers, every notice reaches the
		/// handler, memory grows by less than 64 MB; then a 4 MB ErrorResponse arrives whole as a server error.
	{
		std::string flood;
		for (int i = 0; i < 200000; ++i) flood += message('N', "SNOTICE\0C00000\0Mnotice " + std::to_string(i) + std::string(2, '\0'));
		const std::string description = message('T', int16(1) + cstring("v") + int32(0) + int16(0) + int32(25) + int16(-1) + int32(-1) + int16(0));
		const std::string row = message('D', int16(1) + int32(2) + "ok");
		const std::string hugeError = message('E', std::string("SERROR\0VERROR\0C22000\0M", 22) + std::string(4 << 20, 'e') + std::string(2, '\0'));
		FakeBackend backend(BackendScript::primary()
			.answer("SELECT flood", QueryAnswer::raw(flood + description + row + message('C', cstring("SELECT 1"))))
			.answer("SELECT huge", QueryAnswer::raw(hugeError)));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(5000));
		int notices = 0;
		session->setNoticeHandler([&notices](const BlueTuskServerException::Fields&) { ++notices; });
		const long before = statusKilobytes("VmRSS");
		resetPeakResident();
		std::vector<QueryResult> results = session->executeSimple("SELECT flood");
		const long peak = statusKilobytes("VmHWM");
		CPPUNIT_ASSERT_EQUAL(std::string("ok"), *results.at(0).rows.at(0).at(0));
		CPPUNIT_ASSERT_EQUAL(200000, notices);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(peak - before) + " kB", peak - before < 64 * 1024);
		try
		{
			session->executeSimple("SELECT huge");
			CPPUNIT_FAIL("no error");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("22000"), exc.sqlState());
			CPPUNIT_ASSERT(exc.sessionUsable());
		}
		CPPUNIT_ASSERT(!session->isBroken());
	}

private:
	template <typename E>
	void expectStartupFailure(const std::string& bytes, const std::vector<std::string>& words)
		/// The server answers the StartupMessage with bytes and closes: open must throw E naming host:port
		/// and the words, within one second. E = BlueTuskProtocolException: the BlueTuskTransportException
		/// whose one host attempt ended as "protocol error".
	{
		FakeBackend backend(BackendScript::garbage(bytes));
		ProtocolSessionFactory factory;
		Millis clock;
		try
		{
			factory.openSession(backend.endpoint(), fastSettings(1000, "pw"));
			CPPUNIT_FAIL("open succeeded against " + std::to_string(bytes.size()) + " hostile bytes");
		}
		catch (Poco::Exception& exc)
		{
			check<E>(exc, backend, words, clock);
		}
	}

	template <typename E>
	void expectQueryFailure(const std::string& bytes, const std::vector<std::string>& words)
		/// The server answers "SELECT hostile" with bytes (then ReadyForQuery): the query, through the
		/// application's BlueTuskConnection, must throw E naming host:port and the words within one
		/// second, and leave the session broken.
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT hostile", QueryAnswer::raw(bytes)));
		BlueTuskConnection connection = BlueTuskConnection::open("Host=" + backend.hostAndPort() +
			";Username=alice;Database=app;SSL Mode=Disable;Timeout=1;Passfile=/nonexistent/bluetusk-fault-test.pgpass");
		Millis clock;
		try
		{
			connection.executeSimple("SELECT hostile");
			CPPUNIT_FAIL("query succeeded against hostile bytes");
		}
		catch (Poco::Exception& exc)
		{
			check<E>(exc, backend, words, clock);
		}
		CPPUNIT_ASSERT(connection.session().isBroken());
	}

	template <typename E>
	void check(const Poco::Exception& exc, const FakeBackend& backend, const std::vector<std::string>& words, const Millis& clock)
	{
		const std::string text = exc.displayText();
		const Poco::Exception* found = dynamic_cast<const E*>(&exc) ? &exc : nullptr;
		// a protocol error while opening is the host attempt's outcome (as SessionStartupFaultTest::testGarbageIsAProtocolError)
		const auto* transport = dynamic_cast<const BlueTuskTransportException*>(&exc);
		if (!found && transport && std::is_same<E, BlueTuskProtocolException>::value && outcomes(transport->attempts()) == "protocol error")
			found = &exc;
		for (const Poco::Exception* nested = exc.nested(); !found && nested; nested = nested->nested())
			if (dynamic_cast<const E*>(nested)) found = nested;
		CPPUNIT_ASSERT_MESSAGE("wrong class: " + describe(exc) + "\n" + allText(exc), found != nullptr);
		CPPUNIT_ASSERT_MESSAGE(text, text.find(backend.hostAndPort()) != std::string::npos);
		const std::string all = allText(exc);
		for (const auto& word: words)
			CPPUNIT_ASSERT_MESSAGE("'" + word + "' missing: " + all, all.find(word) != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(clock.elapsed()) + " ms: " + text, clock.elapsed() < 1000);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(HostileBackendFaultTest);
