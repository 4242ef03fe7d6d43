//
// HostAttemptsExceptionTest.cpp
//
// The "no acceptable host" error as data (doc/routing.md, step 6): the HostAttemptsException the router
// throws carries every attempt (endpoint, outcome, detail, pass) of a sequential pass, a parallel race and
// every Failover Timeout pass; clone() and rethrow() keep them; catching by the Foundation types still works;
// no password anywhere in it. Over the scripted fake SessionFactory (no network).
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/HostAttemptsException.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include <cppunit/extensions/HelperMacros.h>
#include <memory>
#include <typeinfo>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string UNIQUE_PASSWORD = "Hx9-unique-Pw-4417";


std::string connectionString(const std::string& hosts, const std::string& extra)
	/// As fakeConnectionString, with a password found nowhere else.
{
	return "Host=" + hosts + ";Username=app;Password=" + UNIQUE_PASSWORD + ";Timeout=1;" + extra;
}


int nestedCount(const Poco::Exception& exc)
{
	int count = 0;
	for (const Poco::Exception* nested = exc.nested(); nested; nested = nested->nested()) ++count;
	return count;
}


struct Fixture: FakeRoutingContext
{

	HostAttemptsException failure(const std::string& hosts, const std::string& extra)
		/// The exception of an unpooled open that must fail, caught by its own type.
	{
		try
		{
			BlueTuskConnection::open(connectionString(hosts, extra), context);
		}
		catch (HostAttemptsException& exc)
		{
			return exc;
		}
		CPPUNIT_FAIL("expected HostAttemptsException");
		throw Poco::BugcheckException("unreachable");
	}
};

} // namespace


class HostAttemptsExceptionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HostAttemptsExceptionTest);
	CPPUNIT_TEST(testSequentialAttempts);
	CPPUNIT_TEST(testParallelAttempts);
	CPPUNIT_TEST(testFailoverTimeoutEveryPass);
	CPPUNIT_TEST(testPooledFailoverTimeoutReusesIdle);
	CPPUNIT_TEST(testCloneKeepsAttempts);
	CPPUNIT_TEST(testRethrowKeepsAttempts);
	CPPUNIT_TEST(testCopyAssignment);
	CPPUNIT_TEST(testCatchByFoundationBase);
	CPPUNIT_TEST(testNoPassword);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSequentialAttempts()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		f.world->script("b:5432", FakeHost::earlyClose());
		f.world->script("c:5432", FakeHost::standby());
		f.world->script("d:5432", FakeHost::startingUp());
		HostAttemptsException exc = f.failure("a,b,c,d", "Target Session Attributes=primary");
		CPPUNIT_ASSERT_EQUAL(std::string(
			"1 a:5432 failed: refused\n"
			"1 b:5432 failed: closed\n"
			"1 c:5432 rejected: standby, target primary\n"
			"1 d:5432 failed: 57P03 the database system is starting up\n"), describePasses(exc.attempts()));
		CPPUNIT_ASSERT_EQUAL(1, exc.passes());
		const HostAttemptList& attempts = exc.attempts();
		CPPUNIT_ASSERT(attempts[2].role == ServerRole::Standby);
		CPPUNIT_ASSERT(attempts[0].role == ServerRole::Unknown);
		CPPUNIT_ASSERT(!attempts[2].reused);
		// The per-address detail of the transport failure, as the nested exception has it.
		CPPUNIT_ASSERT_MESSAGE(attempts[0].nestedText, attempts[0].nestedText.find("a:5432 refused (Connection refused)") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL("refused [" + attempts[0].nestedText + "]", attempts[0].detailedText());
		CPPUNIT_ASSERT_EQUAL(std::string("standby, target primary"), attempts[2].detailedText());
		CPPUNIT_ASSERT_EQUAL("a:5432: " + attempts[0].detailedText(), exc.nested()->message());
		// A single pass: the message is what it always was.
		CPPUNIT_ASSERT_EQUAL(std::string("no acceptable host for target primary (Host Order=sequential): "
			"a:5432: refused; b:5432: closed; c:5432: standby, target primary; "
			"d:5432: 57P03 the database system is starting up"), exc.message());
		CPPUNIT_ASSERT_EQUAL(4, nestedCount(exc));
	}

	void testParallelAttempts()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby(40));
		f.world->script("b:5432", FakeHost::refused());
		f.world->script("c:5432", FakeHost::primaryReadOnly(10));
		HostAttemptsException exc = f.failure("a,b,c", "Host Order=parallel;Target Session Attributes=read-write");
		// Host-list order, not order of completion (b, c, a).
		CPPUNIT_ASSERT_EQUAL(std::string(
			"1 a:5432 rejected: standby, target read-write\n"
			"1 b:5432 failed: refused\n"
			"1 c:5432 rejected: primary-read-only, target read-write\n"), describePasses(exc.attempts()));
		CPPUNIT_ASSERT_EQUAL(1, exc.passes());
		CPPUNIT_ASSERT(exc.attempts()[0].role == ServerRole::Standby);
		CPPUNIT_ASSERT(exc.attempts()[2].role == ServerRole::PrimaryReadOnly);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(exc.attempts()[0].elapsedMs), exc.attempts()[0].elapsedMs >= 35);
		CPPUNIT_ASSERT_EQUAL(std::string("no acceptable host for target read-write (Host Order=parallel): "
			"a:5432: standby, target read-write; b:5432: refused; c:5432: primary-read-only, target read-write"), exc.message());
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
	}

	void testFailoverTimeoutEveryPass()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		f.world->script("b:5432", FakeHost::standby());
		HostAttemptsException exc = f.failure("a,b", "Target Session Attributes=primary;Failover Timeout=0.35");
		// Backoff 100, 200, then the rest: about four passes; the count depends on the clock, so take it from
		// the fake's open count and check that the data and the message agree with it.
		const int passes = f.world->opens("a:5432");
		CPPUNIT_ASSERT_MESSAGE(std::to_string(passes), passes >= 2);
		CPPUNIT_ASSERT_EQUAL(passes, f.world->opens("b:5432"));
		CPPUNIT_ASSERT_EQUAL(passes, exc.passes());
		std::string expected;
		for (int pass = 1; pass <= passes; ++pass)
		{
			expected += std::to_string(pass) + " a:5432 failed: refused\n" +
				std::to_string(pass) + " b:5432 rejected: standby, target primary\n";
		}
		CPPUNIT_ASSERT_EQUAL(expected, describePasses(exc.attempts()));

		// The message: the last pass in full, the earlier ones counted.
		const std::string earlier = std::to_string(passes - 1);
		const std::string& message = exc.message();
		const std::string head = "no acceptable host for target primary (Host Order=sequential) after " + std::to_string(passes) + " passes in ";
		const std::string tail = " ms (Failover Timeout=350 ms): a:5432: refused; b:5432: standby, target primary "
			"(earlier passes: a:5432 failed x" + earlier + ", b:5432 rejected x" + earlier + ")";
		CPPUNIT_ASSERT_MESSAGE(message, message.compare(0, head.size(), head) == 0);
		CPPUNIT_ASSERT_MESSAGE(message, message.size() > tail.size() && message.compare(message.size() - tail.size(), tail.size(), tail) == 0);
		// The nested exceptions: the last pass only, one per endpoint.
		CPPUNIT_ASSERT_EQUAL(2, nestedCount(exc));
		CPPUNIT_ASSERT_EQUAL(std::string("b:5432: standby, target primary"), exc.nested()->nested()->message());
		CPPUNIT_ASSERT_EQUAL(0, f.world->totalLive());
	}

	void testPooledFailoverTimeoutReusesIdle()
	{
		// BlueTuskDataSource::open throws the same type; from the second pass on, the standby's session is
		// an idle pooled one (reused), refreshed and rejected again.
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		auto dataSource = BlueTuskDataSource::create(connectionString("a", "Failover Timeout=0.15"), f.context);
		try
		{
			dataSource->open(TargetSessionAttributes::Primary);
			CPPUNIT_FAIL("expected BlueTuskNoAcceptableHostException");
		}
		catch (BlueTuskNoAcceptableHostException& base)
		{
			const auto* exc = dynamic_cast<const HostAttemptsException*>(&base);
			CPPUNIT_ASSERT(exc != nullptr);
			const HostAttemptList& attempts = exc->attempts();
			const int passes = exc->passes();
			CPPUNIT_ASSERT_MESSAGE(describePasses(attempts), passes >= 2);
			std::string expected;
			for (int pass = 1; pass <= passes; ++pass) expected += std::to_string(pass) + " a:5432 rejected: standby, target primary\n";
			CPPUNIT_ASSERT_EQUAL(expected, describePasses(attempts));
			for (std::size_t i = 0; i < attempts.size(); ++i)
			{
				CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(i), i > 0, attempts[i].reused);
			}
			CPPUNIT_ASSERT_EQUAL(std::string("No acceptable host"), std::string(exc->name()));
		}
		CPPUNIT_ASSERT_EQUAL(1, f.world->connections("a:5432")); // one session, reused by every later pass
	}

	void testCloneKeepsAttempts()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		f.world->script("b:5432", FakeHost::standby());
		HostAttemptsException exc = f.failure("a,b", "Target Session Attributes=primary");
		const Poco::Exception& asPoco = exc;
		std::unique_ptr<Poco::Exception> copy(asPoco.clone());
		auto* cloned = dynamic_cast<HostAttemptsException*>(copy.get());
		CPPUNIT_ASSERT(cloned != nullptr);
		CPPUNIT_ASSERT_EQUAL(std::string("1 a:5432 failed: refused\n1 b:5432 rejected: standby, target primary\n"), describePasses(cloned->attempts()));
		CPPUNIT_ASSERT_EQUAL(exc.attempts()[0].nestedText, cloned->attempts()[0].nestedText);
		CPPUNIT_ASSERT_EQUAL(1, cloned->passes());
		CPPUNIT_ASSERT_EQUAL(exc.message(), cloned->message());
		CPPUNIT_ASSERT_EQUAL(exc.displayText(), cloned->displayText());
		CPPUNIT_ASSERT_EQUAL(2, nestedCount(*cloned));
		CPPUNIT_ASSERT_EQUAL(exc.nested()->message(), cloned->nested()->message());
		CPPUNIT_ASSERT(exc.nested() != cloned->nested()); // a deep copy
		CPPUNIT_ASSERT_EQUAL(std::string(exc.className()), std::string(cloned->className()));

		// A clone of the clone, as a Poco::Exception carried across threads twice.
		std::unique_ptr<Poco::Exception> again(copy->clone());
		CPPUNIT_ASSERT_EQUAL(describePasses(exc.attempts()), describePasses(dynamic_cast<HostAttemptsException&>(*again).attempts()));
	}

	void testRethrowKeepsAttempts()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::standby());
		HostAttemptsException exc = f.failure("a", "Target Session Attributes=primary");
		std::unique_ptr<Poco::Exception> copy(static_cast<const Poco::Exception&>(exc).clone());
		try
		{
			copy->rethrow();
			CPPUNIT_FAIL("rethrow() returned");
		}
		catch (HostAttemptsException& rethrown)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("1 a:5432 rejected: standby, target primary\n"), describePasses(rethrown.attempts()));
			CPPUNIT_ASSERT_EQUAL(exc.message(), rethrown.message());
		}
		try
		{
			copy->rethrow();
		}
		catch (BlueTuskNoAcceptableHostException& rethrown)
		{
			const auto* derived = dynamic_cast<const HostAttemptsException*>(&rethrown);
			CPPUNIT_ASSERT(derived != nullptr);
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), derived->attempts().size());
		}
	}

	void testCopyAssignment()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		f.world->script("b:5432", FakeHost::standby());
		HostAttemptsException one = f.failure("a", "");
		HostAttemptsException two = f.failure("b", "Target Session Attributes=primary");
		one = two;
		CPPUNIT_ASSERT_EQUAL(std::string("1 b:5432 rejected: standby, target primary\n"), describePasses(one.attempts()));
		CPPUNIT_ASSERT_EQUAL(two.message(), one.message());
		CPPUNIT_ASSERT_EQUAL(1, nestedCount(one));
	}

	void testCatchByFoundationBase()
	{
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		const std::string text = "no acceptable host for target any (Host Order=sequential): a:5432: refused";
		try
		{
			BlueTuskConnection::open(connectionString("a", ""), f.context);
			CPPUNIT_FAIL("expected BlueTuskException");
		}
		catch (BlueTuskException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(text, exc.message());
			CPPUNIT_ASSERT(dynamic_cast<BlueTuskNoAcceptableHostException*>(&exc) != nullptr);
			const auto* derived = dynamic_cast<const HostAttemptsException*>(&exc);
			CPPUNIT_ASSERT(derived != nullptr);
			CPPUNIT_ASSERT_EQUAL(std::string("1 a:5432 failed: refused\n"), describePasses(derived->attempts()));
		}
		try
		{
			BlueTuskConnection::open(connectionString("a", ""), f.context);
			CPPUNIT_FAIL("expected Poco::Exception");
		}
		catch (Poco::Exception& exc)
		{
			// name() is the base's, so displayText() reads as it did before the subclass existed.
			CPPUNIT_ASSERT_EQUAL(std::string("No acceptable host"), std::string(exc.name()));
			CPPUNIT_ASSERT_EQUAL(std::string(BlueTuskNoAcceptableHostException().name()), std::string(exc.name()));
			CPPUNIT_ASSERT_EQUAL("No acceptable host: " + text, exc.displayText());
			CPPUNIT_ASSERT_EQUAL(std::string(typeid(HostAttemptsException).name()), std::string(exc.className()));
		}
		CPPUNIT_ASSERT_THROW(BlueTuskConnection::open(connectionString("a", ""), f.context), BlueTuskNoAcceptableHostException);
	}

	void testNoPassword()
	{
		// Every failure kind, parallel and sequential, over several passes: the password is nowhere.
		Fixture f;
		f.world->script("a:5432", FakeHost::refused());
		f.world->script("b:5432", FakeHost::earlyClose());
		f.world->script("c:5432", FakeHost::standby());
		f.world->script("d:5432", FakeHost::tooManyConnections());
		for (const char* order: {"sequential", "parallel"})
		{
			HostAttemptsException exc = f.failure("a,b,c,d",
				std::string("Target Session Attributes=primary;Failover Timeout=0.15;Host Order=") + order);
			std::unique_ptr<Poco::Exception> copy(static_cast<const Poco::Exception&>(exc).clone());
			const Poco::Exception* both[] = {&exc, copy.get()};
			for (const Poco::Exception* e: both)
			{
				std::string texts = std::string(e->name()) + "\n" + e->message() + "\n" + e->displayText() + "\n";
				for (const Poco::Exception* nested = e->nested(); nested; nested = nested->nested())
				{
					texts += nested->displayText() + "\n";
				}
				for (const auto& attempt: dynamic_cast<const HostAttemptsException&>(*e).attempts())
				{
					texts += attempt.toString() + "\n" + attempt.detailedText() + "\n";
				}
				CPPUNIT_ASSERT_MESSAGE(texts, texts.find(UNIQUE_PASSWORD) == std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(texts, texts.find("Hx9") == std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(texts, texts.find("53300 sorry, too many clients already") != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(texts, texts.find("earlier passes: ") != std::string::npos);
			}
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(HostAttemptsExceptionTest);
