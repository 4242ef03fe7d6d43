//
// ProtocolVersionFaultTest.cpp
//
// Protocol 3.2 (PostgreSQL 18) against the fake backend: Min / Max Protocol Version in the StartupMessage,
// NegotiateProtocolVersion (a lower minor version offered; unsupported _pq_ options listed; a hostile
// higher offer), variable-length cancel keys (32 and 256 bytes kept and sent back whole in CancelRequest),
// and the keys protocol 3.0 and 3.2 forbid.
//

#include "TransportFaultSupport.h"
#include "FakeBackend.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSession.h"
#include "session/ProtocolSessionFactory.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

ConnectionSettings versionSettings(int minimum, int maximum)
	/// fastSettings with Min and Max Protocol Version (-1: not given).
{
	ConnectionSettings settings = fastSettings(2000);
	settings.minProtocolVersion = minimum;
	settings.maxProtocolVersion = maximum;
	return settings;
}


BackendScript speaking(int minor, int keyLength)
{
	BackendScript script = BackendScript::primary();
	script.protocolMinor = minor;
	script.cancelKeyLength = keyLength;
	return script;
}


std::string openFailure(FakeBackend& backend, const ConnectionSettings& settings)
	/// Everything the failed open's exception says (allText); fails the test when the open succeeds.
{
	try
	{
		ProtocolSessionFactory factory;
		factory.openSession(backend.endpoint(), settings);
	}
	catch (BlueTuskException& exc)
	{
		return allText(exc);
	}
	CPPUNIT_FAIL("the open must fail");
	return std::string();
}


void assertCancelSendsKeyBack(FakeBackend& backend, ProtocolSession& session, std::size_t keyLength)
{
	CPPUNIT_ASSERT_EQUAL(keyLength, session.cancelKeyLength());
	session.cancel();
	CPPUNIT_ASSERT(waitUntil([&] { return backend.cancelRequests() == 1; }, Poco::Timespan(2, 0)));
	CPPUNIT_ASSERT_EQUAL(keyLength, backend.lastCancelKey().size());
	CPPUNIT_ASSERT_EQUAL(1, backend.matchedCancelRequests()); // the whole key, byte for byte
}

} // namespace


class ProtocolVersionFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ProtocolVersionFaultTest);
	CPPUNIT_TEST(testDefaultAsksForThreeZero);
	CPPUNIT_TEST(testThreeTwoAgainstThreeZeroServer);
	CPPUNIT_TEST(testThreeTwoWithLongCancelKey);
	CPPUNIT_TEST(testLongestCancelKey);
	CPPUNIT_TEST(testMinimumFollowsIntoRequest);
	CPPUNIT_TEST(testMinimumRefusesOlderServer);
	CPPUNIT_TEST(testUnsupportedOptionsListed);
	CPPUNIT_TEST(testHigherOfferIsAProtocolError);
	CPPUNIT_TEST(testInvalidCancelKeys);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaultAsksForThreeZero()
	{
		FakeBackend backend(speaking(2, 4));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), fastSettings(2000));
		CPPUNIT_ASSERT_EQUAL(0, backend.lastProtocolMinor());
		CPPUNIT_ASSERT_EQUAL(0, session->protocolVersion());
	}

	void testThreeTwoAgainstThreeZeroServer()
	{
		// PostgreSQL 15: answers a 3.2 StartupMessage with NegotiateProtocolVersion 3.0 and goes on
		FakeBackend backend(speaking(0, 4));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), versionSettings(0, 2));
		CPPUNIT_ASSERT_EQUAL(2, backend.lastProtocolMinor());
		CPPUNIT_ASSERT_EQUAL(0, session->protocolVersion());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1").at(0).rows.at(0).at(0));
		assertCancelSendsKeyBack(backend, *session, 4);
	}

	void testThreeTwoWithLongCancelKey()
	{
		// PostgreSQL 18: no NegotiateProtocolVersion, a 32-byte key
		FakeBackend backend(speaking(2, 32));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), versionSettings(0, 2));
		CPPUNIT_ASSERT_EQUAL(2, backend.lastProtocolMinor());
		CPPUNIT_ASSERT_EQUAL(2, session->protocolVersion());
		assertCancelSendsKeyBack(backend, *session, 32);
	}

	void testLongestCancelKey()
	{
		FakeBackend backend(speaking(2, 256));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), versionSettings(2, 2));
		assertCancelSendsKeyBack(backend, *session, 256);
	}

	void testMinimumFollowsIntoRequest()
	{
		// Max Protocol Version not given: the request is the minimum when that is higher than 3.0
		FakeBackend backend(speaking(2, 32));
		ProtocolSessionFactory factory;
		auto session = factory.openSession(backend.endpoint(), versionSettings(2, -1));
		CPPUNIT_ASSERT_EQUAL(2, backend.lastProtocolMinor());
		CPPUNIT_ASSERT_EQUAL(2, session->protocolVersion());
	}

	void testMinimumRefusesOlderServer()
	{
		FakeBackend backend(speaking(0, 4));
		const std::string text = openFailure(backend, versionSettings(2, 2));
		CPPUNIT_ASSERT_MESSAGE(text, text.find("supports protocol version 3.0 at most, but Min Protocol Version (min_protocol_version) is 3.2") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(text, text.find(backend.hostAndPort()) != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, backend.passwordsReceived()); // the client stopped at NegotiateProtocolVersion
	}

	void testUnsupportedOptionsListed()
	{
		BackendScript script = speaking(0, 4);
		script.unsupportedOptions = {"_pq_.compression", "_pq_.other"};
		FakeBackend backend(script);
		const std::string text = openFailure(backend, versionSettings(0, 2));
		CPPUNIT_ASSERT_MESSAGE(text, text.find("invalid NegotiateProtocolVersion from the server: it reports the protocol option \"_pq_.compression\" "
			"as unsupported, which BlueTusk did not request (2 option(s) listed)") != std::string::npos);
	}

	void testHigherOfferIsAProtocolError()
	{
		BackendScript script = speaking(2, 4);
		script.negotiateOffer = 2;
		FakeBackend backend(script);
		const std::string text = openFailure(backend, fastSettings(2000));
		CPPUNIT_ASSERT_MESSAGE(text, text.find("it offers protocol 3.2, but 3.0 was requested") != std::string::npos);
	}

	void testInvalidCancelKeys()
	{
		{
			FakeBackend backend(speaking(0, 32)); // a 32-byte key in a 3.0 session
			const std::string text = openFailure(backend, fastSettings(2000));
			CPPUNIT_ASSERT_MESSAGE(text, text.find("a cancel key of 32 bytes is not allowed in protocol version 3.0 (it must be 4 bytes)") != std::string::npos);
		}
		{
			FakeBackend backend(speaking(2, 257));
			const std::string text = openFailure(backend, versionSettings(0, 2));
			CPPUNIT_ASSERT_MESSAGE(text, text.find("a cancel key of 257 bytes (protocol 3.2 allows 4 to 256)") != std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProtocolVersionFaultTest);
