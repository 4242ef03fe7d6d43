//
// DataConnectorUnitTest.cpp
//
// The Poco::Data connector without a server: the OID -> Poco type table, registration under "bluetusk",
// the Binder's conversions and refusals, and a marker password that no text Poco or the connector
// produces may contain (bad strings, failed opens, uri()).
//

#include "Binder.h"
#include "BlueTusk/Data/Connector.h"
#include "BlueTusk/Data/ConnectorSubsystem.h"
#include "Poco/Util/MapConfiguration.h"
#include "BlueTusk/Data/DataException.h"
#include "TypeMap.h"
#include "BlueTusk/TypeOid.h"
#include "Poco/Data/DataException.h"
#include "Poco/Data/Session.h"
#include "Poco/Data/SessionFactory.h"
#include "Poco/Net/ServerSocket.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Data;
using Poco::Data::MetaColumn;

namespace {

const std::string MARKER = "Zq7-marker-secret";


std::string failureText(const std::string& connectionString)
{
	try
	{
		Poco::Data::Session session("bluetusk", connectionString, 2);
	}
	catch (Poco::Exception& exc)
	{
		std::string text = exc.displayText();
		for (const Poco::Exception* nested = exc.nested(); nested; nested = nested->nested()) text += "\n" + nested->displayText();
		return text;
	}
	return "(opened)";
}

bool registered()
{
	try
	{
		Poco::Data::Session session("bluetusk", "Host=;Username=u");
	}
	catch (Poco::NotFoundException&)
	{
		return false;   // SessionFactory: no connector under that key
	}
	catch (Poco::Data::ConnectionFailedException&)
	{
		return true;    // ours: the string has no host
	}
	return true;
}

} // namespace


class DataConnectorUnitTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DataConnectorUnitTest);
	CPPUNIT_TEST(testTypeMap);
	CPPUNIT_TEST(testRegistration);
	CPPUNIT_TEST(testBinder);
	CPPUNIT_TEST(testPasswordNeverShown);
	CPPUNIT_TEST(testSubsystem);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		Connector::registerConnector();
	}

	void tearDown()
	{
		Connector::unregisterConnector();
	}

	void testTypeMap()
	{
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Bool) == MetaColumn::FDT_BOOL);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Int2) == MetaColumn::FDT_INT16);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Int4) == MetaColumn::FDT_INT32);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Int8) == MetaColumn::FDT_INT64);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Float4) == MetaColumn::FDT_DOUBLE);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Numeric) == MetaColumn::FDT_DOUBLE);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Varchar) == MetaColumn::FDT_STRING);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Text) == MetaColumn::FDT_CLOB);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Bytea) == MetaColumn::FDT_BLOB);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Date) == MetaColumn::FDT_DATE);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Time) == MetaColumn::FDT_TIME);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::TimestampTz) == MetaColumn::FDT_TIMESTAMP);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Uuid) == MetaColumn::FDT_UUID);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Jsonb) == MetaColumn::FDT_STRING);
		CPPUNIT_ASSERT(TypeMap::columnType(TypeOid::Int4Array) == MetaColumn::FDT_STRING);
		CPPUNIT_ASSERT_EQUAL(std::size_t(19), TypeMap::entries().size());
	}

	void testRegistration()
	{
		CPPUNIT_ASSERT(registered());
		CPPUNIT_ASSERT_EQUAL(std::string("bluetusk"), Connector().name());
		Connector::unregisterConnector();
		CPPUNIT_ASSERT(!registered());
		Connector::registerConnector();
		CPPUNIT_ASSERT(registered());
	}

	void testBinder()
	{
		Binder binder;
		binder.bind(0, Poco::Int8(-5));
		binder.bind(2, std::string("x"));
		binder.bind(1, Poco::Data::Date(2000, 2, 29));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), binder.parameters().size());
		CPPUNIT_ASSERT(binder.parameters()[0].kind() == Parameter::Kind::Int16);
		CPPUNIT_ASSERT(binder.parameters()[1].kind() == Parameter::Kind::Date);
		CPPUNIT_ASSERT(binder.parameters()[2].kind() == Parameter::Kind::Text);
		CPPUNIT_ASSERT(!binder.isBulk());
		CPPUNIT_ASSERT_THROW(binder.bind(0, 1, Poco::Data::AbstractBinder::PD_OUT), Poco::Data::NotSupportedException);
		CPPUNIT_ASSERT_THROW(binder.bind(0, Poco::UInt64(1) << 63), Poco::Data::BindingException);
		binder.reset();
		binder.bind(0, std::vector<int>{1, 2, 3});
		binder.bind(1, std::vector<std::string>{"a", "b"});
		CPPUNIT_ASSERT(binder.isBulk());
		CPPUNIT_ASSERT_THROW(binder.bulkRows(), Poco::Data::BindingException);
		binder.bind(1, std::vector<std::string>{"a", "b", "c"});
		std::vector<Parameters> rows = binder.bulkRows();
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), rows.size());
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), rows[2].size());
		CPPUNIT_ASSERT(rows[2][0].kind() == Parameter::Kind::Int32);
	}

	void testSubsystem()
	{
		Connector::unregisterConnector();   // setUp's registration
		CPPUNIT_ASSERT(!registered());
		Poco::AutoPtr<Poco::Util::MapConfiguration> config(new Poco::Util::MapConfiguration);
		ConnectorSubsystem subsystem;
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTusk.Data"), std::string(subsystem.name()));
		config->setBool("bluetusk.data.connector", false);
		subsystem.open(*config);
		CPPUNIT_ASSERT(!subsystem.isRegistered());
		CPPUNIT_ASSERT(!registered());
		config->setBool("bluetusk.data.connector", true);
		subsystem.open(*config);
		CPPUNIT_ASSERT(subsystem.isRegistered());
		CPPUNIT_ASSERT(registered());
		subsystem.close();
		CPPUNIT_ASSERT(!registered());
		Connector::registerConnector();     // for tearDown
	}

	void testPasswordNeverShown()
	{
		// a bad connection string, an unknown keyword next to the password, a URL, a failed open
		const std::string bad = failureText("Host=127.0.0.1;Username=u;Password=" + MARKER + ";Timeout=abc");
		CPPUNIT_ASSERT(bad.find("Timeout") != std::string::npos);
		CPPUNIT_ASSERT(bad.find(MARKER) == std::string::npos);
		const std::string unknown = failureText("Host=127.0.0.1;Username=u;Password=" + MARKER + ";Colour=blue");
		CPPUNIT_ASSERT(unknown.find("Colour") != std::string::npos);
		CPPUNIT_ASSERT(unknown.find(MARKER) == std::string::npos);
		Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
		const std::string port = std::to_string(socket.address().port());
		socket.close();
		const std::string refused = failureText("postgresql://u:" + MARKER + "@127.0.0.1:" + port + "/db?sslmode=disable");
		CPPUNIT_ASSERT(refused.find("127.0.0.1:" + port) != std::string::npos);
		CPPUNIT_ASSERT(refused.find(MARKER) == std::string::npos);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(DataConnectorUnitTest);
