//
// TopLevelTlsCauseTest.cpp
//
// On the local cluster: the message an application catches (what() of the
// BlueTuskNoAcceptableHostException from BlueTuskConnection::open and BlueTuskDataSource::open) names the TLS
// cause in the field's words. Before: "no acceptable host for target any (Host Order=sequential):
// 127.0.0.1:56300: TLS failure", the cause only in a nested exception.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "TestEnvironment.h"
#include "TlsTestSupport.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string openError(const std::string& extra, bool pooled)
{
	const ClusterInfo& c = cluster();
	const std::string text = c.connectionString(c.hosts.at(0), "Timeout=5;" + extra);
	try
	{
		if (pooled) BlueTuskDataSource::create(text)->open();
		else BlueTuskConnection::open(text);
	}
	catch (BlueTuskNoAcceptableHostException& exc)
	{
		const std::string message = exc.what();
		CPPUNIT_ASSERT_MESSAGE(message, message.find(c.password) == std::string::npos);
		return message;
	}
	return "(no BlueTuskNoAcceptableHostException)";
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class TopLevelTlsCauseTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(TopLevelTlsCauseTest);
	CPPUNIT_TEST(testVerifyFullWithoutRootCertificate);
	CPPUNIT_TEST(testVerificationFailure);
	CPPUNIT_TEST(testUnknownHostName);
	CPPUNIT_TEST_SUITE_END();

public:
	void testVerifyFullWithoutRootCertificate()
	{
		HomeDirectory home;   // no ~/.postgresql/root.crt
		for (bool pooled: {false, true})
		{
			const std::string message = openError("SSL Mode=verify-full", pooled);
			const std::string endpoint = cluster().hosts.at(0) + ":" + std::to_string(cluster().port);
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, endpoint + ": TLS failure: root certificate file \"" + home.path() +
				"/.postgresql/root.crt\" does not exist; set Root Certificate (sslrootcert) to the CA file"));
		}
	}

	void testVerificationFailure()
	{
		// the system's roots do not include the cluster's test CA; a client certificate is no CA of the server's
		for (const std::string& root: {std::string("system"), certs() + "client.crt"})
		{
			for (bool pooled: {false, true})
			{
				const std::string message = openError("SSL Mode=verify-full;Root Certificate=" + root, pooled);
				// OpenSSL's reason (the server sends its chain with the test CA, which neither trusts)
				const std::string expected = "self-signed certificate in certificate chain (SSL Mode=verify-full, Root Certificate " +
					(root == "system" ? root : "\"" + root + "\"") + ")";
				CPPUNIT_ASSERT_MESSAGE(message, contains(message, ":" + std::to_string(cluster().port) + ": TLS failure: server certificate verification failed: " + expected));
			}
		}
	}

	void testUnknownHostName()
	{
		const ClusterInfo& c = cluster();
		const std::string text = c.connectionString("no-such-host.invalid", "Timeout=5;SSL Mode=require");
		try
		{
			BlueTuskConnection::open(text);
			CPPUNIT_FAIL("no-such-host.invalid resolved");
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			const std::string message = exc.what();
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, "no-such-host.invalid:" + std::to_string(c.port) +
				": could not translate host name \"no-such-host.invalid\" to address: "));
			CPPUNIT_ASSERT_MESSAGE(message, !contains(message, c.password));
		}
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(TopLevelTlsCauseTest);
