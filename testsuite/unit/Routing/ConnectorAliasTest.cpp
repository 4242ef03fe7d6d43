//
// ConnectorAliasTest.cpp
//
// The old name of RoutingContext: BlueTusk/Connector.h keeps Connector (and defaultConnector()) as deprecated
// aliases, so code written before the rename still compiles (with a warning) and means the same objects.
//

#include "BlueTusk/Connector.h"
#include <cppunit/extensions/HelperMacros.h>
#include <type_traits>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using namespace BlueTusk;

class ConnectorAliasTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectorAliasTest);
	CPPUNIT_TEST(testSameType);
	CPPUNIT_TEST(testDefaultConnector);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSameType()
	{
		CPPUNIT_ASSERT((std::is_same<Connector, RoutingContext>::value));
	}

	void testDefaultConnector()
	{
		CPPUNIT_ASSERT(&Connector::defaultConnector() == &RoutingContext::defaultContext());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectorAliasTest);
