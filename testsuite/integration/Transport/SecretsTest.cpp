//
// SecretsTest.cpp
//
// With a unique password (a role created for this test), provoke every failure - wrong password, refused,
// timeout, TLS refused, TLS name mismatch, SCRAM signature mismatch, MD5 and cleartext rejection, server
// errors - and check that no exception text, address diagnostic or log line contains the password, an
// MD5 hash or SCRAM material.
//

#include "CapturingChannel.h"
#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include "Peers.h"
#include "TransportTestSupport.h"
#include "Poco/AutoPtr.h"
#include "Poco/Channel.h"
#include "Poco/Logger.h"
#include "Poco/Message.h"
#include "Poco/Mutex.h"
#include "Poco/UUIDGenerator.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <regex>
#include <unistd.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {


std::string everything(const Poco::Exception& exc)
	/// The display text of exc and of every nested exception, plus the address diagnostics.
{
	std::string text;
	for (const Poco::Exception* e = &exc; e; e = e->nested()) text += e->displayText() + "\n";
	if (const auto* transport = dynamic_cast<const BlueTuskTransportException*>(&exc))
	{
		for (const auto& attempt: transport->attempts()) text += attempt.toString() + "\n";
	}
	return text;
}

} // namespace


class SecretsTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SecretsTest);
	CPPUNIT_TEST(testNoSecretInAnyMessage);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_password = "bt-" + Poco::UUIDGenerator::defaultGenerator().createRandom().toString();
		_wrongPassword = "bt-wrong-" + Poco::UUIDGenerator::defaultGenerator().createRandom().toString();
		_role = "bt_secret_" + std::to_string(getpid());
		superuser("DROP ROLE IF EXISTS " + _role + "; CREATE ROLE " + _role + " LOGIN PASSWORD '" + _password + "'");
		_channel = new CapturingChannel;
		Poco::Logger& logger = Poco::Logger::get("BlueTusk.Transport");
		_previousChannel.assign(logger.getChannel(), true);
		_previousLevel = logger.getLevel();
		logger.setChannel(_channel);
		logger.setLevel(Poco::Message::PRIO_TRACE);
	}

	void tearDown()
	{
		Poco::Logger& logger = Poco::Logger::get("BlueTusk.Transport");
		logger.setChannel(_previousChannel);
		logger.setLevel(_previousLevel);
		superuser("DROP ROLE IF EXISTS " + _role);
	}

	void testNoSecretInAnyMessage()
	{
		ProtocolSessionFactory factory;
		const std::string login = ";Username=" + _role + ";Password=" + _password + ";Timeout=2";

		// the password works: the role exists
		ConnectionSettings good = nodeSettings(1, "Username=" + _role + ";Password=" + _password + ";SSL Mode=require");
		ProtocolSession::Ptr session = factory.openSession(good.endpoints[0], good);
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256-PLUS"), session->authenticationMethod());
		expectFailure("server error in a query", [&] { session->executeSimple("SELECT 1/0"); });
		expectFailure("server error in an extended query", [&] { session->execute("SELECT $1::int", {std::string("x")}); });

		expectFailure("wrong password", [&] { open(factory, nodeSettings(1, "Username=" + _role + ";Password=" + _wrongPassword)); });
		expectFailure("wrong password over TLS", [&] { open(factory, nodeSettings(1, "Username=" + _role + ";Password=" + _wrongPassword + ";SSL Mode=require")); });
		expectFailure("server error after SCRAM", [&] { open(factory, nodeSettings(1, "Username=" + _role + ";Password=" + _password + ";Database=no_such_db")); });

		RefusedPort refused("127.0.0.1");
		expectFailure("refused", [&] { open(factory, settingsFor(Dialer::describe(refused.address()), login)); });

		BlackHoleListener hole("127.0.0.1");
		expectFailure("timeout", [&] { open(factory, settingsFor(Dialer::describe(hole.address()), ";Username=" + _role + ";Password=" + _password + ";Timeout=0.3")); });

		FakeBackend noTls(BackendScript::primary());
		expectFailure("TLS refused", [&] { open(factory, settingsFor(noTls.hostAndPort(), login + ";SSL Mode=require")); });

		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("wrong-name.test", std::vector<std::string>{"127.0.0.1"});
		ProtocolSessionFactory resolving(resolver);
		expectFailure("TLS name mismatch", [&] { open(resolving, nodeSettings(1, "Host=wrong-name.test;Username=" + _role + ";Password=" + _password +
			";SSL Mode=verify-full;Root Certificate=" + cluster().rootCertificate())); });

		BackendScript corrupt = BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, _password);
		corrupt.corruptServerSignature = true;
		FakeBackend scramLiar(corrupt);
		expectFailure("SCRAM signature mismatch", [&] { open(factory, settingsFor(scramLiar.hostAndPort(), login)); });

		FakeBackend md5(BackendScript::primary().requirePassword(BackendScript::Authentication::Md5, _password));
		expectFailure("MD5 rejected", [&] { open(factory, settingsFor(md5.hostAndPort(), ";Username=" + _role + ";Password=" + _wrongPassword)); });

		FakeBackend cleartext(BackendScript::passwordFailure());
		expectFailure("cleartext rejected", [&] { open(factory, settingsFor(cleartext.hostAndPort(), login)); });

		FakeBackend starting(BackendScript::startingUp());
		expectFailure("57P03", [&] { open(factory, settingsFor(starting.hostAndPort(), login)); });

		FakeBackend garbage(BackendScript::garbage());
		expectFailure("garbage", [&] { open(factory, settingsFor(garbage.hostAndPort(), login)); });

		CPPUNIT_ASSERT(_checked >= 14);
		for (const auto& line: _channel->lines()) checkClean("log line", line);
	}

private:
	static void superuser(const std::string& sql)
	{
		ConnectionSettings settings = ConnectionSettings::parse("Host=" + cluster().socketDir(1) + ";Port=" + std::to_string(cluster().port) +
			";Username=postgres;Database=postgres;Timeout=5", {});
		ProtocolSessionFactory factory;
		ProtocolSession::Ptr session = factory.openSession(settings.endpoints.at(0), settings);
		session->executeSimple(sql);
	}

	static ConnectionSettings settingsFor(const std::string& hostAndPort, const std::string& extra)
	{
		return ConnectionSettings::parse("Host=" + hostAndPort + ";Database=bluetusk;SSL Mode=disable" + extra, {});
	}

	static void open(ProtocolSessionFactory& factory, const ConnectionSettings& settings)
	{
		factory.openSession(settings.endpoints.at(0), settings);
	}

	void expectFailure(const std::string& what, const std::function<void()>& action)
	{
		try
		{
			action();
		}
		catch (Poco::Exception& exc)
		{
			checkClean(what, everything(exc));
			++_checked;
			return;
		}
		CPPUNIT_FAIL(what + ": expected an exception");
	}

	void checkClean(const std::string& what, const std::string& text)
	{
		static const std::regex md5Hash("md5[0-9a-f]{32}");
		static const std::regex scram("(^|[,\\s])(r|s|p|c|v)=[A-Za-z0-9+/]{8}");
		CPPUNIT_ASSERT_MESSAGE(what + " shows the password: " + text, text.find(_password) == std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(what + " shows the wrong password: " + text, text.find(_wrongPassword) == std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(what + " shows an MD5 hash: " + text, !std::regex_search(text, md5Hash));
		CPPUNIT_ASSERT_MESSAGE(what + " shows SCRAM material: " + text, !std::regex_search(text, scram));
		CPPUNIT_ASSERT_MESSAGE(what + " shows a SCRAM header: " + text, text.find("n,,") == std::string::npos && text.find("c=biws") == std::string::npos);
	}

	std::string _password;
	std::string _wrongPassword;
	std::string _role;
	int _checked = 0;
	Poco::AutoPtr<CapturingChannel> _channel;
	Poco::AutoPtr<Poco::Channel> _previousChannel;
	int _previousLevel = 0;
};

CPPUNIT_TEST_SUITE_REGISTRATION(SecretsTest);
