//
// AuthenticationKeywordTest.cpp
//
// Require Auth / require_auth (libpq 16 semantics) and Channel Binding /
// channel_binding, in every form, from the environment, their errors, and their canonical text.
//

#include "ConnectionStringTestHelpers.h"
#include "BlueTusk/TargetSessionAttributes.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;


class AuthenticationKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(AuthenticationKeywordTest);
	CPPUNIT_TEST(testDefaults);
	CPPUNIT_TEST(testForms);
	CPPUNIT_TEST(testAllowListSemantics);
	CPPUNIT_TEST(testNegatedSemantics);
	CPPUNIT_TEST(testErrors);
	CPPUNIT_TEST(testEnvironment);
	CPPUNIT_TEST(testToStringRoundTrip);
	CPPUNIT_TEST_SUITE_END();

public:
	void testDefaults()
	{
		const ConnectionSettings settings = parse("Host=db;Username=u");
		CPPUNIT_ASSERT(settings.requireAuth.empty());
		CPPUNIT_ASSERT(settings.requireAuth.allows(AuthenticationMethod::Password));
		CPPUNIT_ASSERT(settings.requireAuth.allows(AuthenticationMethod::None));
		CPPUNIT_ASSERT(settings.channelBinding == ChannelBinding::Prefer);
	}

	void testForms()
	{
		const ConnectionSettings npgsql = parse("Host=db;Username=u;Require Auth=scram-sha-256;Channel Binding=require");
		const ConnectionSettings libpq = parse("host=db user=u require_auth=scram-sha-256 channel_binding=require");
		const ConnectionSettings url = parse("postgresql://u@db/?require_auth=scram-sha-256&channel_binding=require");
		const ConnectionSettings compact = parse("Host=db;Username=u;RequireAuth=SCRAM-SHA-256;ChannelBinding=Require");
		for (const ConnectionSettings* settings: {&npgsql, &libpq, &url, &compact})
		{
			CPPUNIT_ASSERT_EQUAL(std::string("scram-sha-256"), settings->requireAuth.toString());
			CPPUNIT_ASSERT(settings->channelBinding == ChannelBinding::Require);
		}
		CPPUNIT_ASSERT(parse("Host=db;Username=u;Channel Binding=disable").channelBinding == ChannelBinding::Disable);
	}

	void testAllowListSemantics()
	{
		const RequireAuth list = RequireAuth::parse(" md5 , scram-sha-256 ");
		CPPUNIT_ASSERT(list.allows(AuthenticationMethod::Md5));
		CPPUNIT_ASSERT(list.allows(AuthenticationMethod::ScramSha256));
		CPPUNIT_ASSERT(!list.allows(AuthenticationMethod::Password));
		CPPUNIT_ASSERT(!list.allows(AuthenticationMethod::None)); // a positive list without none refuses trust
		CPPUNIT_ASSERT(RequireAuth::parse("password,none").allows(AuthenticationMethod::None));
	}

	void testNegatedSemantics()
	{
		const RequireAuth list = RequireAuth::parse("!password,!md5");
		CPPUNIT_ASSERT(!list.allows(AuthenticationMethod::Password));
		CPPUNIT_ASSERT(!list.allows(AuthenticationMethod::Md5));
		CPPUNIT_ASSERT(list.allows(AuthenticationMethod::ScramSha256));
		CPPUNIT_ASSERT(list.allows(AuthenticationMethod::None));
		CPPUNIT_ASSERT(!RequireAuth::parse("!none").allows(AuthenticationMethod::None));
		CPPUNIT_ASSERT(RequireAuth::parse("!none").allows(AuthenticationMethod::Password));
	}

	void testErrors()
	{
		std::string text = parseError("Host=db;Username=u;Require Auth=password,!md5");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "Require Auth: negative and positive methods cannot be mixed in \"password,!md5\""));
		text = parseError("host=db user=u require_auth=md5,md5");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "require_auth: method \"md5\" is given more than once"));
		text = parseError("Host=db;Username=u;Require Auth=kerberos");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "Require Auth: \"kerberos\" is not a valid value; accepted values: none, password, md5, scram-sha-256, gss, sspi"));
		text = parseError("Host=db;Username=u;Require Auth=md5,,password");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "Require Auth: empty method in the list"));
		text = parseError("Host=db;Username=u;Channel Binding=always");
		CPPUNIT_ASSERT_MESSAGE(text, contains(text, "Channel Binding: \"always\" is not a valid value; accepted values: disable, prefer, require"));
	}

	void testEnvironment()
	{
		const ConnectionSettings settings = parse("Host=db;Username=u", {{"PGREQUIREAUTH", "!password"}, {"PGCHANNELBINDING", "disable"}});
		CPPUNIT_ASSERT_EQUAL(std::string("!password"), settings.requireAuth.toString());
		CPPUNIT_ASSERT(settings.channelBinding == ChannelBinding::Disable);
		// the keyword wins over the environment
		const ConnectionSettings given = parse("Host=db;Username=u;Require Auth=md5", {{"PGREQUIREAUTH", "!password"}});
		CPPUNIT_ASSERT_EQUAL(std::string("md5"), given.requireAuth.toString());
	}

	void testToStringRoundTrip()
	{
		const ConnectionSettings settings = parse("Host=db;Username=u;Require Auth=scram-sha-256, none;Channel Binding=require");
		const std::string printed = settings.toString();
		CPPUNIT_ASSERT_MESSAGE(printed, contains(printed, "Require Auth=none,scram-sha-256;Channel Binding=require;"));
		CPPUNIT_ASSERT(parse(printed) == settings);
		CPPUNIT_ASSERT(parse("Host=db;Username=u;Require Auth=md5") != settings);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(AuthenticationKeywordTest);
