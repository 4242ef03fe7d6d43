//
// LibpqConnectionStringTest.cpp
//
// libpq connection strings against the local cluster (scripts/cluster): a pg_service.conf
// service (multi-host, with options), options=-c search_path seen by SHOW, hostaddr with a host name that
// does not resolve (TLS verification and the password file still use the name), the default Unix-socket
// directory (node1 also listens there), a socket directory as host, and requirepeer.
//

#include "TestEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sys/stat.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string scalar(BlueTuskConnection& connection, const std::string& sql)
{
	return connection.executeSimple(sql).front().rows.at(0).at(0).value();
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


std::string allText(const Poco::Exception& exc)
	/// The display texts of exc and of every nested exception.
{
	std::string text;
	for (const Poco::Exception* e = &exc; e; e = e->nested()) text += e->displayText() + "\n";
	return text;
}


std::string login()
	/// The cluster's login in the libpq form, without host.
{
	const ClusterInfo& c = cluster();
	return "port=" + std::to_string(c.port) + " user=" + c.user + " password=" + c.password + " dbname=" + c.database + " connect_timeout=5";
}


class TemporaryText
	/// A file with the given text, removed at the end of the test.
{
public:
	explicit TemporaryText(const std::string& text, int mode = 0600)
	{
		Poco::FileOutputStream out(_file.path());
		out << text;
		out.close();
		::chmod(_file.path().c_str(), mode);
	}

	std::string path() const
	{
		return _file.path();
	}

private:
	Poco::TemporaryFile _file;
};


class ScopedVariable
	/// Sets a process environment variable for the scope of a test and restores it.
{
public:
	ScopedVariable(const std::string& name, const std::string& value):
		_name(name),
		_had(Poco::Environment::has(name)),
		_before(Poco::Environment::get(name, ""))
	{
		Poco::Environment::set(name, value);
	}

	~ScopedVariable()
	{
		Poco::Environment::set(_name, _had ? _before : std::string());
	}

private:
	std::string _name;
	bool _had;
	std::string _before;
};

} // namespace


class LibpqConnectionStringTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqConnectionStringTest);
	CPPUNIT_TEST(testServiceFile);
	CPPUNIT_TEST(testServiceFromTheEnvironment);
	CPPUNIT_TEST(testOptionsSearchPath);
	CPPUNIT_TEST(testHostAddressWithUnresolvableName);
	CPPUNIT_TEST(testHostAddressKeepsTheNameForTls);
	CPPUNIT_TEST(testDefaultSocketDirectory);
	CPPUNIT_TEST(testSocketDirectoryAndRequirePeer);
	CPPUNIT_TEST_SUITE_END();

public:
	void testServiceFile()
	{
		// a multi-host service: the standby first, read-write picks the primary (node1)
		const ClusterInfo& c = cluster();
		TemporaryText services("# test services\n[bt-rw]\nhost=" + c.hosts.at(1) + "," + c.hosts.at(0) + "\nport=" + std::to_string(c.port) +
			"\ndbname=" + c.database + "\nuser=" + c.user + "\ntarget_session_attrs=read-write\noptions=-c search_path=from_service\n"
			"sslmode=disable\n");
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open("service=bt-rw servicefile=" + services.path() + " password=" + c.password, connector);
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(0), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("f"), scalar(connection, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(std::string("from_service"), scalar(connection, "SHOW search_path"));
		// a keyword written in the string wins over the service
		BlueTuskConnection own = BlueTuskConnection::open("Service=bt-rw;Service File=" + services.path() + ";Password=" + c.password +
			";Target Session Attributes=standby;Options=-c search_path=mine", connector);
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(1), own.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("t"), scalar(own, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(std::string("mine"), scalar(own, "SHOW search_path"));
	}

	void testServiceFromTheEnvironment()
	{
		const ClusterInfo& c = cluster();
		TemporaryText services("[bt-any]\nhost=" + c.hosts.at(2) + "\nport=" + std::to_string(c.port) + "\ndbname=" + c.database +
			"\nuser=" + c.user + "\npassword=" + c.password + "\nsslmode=disable\napplication_name=from-service\n");
		ScopedVariable service("PGSERVICE", "bt-any");
		ScopedVariable file("PGSERVICEFILE", services.path());
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open("postgresql://", connector);
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(2), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("from-service"), scalar(connection, "SHOW application_name"));
		CPPUNIT_ASSERT_EQUAL(std::string("node3"), scalar(connection, "SHOW cluster_name"));
	}

	void testOptionsSearchPath()
	{
		const ClusterInfo& c = cluster();
		RoutingContext connector;
		BlueTuskConnection libpq = BlueTuskConnection::open("host=" + c.hosts.at(0) + " " + login() +
			" sslmode=disable options='-c search_path=app_schema,public -c statement_timeout=4s'", connector);
		CPPUNIT_ASSERT_EQUAL(std::string("app_schema,public"), scalar(libpq, "SHOW search_path"));
		CPPUNIT_ASSERT_EQUAL(std::string("4s"), scalar(libpq, "SHOW statement_timeout"));
		// Npgsql's Search Path becomes -c search_path=... (its space escaped), after Options
		BlueTuskConnection npgsql = BlueTuskConnection::open(c.connectionString(c.hosts.at(0),
			"SSL Mode=disable;Options=-c work_mem=2MB;Search Path=app_schema, public"), connector);
		CPPUNIT_ASSERT_EQUAL(std::string("app_schema, public"), scalar(npgsql, "SHOW search_path"));
		CPPUNIT_ASSERT_EQUAL(std::string("2MB"), scalar(npgsql, "SHOW work_mem"));
		// a URL, and a bad option fails the open with the server's message
		BlueTuskConnection url = BlueTuskConnection::open("postgresql://" + c.user + ":" + c.password + "@" + c.hosts.at(0) + ":" +
			std::to_string(c.port) + "/" + c.database + "?sslmode=disable&options=-c%20search_path%3Durl_schema", connector);
		CPPUNIT_ASSERT_EQUAL(std::string("url_schema"), scalar(url, "SHOW search_path"));
		try
		{
			BlueTuskConnection::open("host=" + c.hosts.at(0) + " " + login() + " sslmode=disable options='-c no_such_setting=1'", connector);
			CPPUNIT_FAIL("an unknown server setting in options was accepted");
		}
		catch (Poco::Exception& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), contains(exc.displayText(), "no_such_setting"));
		}
	}

	void testHostAddressWithUnresolvableName()
	{
		const ClusterInfo& c = cluster();
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open("host=no-such-host.invalid hostaddr=" + c.hosts.at(0) + " " + login() +
			" sslmode=disable", connector);
		CPPUNIT_ASSERT_EQUAL(std::string("no-such-host.invalid"), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(0), scalar(connection, "SELECT host(inet_server_addr())"));
		// the password file is looked up by the host name, as in libpq
		TemporaryText passfile("no-such-host.invalid:" + std::to_string(c.port) + ":*:" + c.user + ":" + c.password + "\n");
		BlueTuskConnection fromFile = BlueTuskConnection::open("host=no-such-host.invalid hostaddr=" + c.hosts.at(1) + " port=" +
			std::to_string(c.port) + " user=" + c.user + " dbname=" + c.database + " sslmode=disable passfile=" + passfile.path(), connector);
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(1), scalar(fromFile, "SELECT host(inet_server_addr())"));
		// a per-host list: the first host's address is refused (nothing listens on 127.0.0.9), the second is reached
		BlueTuskConnection list = BlueTuskConnection::open("host=first.invalid,second.invalid hostaddr=127.0.0.9," + c.hosts.at(2) + " " +
			login() + " sslmode=disable", connector);
		CPPUNIT_ASSERT_EQUAL(std::string("second.invalid"), list.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(2), scalar(list, "SELECT host(inet_server_addr())"));
	}

	void testHostAddressKeepsTheNameForTls()
	{
		// verify-full checks the certificate against the host name, not the hostaddr
		const ClusterInfo& c = cluster();
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open("host=localhost hostaddr=" + c.hosts.at(1) + " " + login() +
			" sslmode=verify-full sslrootcert=" + c.rootCertificate(), connector);
		CPPUNIT_ASSERT_EQUAL(c.hosts.at(1), scalar(connection, "SELECT host(inet_server_addr())"));
		CPPUNIT_ASSERT_EQUAL(std::string("on"), scalar(connection, "SELECT CASE WHEN ssl THEN 'on' ELSE 'off' END FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
		try
		{
			BlueTuskConnection::open("host=no-such-host.invalid hostaddr=" + c.hosts.at(1) + " " + login() + " sslmode=verify-full sslrootcert=" +
				c.rootCertificate(), connector);
			CPPUNIT_FAIL("verify-full accepted a certificate that does not name the host");
		}
		catch (Poco::Exception& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(allText(exc), contains(allText(exc), "does not match host name \"no-such-host.invalid\""));
		}
	}

	void testDefaultSocketDirectory()
	{
		// no host: the default socket directory, where scripts/cluster lets node1 listen too
		const std::string directory = ConnectionSettings::defaultSocketDirectory();
		CPPUNIT_ASSERT_MESSAGE("node1 has no socket in " + directory + " (scripts/cluster reset --full puts one there)",
			Poco::File(directory + "/.s.PGSQL." + std::to_string(cluster().port)).exists());
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(login(), connector);
		CPPUNIT_ASSERT(connection.connectedEndpoint().isUnixSocket());
		CPPUNIT_ASSERT_EQUAL(directory, connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("node1"), scalar(connection, "SHOW cluster_name"));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), scalar(connection, "SELECT inet_server_addr() IS NULL"));
		// libpq's URL forms without a host
		const ClusterInfo& c = cluster();
		BlueTuskConnection url = BlueTuskConnection::open("postgres://" + c.user + ":" + c.password + "@:" + std::to_string(c.port) + "/" + c.database, connector);
		CPPUNIT_ASSERT_EQUAL(directory, url.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("node1"), scalar(url, "SHOW cluster_name"));
	}

	void testSocketDirectoryAndRequirePeer()
	{
		// the cluster's own socket directory as host (URL: host=/path in the query), the server runs as postgres
		const ClusterInfo& c = cluster();
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open("postgres://" + c.user + ":" + c.password + "@:" + std::to_string(c.port) + "/" +
			c.database + "?host=" + c.socketDir(2) + "&requirepeer=postgres", connector);
		CPPUNIT_ASSERT_EQUAL(c.socketDir(2), connection.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("node2"), scalar(connection, "SHOW cluster_name"));
		try
		{
			BlueTuskConnection::open("host=" + c.socketDir(2) + "," + c.socketDir(1) + " " + login() + " requirepeer=somebody-else", connector);
			CPPUNIT_FAIL("requirepeer accepted a server run by postgres");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			// it stops the host list (node1 is not tried), as libpq
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), contains(exc.displayText(), "requirepeer specifies \"somebody-else\", but the server at " +
				c.socketDir(2) + "/.s.PGSQL." + std::to_string(c.port) + " runs as \"postgres\""));
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LibpqConnectionStringTest);
