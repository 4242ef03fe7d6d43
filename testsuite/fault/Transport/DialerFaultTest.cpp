//
// DialerFaultTest.cpp
//
// The Dialer against real network faults on loopback (doc/transport.md): refused and black-holed
// addresses give ordered per-address diagnostics within the one host deadline, and a host name with
// several addresses (StaticResolver) is tried address by address.
//

#include "TransportFaultSupport.h"
#include "BlackHoleListener.h"
#include "FakeBackend.h"
#include "RefusedPort.h"
#include "BlueTusk/BlueTuskException.h"
#include "connect/Deadline.h"
#include "connect/Dialer.h"
#include "connect/StaticResolver.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;


class DialerFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DialerFaultTest);
	CPPUNIT_TEST(testRefusedIsRecordedAtOnce);
	CPPUNIT_TEST(testBlackHoleTimesOutAtTheDeadline);
	CPPUNIT_TEST(testOrderedDiagnosticsForAHostName);
	CPPUNIT_TEST(testRefusedThenBackendReachesBackend);
	CPPUNIT_TEST(testThreeAddressesReachTheThird);
	CPPUNIT_TEST(testDeadlineBoundsTheWholeHost);
	CPPUNIT_TEST(testUnknownHostName);
	CPPUNIT_TEST_SUITE_END();

public:
	void testRefusedIsRecordedAtOnce()
	{
		RefusedPort refused("127.0.0.2");
		Dialer dialer;
		Millis clock;
		try
		{
			dialer.dial(refused.endpoint(), Poco::Timespan(1, 0));
			CPPUNIT_FAIL("dial to a refused port succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT(clock.elapsed() < 300);
			CPPUNIT_ASSERT_EQUAL(refused.hostAndPort(), exc.endpoint());
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
			const AddressAttempt& attempt = exc.attempts()[0];
			CPPUNIT_ASSERT_EQUAL(refused.hostAndPort(), attempt.address);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(outcomes(exc.attempts()), int(AddressAttempt::REFUSED), int(attempt.outcome));
			CPPUNIT_ASSERT_EQUAL(std::string("Connection refused"), attempt.errorText);
			CPPUNIT_ASSERT(attempt.elapsedMs >= 0 && attempt.elapsedMs < 300);
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find(refused.hostAndPort()) != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("refused") != std::string::npos);
			CPPUNIT_ASSERT(exc.nested() != nullptr);
			CPPUNIT_ASSERT_MESSAGE(exc.nested()->displayText(), exc.nested()->displayText().find(refused.hostAndPort()) != std::string::npos);
		}
	}

	void testBlackHoleTimesOutAtTheDeadline()
	{
		BlackHoleListener hole("127.0.0.3");
		Dialer dialer;
		Millis clock;
		try
		{
			dialer.dial(hole.endpoint(), Poco::Timespan(1, 0));
			CPPUNIT_FAIL("dial to a black hole succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			double total = clock.elapsed();
			CPPUNIT_ASSERT_MESSAGE(std::to_string(total), total >= 900 && total <= 1600);
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
			const AddressAttempt& attempt = exc.attempts()[0];
			CPPUNIT_ASSERT_EQUAL(hole.hostAndPort(), attempt.address);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(outcomes(exc.attempts()), int(AddressAttempt::TIMED_OUT), int(attempt.outcome));
			CPPUNIT_ASSERT_MESSAGE(std::to_string(attempt.elapsedMs), attempt.elapsedMs >= 900 && attempt.elapsedMs <= 1600);
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("timed out") != std::string::npos);
		}
	}

	void testOrderedDiagnosticsForAHostName()
	{
		RefusedPort first("127.0.0.2");
		RefusedPort second("127.0.0.3");
		BlackHoleListener hole("127.0.0.4");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db.fault.test", std::vector<std::string>{first.hostAndPort(), second.hostAndPort(), hole.hostAndPort()});
		Dialer dialer(resolver);
		Millis clock;
		try
		{
			dialer.dial(BlueTuskHostEndpoint("db.fault.test", 5432), Poco::Timespan(0, 500000));
			CPPUNIT_FAIL("dial succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			double total = clock.elapsed();
			CPPUNIT_ASSERT_MESSAGE(std::to_string(total), total >= 450 && total <= 1000);
			CPPUNIT_ASSERT_EQUAL(std::string("db.fault.test:5432"), exc.endpoint());
			CPPUNIT_ASSERT_EQUAL(std::string("refused,refused,timed out"), outcomes(exc.attempts()));
			CPPUNIT_ASSERT_EQUAL(first.hostAndPort(), exc.attempts()[0].address);
			CPPUNIT_ASSERT_EQUAL(second.hostAndPort(), exc.attempts()[1].address);
			CPPUNIT_ASSERT_EQUAL(hole.hostAndPort(), exc.attempts()[2].address);
			CPPUNIT_ASSERT(exc.attempts()[0].elapsedMs < 200);
			CPPUNIT_ASSERT(exc.attempts()[1].elapsedMs < 200);
			CPPUNIT_ASSERT(exc.attempts()[2].elapsedMs >= 250);
			// the message names the endpoint and each address, in order
			std::string text = exc.displayText();
			std::size_t a = text.find(first.hostAndPort());
			std::size_t b = text.find(second.hostAndPort());
			std::size_t c = text.find(hole.hostAndPort());
			CPPUNIT_ASSERT_MESSAGE(text, text.find("db.fault.test:5432") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(text, a != std::string::npos && b != std::string::npos && c != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(text, a < b && b < c);
			CPPUNIT_ASSERT_EQUAL(1, resolver->resolveCount("db.fault.test"));
		}
	}

	void testRefusedThenBackendReachesBackend()
	{
		RefusedPort refused("127.0.0.2");
		FakeBackend backend(BackendScript::primary(), "127.0.0.3");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db.fault.test", std::vector<std::string>{refused.hostAndPort(), backend.hostAndPort()});
		Dialer dialer(resolver);
		Dialer::Result result = dialer.dial(BlueTuskHostEndpoint("db.fault.test", 5432), Poco::Timespan(1, 0));
		CPPUNIT_ASSERT_EQUAL(backend.address().toString(), result.address.toString());
		CPPUNIT_ASSERT_EQUAL(std::string("refused,connected"), outcomes(result.attempts));
		CPPUNIT_ASSERT_EQUAL(backend.hostAndPort(), result.attempts[1].address);
		CPPUNIT_ASSERT(backend.waitForConnectionsAccepted(1, Poco::Timespan(1, 0)));
		result.socket.close();
	}

	void testThreeAddressesReachTheThird()
		/// refused, black hole, backend: the black hole must not eat the whole host deadline (Npgsql gives
		/// each address its share of the time left), so the backend is reached and the first two are
		/// recorded.
	{
		RefusedPort refused("127.0.0.2");
		BlackHoleListener hole("127.0.0.3");
		FakeBackend backend(BackendScript::primary(), "127.0.0.4");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db.fault.test", std::vector<std::string>{refused.hostAndPort(), hole.hostAndPort(), backend.hostAndPort()});
		Dialer dialer(resolver);
		Millis clock;
		Dialer::Result result;
		try
		{
			result = dialer.dial(BlueTuskHostEndpoint("db.fault.test", 5432), Poco::Timespan(1, 0));
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_FAIL("third address not reached: " + exc.displayText());
		}
		CPPUNIT_ASSERT(clock.elapsed() < 1100);
		CPPUNIT_ASSERT_EQUAL(std::string("refused,timed out,connected"), outcomes(result.attempts));
		CPPUNIT_ASSERT_EQUAL(refused.hostAndPort(), result.attempts[0].address);
		CPPUNIT_ASSERT_EQUAL(hole.hostAndPort(), result.attempts[1].address);
		CPPUNIT_ASSERT_EQUAL(backend.hostAndPort(), result.attempts[2].address);
		CPPUNIT_ASSERT_EQUAL(backend.port(), result.address.port());
		result.socket.close();
	}

	void testDeadlineBoundsTheWholeHost()
		/// Two black holes: whatever the split, the host fails within its one deadline.
	{
		BlackHoleListener first("127.0.0.2");
		BlackHoleListener second("127.0.0.3");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db.fault.test", std::vector<std::string>{first.hostAndPort(), second.hostAndPort()});
		Dialer dialer(resolver);
		Millis clock;
		try
		{
			dialer.dial(BlueTuskHostEndpoint("db.fault.test", 5432), Poco::Timespan(0, 600000));
			CPPUNIT_FAIL("dial succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			double total = clock.elapsed();
			CPPUNIT_ASSERT_MESSAGE(std::to_string(total), total >= 540 && total <= 1100);
			CPPUNIT_ASSERT_EQUAL(std::size_t(2), exc.attempts().size());
			CPPUNIT_ASSERT_EQUAL(int(AddressAttempt::TIMED_OUT), int(exc.attempts()[0].outcome));
			CPPUNIT_ASSERT(exc.attempts()[1].outcome == AddressAttempt::TIMED_OUT || exc.attempts()[1].outcome == AddressAttempt::NOT_ATTEMPTED);
		}
	}

	void testUnknownHostName()
	{
		auto resolver = std::make_shared<StaticResolver>();
		Dialer dialer(resolver);
		try
		{
			dialer.dial(BlueTuskHostEndpoint("nowhere.fault.test", 5432), Poco::Timespan(1, 0));
			CPPUNIT_FAIL("dial succeeded");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("nowhere.fault.test:5432"), exc.endpoint());
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.displayText().find("nowhere.fault.test") != std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DialerFaultTest);
