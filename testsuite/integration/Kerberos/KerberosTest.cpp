//
// KerberosTest.cpp
//
// GSSAPI (Kerberos) logins against the local cluster with scripts/kdc's realm: role bluetusk_krb
// (pg_hba "host ... gss") with a ticket obtained by kinit into a private KRB5CCNAME; no ticket, a wrong
// Kerberos Service Name and require_auth are refused clearly. Needs "scripts/kdc start" (scripts/test runs
// it): without the KDC every test fails saying so.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string kerberosRole = "bluetusk_krb";
const std::string kerberosPassword = "tusk-kerberos-secret";


std::string kdcDirectory()
{
	return Poco::Environment::get("BLUETUSK_KDC_DIR", "/tmp/bluetusk-kdc-" + std::to_string(cluster().port));
}


ConnectionSettings kerberosSettings(const std::string& extra)
	/// localhost (node 1: the service principal is postgres/localhost), role bluetusk_krb, no password.
{
	const ClusterInfo& c = cluster();
	return ConnectionSettings::parse("Host=localhost;Port=" + std::to_string(c.port) + ";Username=" + kerberosRole + ";Database=" + c.database +
		";Timeout=5;SSL Mode=disable;" + extra, {});
}


std::string scalar(ProtocolSession& session, const std::string& sql)
{
	return *session.executeSimple(sql).at(0).rows.at(0).at(0);
}


class KerberosEnvironment
	/// KRB5_CONFIG = scripts/kdc's krb5.conf and a private, empty KRB5CCNAME for the scope.
{
public:
	KerberosEnvironment()
	{
		const std::string config = kdcDirectory() + "/krb5.conf";
		if (!Poco::File(config).exists())
			CPPUNIT_FAIL("no KDC: " + config + " does not exist (run BLUETUSK_CLUSTER_PORT=" + std::to_string(cluster().port) + " scripts/kdc start)");
		_directory.createDirectories();
		_cache = "FILE:" + _directory.path() + "/ccache";
		Poco::Environment::set("KRB5_CONFIG", config);
		Poco::Environment::set("KRB5CCNAME", _cache);
	}

	~KerberosEnvironment()
	{
		Poco::Environment::set("KRB5CCNAME", "FILE:/nonexistent/bluetusk-no-ccache");
	}

	void kinit() const
		/// A ticket for bluetusk_krb into the private cache (kinit reads the password from stdin).
	{
		const std::string command = "printf '%s\\n' '" + kerberosPassword + "' | KRB5CCNAME='" + _cache + "' kinit " + kerberosRole +
			"@BLUETUSK.TEST >/dev/null 2>&1";
		CPPUNIT_ASSERT_EQUAL_MESSAGE("kinit against scripts/kdc's KDC", 0, std::system(command.c_str()));
	}

private:
	Poco::TemporaryFile _directory;
	std::string _cache;
};


std::string authenticationFailure(const ConnectionSettings& settings)
{
	try
	{
		ProtocolSessionFactory factory;
		factory.openSession(settings.endpoints.at(0), settings);
	}
	catch (BlueTuskAuthenticationException& exc)
	{
		return exc.displayText();
	}
	CPPUNIT_FAIL("the open must fail with BlueTuskAuthenticationException");
	return std::string();
}

} // namespace


class KerberosTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(KerberosTest);
	CPPUNIT_TEST(testWithoutTicket);
	CPPUNIT_TEST(testLoginWithTicket);
	CPPUNIT_TEST_SUITE_END();

public:
	void testWithoutTicket()
	{
		KerberosEnvironment environment; // an empty cache
		const std::string text = authenticationFailure(kerberosSettings(""));
		CPPUNIT_ASSERT_MESSAGE(text, text.find("GSSAPI: could not initiate a security context for \"postgres@localhost\"") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(text, text.find("credentials") != std::string::npos);
	}

	void testLoginWithTicket()
	{
		KerberosEnvironment environment;
		environment.kinit();
		for (const std::string& extra: {std::string(""), std::string("krbsrvname=postgres;gssencmode=disable"), std::string("GSS Delegation=1")})
		{
			ConnectionSettings settings = kerberosSettings(extra);
			ProtocolSessionFactory factory;
			ProtocolSession::Ptr session = factory.openSession(settings.endpoints.at(0), settings);
			CPPUNIT_ASSERT_EQUAL(std::string("GSSAPI"), session->authenticationMethod());
			CPPUNIT_ASSERT_EQUAL(kerberosRole, scalar(*session, "SELECT current_user"));
			CPPUNIT_ASSERT_EQUAL(std::string("true|bluetusk_krb@BLUETUSK.TEST"),
				scalar(*session, "SELECT gss_authenticated::text || '|' || principal FROM pg_stat_gssapi WHERE pid = pg_backend_pid()"));
			// (with GSS Delegation the credentials are forwarded; PostgreSQL 15 has no pg_stat_gssapi.credentials_delegated to show it)
		}
		// require_auth=gss accepts it; require_auth=scram-sha-256 refuses it
		ConnectionSettings gssOnly = kerberosSettings("require_auth=gss");
		ProtocolSessionFactory factory;
		CPPUNIT_ASSERT_EQUAL(std::string("GSSAPI"), factory.openSession(gssOnly.endpoints.at(0), gssOnly)->authenticationMethod());
		std::string text = authenticationFailure(kerberosSettings("require_auth=scram-sha-256"));
		CPPUNIT_ASSERT_MESSAGE(text, text.find("asked for GSSAPI authentication") != std::string::npos);
		// a service the KDC does not know
		text = authenticationFailure(kerberosSettings("Kerberos Service Name=nosuchservice"));
		CPPUNIT_ASSERT_MESSAGE(text, text.find("\"nosuchservice@localhost\"") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(text, text.find("not found in Kerberos database") != std::string::npos);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(KerberosTest);
