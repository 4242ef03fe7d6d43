//
// LibpqServiceSuiteTest.cpp
//
// libpq's own service-file suite, run against BlueTusk's parser: the cases of PostgreSQL's
// src/interfaces/libpq/t/006_service.pl (PostgreSQL 18), each with libpq's expected result. libpq's
// suite connects to check a service's settings; here the parsed settings are compared (the connection
// itself is what the integration suites test). The environment of each case is the suite's: PGSYSCONFDIR
// is the test directory and PGSERVICEFILE an empty file unless the case sets another.
//

#include "ConnectionStringTestHelpers.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/TemporaryFile.h"

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

// the suite writes a node's connection string, split on spaces, one keyword a line
const char* const VALID_SERVICE = "[my_srv]\nport=54321\nhost=/tmp/libpq-suite-socket\ndbname=postgres\n";

} // namespace


class LibpqServiceSuiteTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqServiceSuiteTest);
	CPPUNIT_TEST(testValidServiceFile);
	CPPUNIT_TEST(testMissingServiceFile);
	CPPUNIT_TEST(testDefaultServiceFileInSysconfdir);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_directory = std::make_unique<Poco::TemporaryFile>();
		_directory->createDirectories();
		_valid = write("pg_service_valid.conf", VALID_SERVICE);
		_empty = write("pg_service_empty.conf", "");
		_missing = _directory->path() + "/pg_service_missing.conf";
	}

	void tearDown()
	{
		_directory.reset();
	}

	void testValidServiceFile()
	{
		Environment environment = base();
		environment["PGSERVICEFILE"] = _valid;
		assertService(parse("service=my_srv user=u", environment), "service=my_srv, PGSERVICEFILE");
		assertService(parse("postgres://u@?service=my_srv", environment), "postgres://?service=my_srv, PGSERVICEFILE");
		BLUETUSK_ASSERT_CONTAINS(parseError("service=undefined-service user=u", environment), "definition of service \"undefined-service\" not found");
		environment["PGSERVICE"] = "my_srv";
		assertService(parse("user=u", environment), "PGSERVICE, PGSERVICEFILE");
		environment["PGSERVICE"] = "undefined-service";
		BLUETUSK_ASSERT_CONTAINS(parseError("user=u", environment), "definition of service \"undefined-service\" not found");
	}

	void testMissingServiceFile()
	{
		Environment environment = base();
		environment["PGSERVICEFILE"] = _missing;
		const std::string message = parseError("service=my_srv user=u", environment);
		BLUETUSK_ASSERT_CONTAINS(message, "service file \"" + _missing + "\" not found");
	}

	void testDefaultServiceFileInSysconfdir()
	{
		write("pg_service.conf", VALID_SERVICE);
		Environment environment = base(); // PGSERVICEFILE: the empty file, which lacks the service
		assertService(parse("service=my_srv user=u", environment), "service=my_srv, pg_service.conf");
		assertService(parse("postgres://u@?service=my_srv", environment), "postgres://?service=my_srv, pg_service.conf");
		BLUETUSK_ASSERT_CONTAINS(parseError("service=undefined-service user=u", environment), "definition of service \"undefined-service\" not found");
		environment["PGSERVICE"] = "my_srv";
		assertService(parse("user=u", environment), "PGSERVICE, pg_service.conf");
		environment["PGSERVICE"] = "undefined-service";
		BLUETUSK_ASSERT_CONTAINS(parseError("user=u", environment), "definition of service \"undefined-service\" not found");
	}

private:
	Environment base() const
	{
		return {{"PGSYSCONFDIR", _directory->path()}, {"PGSERVICEFILE", _empty}};
	}

	std::string write(const std::string& name, const std::string& text) const
	{
		const std::string path = _directory->path() + "/" + name;
		Poco::FileOutputStream out(path);
		out << text;
		out.close();
		return path;
	}

	static void assertService(const ConnectionSettings& s, const std::string& what)
	{
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(1), s.endpoints.size());
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::string("/tmp/libpq-suite-socket"), s.endpoints.front().host());
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 54321, static_cast<int>(s.endpoints.front().port()));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::string("postgres"), s.database);
	}

	std::unique_ptr<Poco::TemporaryFile> _directory;
	std::string _valid;
	std::string _empty;
	std::string _missing;
};

CPPUNIT_TEST_SUITE_REGISTRATION(LibpqServiceSuiteTest);
