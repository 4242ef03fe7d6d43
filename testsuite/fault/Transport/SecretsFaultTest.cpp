//
// SecretsFaultTest.cpp
//
// No exception text, nested exception, per-address diagnostic or log line may contain the password
// (doc/transport.md, "Secrets"). A unique password is used while every startup failure the peers can
// produce is provoked, with every logger at trace level captured.
//

#include "TransportFaultSupport.h"
#include "BlackHoleListener.h"
#include "FakeBackend.h"
#include "RefusedPort.h"
#include "CapturingChannel.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include <cppunit/extensions/HelperMacros.h>
#include <memory>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string SECRET = "Zq9-unique-Secret-771";

}


class SecretsFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SecretsFaultTest);
	CPPUNIT_TEST(testPasswordInNoMessage);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_capture.reset(new LogCapture);
	}

	void tearDown()
	{
		_capture.reset();
	}

	void testPasswordInNoMessage()
	{
		using Auth = BackendScript::Authentication;
		RefusedPort refused("127.0.0.2");
		BlackHoleListener hole("127.0.0.3");
		BackendScript corrupt = BackendScript::primary().requirePassword(Auth::ScramSha256, SECRET);
		corrupt.corruptServerSignature = true;
		std::vector<BackendScript> scripts = {
			BackendScript::closeAfterStartup(),
			BackendScript::closeOnAccept(),
			BackendScript::resetAfterStartup(),
			BackendScript::garbage(),
			BackendScript::startingUp(),
			BackendScript::tooManyClients(),
			BackendScript::passwordFailure(),
			BackendScript::primary().requirePassword(Auth::Cleartext, "other"),
			BackendScript::primary().requirePassword(Auth::Md5, "other"),
			BackendScript::primary().requirePassword(Auth::ScramSha256, "other"),
			corrupt,
			BackendScript::primary().delayStartup(2000)
		};
		std::vector<std::unique_ptr<FakeBackend>> backends;
		for (const auto& script: scripts) backends.emplace_back(new FakeBackend(script, "127.0.0.4"));

		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("all.fault.test", std::vector<std::string>{refused.hostAndPort(), hole.hostAndPort()});
		ProtocolSessionFactory factory(resolver);

		std::vector<std::pair<BlueTuskHostEndpoint, SslMode>> targets = {
			{refused.endpoint(), SslMode::Disable},
			{hole.endpoint(), SslMode::Disable},
			{BlueTuskHostEndpoint("all.fault.test", 5432), SslMode::Disable},
			{BlueTuskHostEndpoint("unknown.fault.test", 5432), SslMode::Disable},
			{backends[0]->endpoint(), SslMode::Require}
		};
		for (const auto& backend: backends) targets.emplace_back(backend->endpoint(), SslMode::Prefer);

		int failures = 0;
		std::string seen;
		for (const auto& target: targets)
		{
			try
			{
				factory.openSession(target.first, fastSettings(300, SECRET, target.second));
			}
			catch (Poco::Exception& exc)
			{
				++failures;
				std::string text = allText(exc);
				seen += text;
				CPPUNIT_ASSERT_MESSAGE(text, text.find(SECRET) == std::string::npos);
				std::unique_ptr<Poco::Exception> copy(exc.clone());
				CPPUNIT_ASSERT(allText(*copy).find(SECRET) == std::string::npos);
			}
		}
		CPPUNIT_ASSERT_EQUAL(int(targets.size()), failures);
		CPPUNIT_ASSERT(seen.find("28P01") != std::string::npos);
		CPPUNIT_ASSERT(seen.find("57P03") != std::string::npos);
		const std::string logged = _capture->channel().text();
		CPPUNIT_ASSERT_MESSAGE(logged, logged.find(SECRET) == std::string::npos);
	}

private:
	std::unique_ptr<LogCapture> _capture;
};

CPPUNIT_TEST_SUITE_REGISTRATION(SecretsFaultTest);
