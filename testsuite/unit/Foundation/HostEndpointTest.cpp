//
// HostEndpointTest.cpp
//
// BlueTuskHostEndpoint: kinds, display forms, socket paths, equality, ordering and hashing.
//

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <set>
#include <unordered_set>

using namespace BlueTusk;


class HostEndpointTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HostEndpointTest);
	CPPUNIT_TEST(testKinds);
	CPPUNIT_TEST(testDisplayForms);
	CPPUNIT_TEST(testUnixSocketPath);
	CPPUNIT_TEST(testEquality);
	CPPUNIT_TEST(testOrdering);
	CPPUNIT_TEST(testHashing);
	CPPUNIT_TEST(testDefault);
	CPPUNIT_TEST_SUITE_END();

public:
	void testKinds()
	{
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("db-a").kind() == BlueTuskHostEndpoint::HOST_NAME);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("localhost").kind() == BlueTuskHostEndpoint::HOST_NAME);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("127.0.0.1").kind() == BlueTuskHostEndpoint::IPV4_LITERAL);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("::1").kind() == BlueTuskHostEndpoint::IPV6_LITERAL);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("[::1]").kind() == BlueTuskHostEndpoint::IPV6_LITERAL);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("fe80::1%eth0").kind() == BlueTuskHostEndpoint::IPV6_LITERAL);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("/var/run/postgresql").kind() == BlueTuskHostEndpoint::UNIX_SOCKET);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("/var/run/postgresql").isUnixSocket());
		CPPUNIT_ASSERT(!BlueTuskHostEndpoint("db-a").isUnixSocket());
		CPPUNIT_ASSERT(BlueTuskHostEndpoint::kindOf("[2001:db8::7]") == BlueTuskHostEndpoint::IPV6_LITERAL);
		CPPUNIT_ASSERT(BlueTuskHostEndpoint::kindOf("256.1.1.1") == BlueTuskHostEndpoint::HOST_NAME);
	}

	void testDisplayForms()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("db-a:5432"), BlueTuskHostEndpoint("db-a", 5432).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:6432"), BlueTuskHostEndpoint("127.0.0.1", 6432).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("[::1]:5432"), BlueTuskHostEndpoint("::1", 5432).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("[::1]:5432"), BlueTuskHostEndpoint("[::1]", 5432).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("::1"), BlueTuskHostEndpoint("[::1]", 5432).host());
		CPPUNIT_ASSERT_EQUAL(std::string("/var/run/postgresql:5432"), BlueTuskHostEndpoint("/var/run/postgresql", 5432).toString());
	}

	void testUnixSocketPath()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("/var/run/postgresql/.s.PGSQL.5432"), BlueTuskHostEndpoint("/var/run/postgresql").unixSocketPath());
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/.s.PGSQL.6000"), BlueTuskHostEndpoint("/tmp/", 6000).unixSocketPath());
		CPPUNIT_ASSERT_EQUAL(std::string("/.s.PGSQL.5432"), BlueTuskHostEndpoint("/").unixSocketPath());
		CPPUNIT_ASSERT_EQUAL(std::string(), BlueTuskHostEndpoint("db-a").unixSocketPath());
	}

	void testEquality()
	{
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("db-a", 5432) == BlueTuskHostEndpoint("db-a", 5432));
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("db-a", 5432) != BlueTuskHostEndpoint("db-a", 5433));
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("db-a", 5432) != BlueTuskHostEndpoint("db-b", 5432));
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("[::1]", 5432) == BlueTuskHostEndpoint("::1", 5432));
		// host as written: no resolving, no case folding
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("DB-A", 5432) != BlueTuskHostEndpoint("db-a", 5432));
	}

	void testOrdering()
	{
		std::vector<BlueTuskHostEndpoint> endpoints = {
			BlueTuskHostEndpoint("db-b", 5432), BlueTuskHostEndpoint("db-a", 6432), BlueTuskHostEndpoint("db-a", 5432)};
		std::sort(endpoints.begin(), endpoints.end());
		CPPUNIT_ASSERT_EQUAL(std::string("db-a:5432"), endpoints[0].toString());
		CPPUNIT_ASSERT_EQUAL(std::string("db-a:6432"), endpoints[1].toString());
		CPPUNIT_ASSERT_EQUAL(std::string("db-b:5432"), endpoints[2].toString());
		CPPUNIT_ASSERT(!(endpoints[0] < endpoints[0]));
		std::set<BlueTuskHostEndpoint> unique(endpoints.begin(), endpoints.end());
		unique.insert(BlueTuskHostEndpoint("db-a", 5432));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), unique.size());
	}

	void testHashing()
	{
		CPPUNIT_ASSERT_EQUAL(BlueTuskHostEndpoint("db-a", 5432).hash(), BlueTuskHostEndpoint("db-a", 5432).hash());
		CPPUNIT_ASSERT(BlueTuskHostEndpoint("db-a", 5432).hash() != BlueTuskHostEndpoint("db-a", 5433).hash());
		std::unordered_set<BlueTuskHostEndpoint> set;
		set.insert(BlueTuskHostEndpoint("db-a", 5432));
		set.insert(BlueTuskHostEndpoint("db-a", 5432));
		set.insert(BlueTuskHostEndpoint("db-b", 5432));
		set.insert(BlueTuskHostEndpoint("::1", 5432));
		set.insert(BlueTuskHostEndpoint("[::1]", 5432));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), set.size());
		CPPUNIT_ASSERT_EQUAL(std::hash<BlueTuskHostEndpoint>()(BlueTuskHostEndpoint("x", 1)), BlueTuskHostEndpoint("x", 1).hash());
	}

	void testDefault()
	{
		BlueTuskHostEndpoint endpoint;
		CPPUNIT_ASSERT_EQUAL(std::string(), endpoint.host());
		CPPUNIT_ASSERT_EQUAL(Poco::UInt16(5432), endpoint.port());
		BlueTuskHostEndpoint copy = BlueTuskHostEndpoint("db-a", 7000);
		endpoint = copy;
		CPPUNIT_ASSERT(endpoint == copy);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(HostEndpointTest);
