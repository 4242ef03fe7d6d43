//
// ExceptionTextTest.cpp
//
// a BlueTusk exception caught as std::exception shows its message (with SQLSTATE
// and endpoint where known), not just Poco's name(); addContext() names a server once.
//

#include "BlueTusk/BlueTuskException.h"
#include <cppunit/extensions/HelperMacros.h>
#include <memory>
#include <stdexcept>

using namespace BlueTusk;


class ExceptionTextTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ExceptionTextTest);
	CPPUNIT_TEST(testServerErrorWhat);
	CPPUNIT_TEST(testTransportErrorWhat);
	CPPUNIT_TEST(testWhatFollowsCopiesAndClones);
	CPPUNIT_TEST(testAddContext);
	CPPUNIT_TEST_SUITE_END();

public:
	void testServerErrorWhat()
	{
		BlueTuskServerException::Fields fields;
		fields.severity = "FATAL";
		fields.sqlState = "57P01";
		fields.message = "terminating connection due to administrator command";
		try
		{
			throw BlueTuskServerException(fields, false);
		}
		catch (std::exception& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("Server error: FATAL: terminating connection due to administrator command (SQLSTATE 57P01)"),
				std::string(exc.what()));
		}
	}

	void testTransportErrorWhat()
	{
		AddressAttempt attempt;
		attempt.address = "127.0.0.1:5432";
		attempt.outcome = AddressAttempt::REFUSED;
		attempt.errorText = "Connection refused";
		attempt.elapsedMs = 0.4;
		try
		{
			throw BlueTuskTransportException("db-a:5432", AddressAttemptList{attempt});
		}
		catch (std::exception& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("Transport failure: could not connect to db-a:5432: 127.0.0.1:5432 refused (Connection refused) after 0.4 ms"),
				std::string(exc.what()));
		}
	}

	void testWhatFollowsCopiesAndClones()
	{
		const BlueTuskAuthenticationException original("the server rejected the session for user \"app\" at db-a:5432");
		std::unique_ptr<Poco::Exception> clone(original.clone());
		CPPUNIT_ASSERT_EQUAL(std::string("Authentication failed: the server rejected the session for user \"app\" at db-a:5432"),
			std::string(clone->what()));
		const BlueTuskPoolTimeoutException copy = BlueTuskPoolTimeoutException("waited 300 ms");
		CPPUNIT_ASSERT_EQUAL(std::string("Pool checkout timed out: waited 300 ms"), std::string(copy.what()));
	}

	void testAddContext()
	{
		BlueTuskProtocolException exc("invalid DataRow length");
		exc.addContext("server db-a:5432");
		exc.addContext("server db-a:5432");
		CPPUNIT_ASSERT_EQUAL(std::string("invalid DataRow length (server db-a:5432)"), exc.message());
		CPPUNIT_ASSERT_EQUAL(std::string("Protocol error: invalid DataRow length (server db-a:5432)"), std::string(exc.what()));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ExceptionTextTest);
