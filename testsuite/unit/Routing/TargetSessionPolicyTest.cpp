//
// TargetSessionPolicyTest.cpp
//
// The seven standard targets against doc/routing.md's Accept/Fallback/Reject table, exhaustively,
// through the plugin library the RoutingContext loads.
//

#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/BlueTuskException.h"
#include <cppunit/extensions/HelperMacros.h>
#include <map>

using namespace BlueTusk;

namespace {

const ServerRole ROLES[] = {ServerRole::Primary, ServerRole::PrimaryReadOnly, ServerRole::Standby};

} // namespace


class TargetSessionPolicyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TargetSessionPolicyTest);
	CPPUNIT_TEST(testTable);
	CPPUNIT_TEST(testNeedsRole);
	CPPUNIT_TEST(testUnknownRoleRejected);
	CPPUNIT_TEST(testNamesAndLookup);
	CPPUNIT_TEST(testUnknownTargetName);
	CPPUNIT_TEST_SUITE_END();

public:
	void testTable()
	{
		// Rows: any, primary, standby, prefer-primary, prefer-standby, read-write, read-only.
		// Columns: primary rw, primary ro, standby.  A = Accept, F = Fallback, R = Reject.
		const std::map<TargetSessionAttributes, std::string> table = {
			{TargetSessionAttributes::Any,           "AAA"},
			{TargetSessionAttributes::Primary,       "AAR"},
			{TargetSessionAttributes::Standby,       "RRA"},
			{TargetSessionAttributes::PreferPrimary, "AAF"},
			{TargetSessionAttributes::PreferStandby, "FFA"},
			{TargetSessionAttributes::ReadWrite,     "ARR"},
			{TargetSessionAttributes::ReadOnly,      "RAA"},
		};
		RoutingContext connector;
		CPPUNIT_ASSERT_EQUAL(std::size_t(7), table.size());
		for (const auto& row: table)
		{
			TargetSessionPolicy::Ptr policy = connector.targetSessionPolicy(row.first);
			CPPUNIT_ASSERT_EQUAL(toString(row.first), policy->name());
			for (std::size_t column = 0; column < 3; ++column)
			{
				RoleVerdict verdict = policy->classify(ROLES[column]);
				char letter = verdict == RoleVerdict::Accept ? 'A' : verdict == RoleVerdict::Fallback ? 'F' : 'R';
				std::string where = toString(row.first) + " / " + toString(ROLES[column]);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(where, row.second[column], letter);
			}
		}
	}

	void testNeedsRole()
	{
		RoutingContext connector;
		CPPUNIT_ASSERT(!connector.targetSessionPolicy(TargetSessionAttributes::Any)->needsRole());
		for (const auto& name: targetSessionAttributesNames())
		{
			if (name == "any") continue;
			CPPUNIT_ASSERT_MESSAGE(name, connector.targetSessionPolicy(name)->needsRole());
		}
	}

	void testUnknownRoleRejected()
	{
		RoutingContext connector;
		for (const auto& name: targetSessionAttributesNames())
		{
			RoleVerdict expected = name == "any" ? RoleVerdict::Accept : RoleVerdict::Reject;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(name, toString(expected), toString(connector.targetSessionPolicy(name)->classify(ServerRole::Unknown)));
		}
	}

	void testNamesAndLookup()
	{
		RoutingContext connector;
		std::vector<std::string> names = connector.policyNames(PolicyFamily::TargetSession);
		std::vector<std::string> expected = {"any", "prefer-primary", "prefer-standby", "primary", "read-only", "read-write", "standby"};
		CPPUNIT_ASSERT(names == expected);
		// The same shared instance for the same name.
		CPPUNIT_ASSERT(connector.targetSessionPolicy("standby").get() == connector.targetSessionPolicy(TargetSessionAttributes::Standby).get());
	}

	void testUnknownTargetName()
	{
		RoutingContext connector;
		try
		{
			connector.targetSessionPolicy("secondary");
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("\"secondary\"") != std::string::npos);
			CPPUNIT_ASSERT(exc.message().find("any, prefer-primary, prefer-standby, primary, read-only, read-write, standby") != std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(TargetSessionPolicyTest);
