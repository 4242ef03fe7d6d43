//
// EnumerationTest.cpp
//
// Parse/format of TargetSessionAttributes, ServerRole and SslMode.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;


class EnumerationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(EnumerationTest);
	CPPUNIT_TEST(testTargetNames);
	CPPUNIT_TEST(testTargetSpellings);
	CPPUNIT_TEST(testTargetInvalid);
	CPPUNIT_TEST(testServerRole);
	CPPUNIT_TEST(testSslMode);
	CPPUNIT_TEST_SUITE_END();

public:
	void testTargetNames()
	{
		const std::vector<std::string> expected = {"any", "primary", "standby", "prefer-primary", "prefer-standby", "read-write", "read-only"};
		CPPUNIT_ASSERT(targetSessionAttributesNames() == expected);
		const TargetSessionAttributes all[] = {TargetSessionAttributes::Any, TargetSessionAttributes::Primary, TargetSessionAttributes::Standby,
			TargetSessionAttributes::PreferPrimary, TargetSessionAttributes::PreferStandby, TargetSessionAttributes::ReadWrite,
			TargetSessionAttributes::ReadOnly};
		for (std::size_t i = 0; i < expected.size(); ++i)
		{
			CPPUNIT_ASSERT_EQUAL(expected[i], toString(all[i]));
			CPPUNIT_ASSERT(parseTargetSessionAttributes(expected[i]) == all[i]);
		}
	}

	void testTargetSpellings()
	{
		CPPUNIT_ASSERT(parseTargetSessionAttributes("PreferStandby") == TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT(parseTargetSessionAttributes("prefer_primary") == TargetSessionAttributes::PreferPrimary);
		CPPUNIT_ASSERT(parseTargetSessionAttributes(" READ-WRITE ") == TargetSessionAttributes::ReadWrite);
		CPPUNIT_ASSERT(parseTargetSessionAttributes("ReadOnly") == TargetSessionAttributes::ReadOnly);
	}

	void testTargetInvalid()
	{
		try
		{
			parseTargetSessionAttributes("master", "target_session_attrs");
			CPPUNIT_FAIL("accepted master");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("target_session_attrs: \"master\" is not a valid value; accepted values: any, primary, standby, "
				"prefer-primary, prefer-standby, read-write, read-only"), exc.message());
		}
		CPPUNIT_ASSERT_THROW(parseTargetSessionAttributes(""), BlueTuskConnectionStringException);
		CPPUNIT_ASSERT_THROW(parseTargetSessionAttributes("--"), BlueTuskConnectionStringException);
	}

	void testServerRole()
	{
		const ServerRole roles[] = {ServerRole::Unknown, ServerRole::Primary, ServerRole::PrimaryReadOnly, ServerRole::Standby};
		const char* names[] = {"unknown", "primary", "primary-read-only", "standby"};
		for (int i = 0; i < 4; ++i)
		{
			CPPUNIT_ASSERT_EQUAL(std::string(names[i]), toString(roles[i]));
			CPPUNIT_ASSERT(parseServerRole(names[i]) == roles[i]);
		}
		try
		{
			parseServerRole("leader");
			CPPUNIT_FAIL("accepted leader");
		}
		catch (BlueTuskException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("unknown server role \"leader\"; accepted values: unknown, primary, primary-read-only, standby"), exc.message());
		}
	}

	void testSslMode()
	{
		const SslMode modes[] = {SslMode::Disable, SslMode::Allow, SslMode::Prefer, SslMode::Require, SslMode::VerifyCa, SslMode::VerifyFull};
		const char* names[] = {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"};
		for (int i = 0; i < 6; ++i)
		{
			CPPUNIT_ASSERT_EQUAL(std::string(names[i]), toString(modes[i]));
			CPPUNIT_ASSERT(parseSslMode(names[i]) == modes[i]);
		}
		CPPUNIT_ASSERT(parseSslMode("VerifyFull") == SslMode::VerifyFull);
		CPPUNIT_ASSERT(parseSslMode("VERIFY-CA") == SslMode::VerifyCa);
		try
		{
			parseSslMode("strict");
			CPPUNIT_FAIL("accepted strict");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("SSL Mode: \"strict\" is not a valid value; accepted values: disable, allow, prefer, require, verify-ca, verify-full"), exc.message());
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(EnumerationTest);
