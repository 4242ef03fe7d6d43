//
// PeerSessionTest.cpp
//
// ProtocolSession against the project's fake backend and proxies (no cluster needed): cleartext, MD5 and
// SCRAM authentication, the passfile, a lying SCRAM server, an unsupported method, startup errors,
// early close / reset / garbage / silence with per-address outcomes, the role probe when the server does
// not report its role, a command timeout whose cancel cannot reach the server, and cancellable opens.
//

#include "BlueTusk/BlueTuskException.h"
#include "session/ProtocolSessionFactory.h"
#include "connect/StaticResolver.h"
#include "Peers.h"
#include "Poco/Clock.h"
#include "Poco/Environment.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

ConnectionSettings settingsFor(const std::string& hostAndPort, const std::string& extra = "")
{
	return ConnectionSettings::parse("Host=" + hostAndPort + ";Username=alice;Database=app;SSL Mode=disable;Timeout=2" +
		(extra.empty() ? "" : ";" + extra), {});
}


ProtocolSession::Ptr open(const ConnectionSettings& settings)
{
	ProtocolSessionFactory factory;
	return factory.openSession(settings.endpoints.at(0), settings);
}


BlueTuskTransportException openFails(const ConnectionSettings& settings)
{
	try
	{
		open(settings);
	}
	catch (BlueTuskTransportException& exc)
	{
		return exc;
	}
	CPPUNIT_FAIL("expected BlueTuskTransportException");
	return BlueTuskTransportException();
}


class GssOnlyServer
	/// Accepts one connection, reads the StartupMessage and asks for GSSAPI (AuthenticationGSS, code 7).
{
public:
	GssOnlyServer(): _server(Poco::Net::SocketAddress("127.0.0.1", 0))
	{
		_thread = std::thread([this]
		{
			try
			{
				Poco::Net::StreamSocket client = _server.acceptConnection();
				client.setReceiveTimeout(Poco::Timespan(5, 0));
				char buffer[1024];
				client.receiveBytes(buffer, sizeof(buffer));
				const char request[] = {'R', 0, 0, 0, 8, 0, 0, 0, 7};
				client.sendBytes(request, sizeof(request));
				client.receiveBytes(buffer, sizeof(buffer)); // until the client closes
			}
			catch (Poco::Exception&)
			{
			}
		});
	}

	~GssOnlyServer()
	{
		_thread.join();
	}

	std::string hostAndPort() const
	{
		return _server.address().toString();
	}

private:
	Poco::Net::ServerSocket _server;
	std::thread _thread;
};

} // namespace


class PeerSessionTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PeerSessionTest);
	CPPUNIT_TEST(testCleartext);
	CPPUNIT_TEST(testMd5);
	CPPUNIT_TEST(testScram);
	CPPUNIT_TEST(testScramServerSignatureMismatch);
	CPPUNIT_TEST(testPasswordRejected);
	CPPUNIT_TEST(testNoPassword);
	CPPUNIT_TEST(testPassfile);
	CPPUNIT_TEST(testUnsupportedMethod);
	CPPUNIT_TEST(testStartupErrors);
	CPPUNIT_TEST(testNetworkFailuresDuringStartup);
	CPPUNIT_TEST(testStartupParameters);
	CPPUNIT_TEST(testProbeWithoutRoleParameters);
	CPPUNIT_TEST(testDeferredResetPipelined);
	CPPUNIT_TEST(testBrokenSession);
	CPPUNIT_TEST(testCommandTimeoutWithoutAnswer);
	CPPUNIT_TEST(testOpenCancellable);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCleartext()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::Cleartext, "s3cret"));
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort(), "Password=s3cret"));
		CPPUNIT_ASSERT_EQUAL(std::string("cleartext"), session->authenticationMethod());
		CPPUNIT_ASSERT_EQUAL(1, backend.passwordsReceived());
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
	}

	void testMd5()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::Md5, "s3cret"));
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort(), "Password=s3cret"));
		CPPUNIT_ASSERT_EQUAL(std::string("MD5"), session->authenticationMethod());
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
		try
		{
			open(settingsFor(backend.hostAndPort(), "Password=wrong"));
			CPPUNIT_FAIL("must be rejected");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("28P01") != std::string::npos);
		}
	}

	void testScram()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "s3cret"));
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort(), "Password=s3cret"));
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
		CPPUNIT_ASSERT(backend.passwordsReceived() >= 1);
		CPPUNIT_ASSERT_EQUAL(1, backend.sessionsReady());
	}

	void testScramServerSignatureMismatch()
	{
		BackendScript script = BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "s3cret");
		script.corruptServerSignature = true;
		FakeBackend backend(script);
		try
		{
			open(settingsFor(backend.hostAndPort(), "Password=s3cret"));
			CPPUNIT_FAIL("a server that cannot prove the password must be rejected");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("server signature does not verify") != std::string::npos);
		}
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(2, 0)));
	}

	void testPasswordRejected()
	{
		FakeBackend backend(BackendScript::passwordFailure());
		try
		{
			open(settingsFor(backend.hostAndPort(), "Password=whatever"));
			CPPUNIT_FAIL("must be rejected");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			const auto* server = dynamic_cast<const BlueTuskServerException*>(exc.nested());
			CPPUNIT_ASSERT(server);
			CPPUNIT_ASSERT_EQUAL(std::string("28P01"), server->sqlState());
			CPPUNIT_ASSERT(server->isAuthenticationError());
			CPPUNIT_ASSERT(exc.message().find("user \"alice\"") != std::string::npos);
		}
	}

	void testNoPassword()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "s3cret"));
		try
		{
			open(settingsFor(backend.hostAndPort(), "Passfile=/nonexistent/pgpass"));
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("asked for a password (SCRAM-SHA-256 authentication) but none was given") != std::string::npos);
			CPPUNIT_ASSERT(exc.message().find("/nonexistent/pgpass") != std::string::npos);
		}
		CPPUNIT_ASSERT_EQUAL(0, backend.passwordsReceived());
	}

	void testPassfile()
	{
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "from:file"));
		Poco::TemporaryFile file;
		{
			std::ofstream out(file.path());
			out << "# test\n127.0.0.1:" << backend.port() << ":app:bob:not-for-alice\n"
			    << "127.0.0.1:" << backend.port() << ":app:alice:from\\:file\n";
		}
		::chmod(file.path().c_str(), 0600);
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort(), "Passfile=" + file.path()));
		CPPUNIT_ASSERT_EQUAL(std::string("SCRAM-SHA-256"), session->authenticationMethod());
		// a given Password wins over the file
		CPPUNIT_ASSERT_THROW(open(settingsFor(backend.hostAndPort(), "Passfile=" + file.path() + ";Password=other")), BlueTuskAuthenticationException);
		// a file others may read is ignored
		::chmod(file.path().c_str(), 0644);
		CPPUNIT_ASSERT_THROW(open(settingsFor(backend.hostAndPort(), "Passfile=" + file.path())), BlueTuskAuthenticationException);
	}

	void testUnsupportedMethod()
		/// GSSAPI is answered now: without Kerberos credentials the exchange fails with the
		/// GSS-API's reason, an authentication error, before anything is sent.
	{
		GssOnlyServer server;
		const std::string cache = Poco::Environment::get("KRB5CCNAME", "");
		Poco::Environment::set("KRB5CCNAME", "FILE:/nonexistent/bluetusk-peer-session-ccache");
		try
		{
			open(settingsFor(server.hostAndPort(), "Password=x"));
			Poco::Environment::set("KRB5CCNAME", cache);
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			Poco::Environment::set("KRB5CCNAME", cache);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("GSSAPI: could not initiate a security context for \"postgres@127.0.0.1\"") != std::string::npos);
		}
	}

	void testStartupErrors()
	{
		FakeBackend starting(BackendScript::startingUp());
		try
		{
			open(settingsFor(starting.hostAndPort()));
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("57P03"), exc.sqlState());
			CPPUNIT_ASSERT_EQUAL(std::string("FATAL"), exc.severity());
			CPPUNIT_ASSERT(!exc.sessionUsable());
			CPPUNIT_ASSERT(exc.isAvailabilityError());
		}
		FakeBackend full(BackendScript::tooManyClients());
		try
		{
			open(settingsFor(full.hostAndPort()));
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskServerException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("53300"), exc.sqlState());
			CPPUNIT_ASSERT(exc.isAvailabilityError());
		}
	}

	void testNetworkFailuresDuringStartup()
	{
		FakeBackend closing(BackendScript::closeAfterStartup());
		BlueTuskTransportException closed = openFails(settingsFor(closing.hostAndPort()));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CLOSED, closed.attempts().at(0).outcome);
		CPPUNIT_ASSERT_EQUAL(std::string("the server closed the connection unexpectedly"), closed.attempts()[0].errorText);

		FakeBackend resetting(BackendScript::resetAfterStartup());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::RESET, openFails(settingsFor(resetting.hostAndPort())).attempts().at(0).outcome);

		FakeBackend garbage(BackendScript::garbage());
		BlueTuskTransportException protocol = openFails(settingsFor(garbage.hostAndPort()));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::PROTOCOL_ERROR, protocol.attempts().at(0).outcome);

		FakeBackend silent(BackendScript::hang());
		Poco::Clock started;
		BlueTuskTransportException timedOut = openFails(settingsFor(silent.hostAndPort(), "Timeout=0.3"));
		const Poco::Clock::ClockDiff elapsed = started.elapsed();
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TIMED_OUT, timedOut.attempts().at(0).outcome);
		CPPUNIT_ASSERT(timedOut.attempts()[0].errorText.find("no answer within the connect timeout of 300 ms, during startup") != std::string::npos);
		CPPUNIT_ASSERT(elapsed >= 290000 && elapsed < 1000000);

		// one host name, three addresses: closed, silent, then a good server - the deadline is shared
		FakeBackend good(BackendScript::primary(), "127.0.0.3");
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("three", closing.address());
		resolver->add("three", resetting.address());
		resolver->add("three", good.address());
		ConnectionSettings settings = settingsFor("three:5432");
		ProtocolSessionFactory factory(resolver);
		ProtocolSession::Ptr session = factory.openSession(settings.endpoints.at(0), settings);
		CPPUNIT_ASSERT_EQUAL(good.hostAndPort(), session->connectedAddress());
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), session->addressAttempts().size());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CLOSED, session->addressAttempts()[0].outcome);
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::RESET, session->addressAttempts()[1].outcome);
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CONNECTED, session->addressAttempts()[2].outcome);
	}

	void testStartupParameters()
	{
		FakeBackend backend(BackendScript::primary());
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort(), "Application Name=tusk-app"));
		std::map<std::string, std::string> parameters = backend.lastStartupParameters();
		CPPUNIT_ASSERT_EQUAL(std::string("alice"), parameters["user"]);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), parameters["database"]);
		CPPUNIT_ASSERT_EQUAL(std::string("tusk-app"), parameters["application_name"]);
		CPPUNIT_ASSERT_EQUAL(std::string("UTF8"), parameters["client_encoding"]);
		CPPUNIT_ASSERT_EQUAL(std::string("15.4"), session->parameterStatus("server_version"));
		CPPUNIT_ASSERT_EQUAL(std::string("tusk-app"), session->parameterStatus("application_name"));
		session->close();
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(2, 0)));
		CPPUNIT_ASSERT_EQUAL(1, backend.terminates());
	}

	void testProbeWithoutRoleParameters()
	{
		FakeBackend standby(BackendScript::standby().withoutRoleParameters());
		ProtocolSession::Ptr session = open(settingsFor(standby.hostAndPort()));
		CPPUNIT_ASSERT_EQUAL(0, standby.queryCount());
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::Standby), toString(session->probeRole(false)));
		CPPUNIT_ASSERT_EQUAL(1, standby.queryCount());
		FakeBackend primary(BackendScript::readOnlyPrimary());
		ProtocolSession::Ptr reported = open(settingsFor(primary.hostAndPort(), "Target Session Attributes=read-write"));
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::PrimaryReadOnly), toString(reported->role()));
		// a targeted open asks the role probe once (its pg_backend_pid() tells a server from a pooler that
		// replays ParameterStatus, doc/poolers.md)
		CPPUNIT_ASSERT_EQUAL(1, primary.queryCount());
		CPPUNIT_ASSERT_EQUAL(toString(ServerRole::PrimaryReadOnly), toString(reported->probeRole(true)));
		CPPUNIT_ASSERT_EQUAL(2, primary.queryCount());
	}

	void testDeferredResetPipelined()
	{
		// The deferred DISCARD ALL costs no round trip when the session is returned and travels with the
		// next command, as Parse/Bind/Execute without a Sync of its own: one cycle, one ReadyForQuery. When
		// it fails, the server skips the command up to its Sync, so the command never runs on the unreset
		// session, and the session is closed. A session that ran nothing since it started (or since its
		// last reset) has nothing to reset.
		FakeBackend backend(BackendScript::primary());
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort()));
		CPPUNIT_ASSERT(session->deferReset());
		CPPUNIT_ASSERT(!session->isResetPending());
		session->executeSimple("SELECT 'dirty'");
		const int before = backend.queryCount();
		CPPUNIT_ASSERT(session->deferReset());
		CPPUNIT_ASSERT_EQUAL(before, backend.queryCount());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->executeSimple("SELECT 1")[0].rows[0][0]);
		std::vector<std::string> queries = backend.queries();
		CPPUNIT_ASSERT_EQUAL(std::size_t(before + 2), queries.size());
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), queries[before]);
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), queries[before + 1]);
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT(!session->isResetPending());
		// The same in front of an extended-protocol command (its own Sync ends the one cycle).
		CPPUNIT_ASSERT(session->deferReset());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), *session->execute("SELECT 1", {}).rows[0][0]);
		queries = backend.queries();
		CPPUNIT_ASSERT_EQUAL(std::size_t(before + 4), queries.size());
		CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), queries[before + 2]);
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 1"), queries[before + 3]);
		CPPUNIT_ASSERT(!session->isBroken());

		const std::vector<std::string> commands{"SELECT 1", "EXTENDED"};
		for (const std::string& command: commands)
		{
			FakeBackend failing(BackendScript::primary().answer("DISCARD ALL", QueryAnswer::error("XX000", "discard failed on purpose")));
			ProtocolSession::Ptr unreset = open(settingsFor(failing.hostAndPort()));
			unreset->executeSimple("SELECT 'dirty'");
			CPPUNIT_ASSERT(unreset->deferReset());
			CPPUNIT_ASSERT(unreset->isResetPending());
			try
			{
				if (command == "EXTENDED") unreset->execute("SELECT 1", {});
				else unreset->executeSimple(command);
				CPPUNIT_FAIL("expected BlueTuskSessionBrokenException");
			}
			catch (BlueTuskSessionBrokenException& exc)
			{
				CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("(DISCARD ALL, deferred from its return to the pool) failed") != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("discard failed on purpose") != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("the command did not run") != std::string::npos);
			}
			CPPUNIT_ASSERT(unreset->isBroken());   // never reused unreset
			CPPUNIT_ASSERT(failing.waitForActiveConnections(0, Poco::Timespan(2, 0)));
			CPPUNIT_ASSERT_EQUAL(std::string("DISCARD ALL"), failing.queries().back());   // the server skipped the command
			CPPUNIT_ASSERT_THROW(unreset->executeSimple("SELECT 1"), BlueTuskSessionBrokenException);
		}
	}

	void testBrokenSession()
	{
		FakeBackend backend(BackendScript::primary());
		ProtocolSession::Ptr session = open(settingsFor(backend.hostAndPort()));
		CPPUNIT_ASSERT(!session->isBroken());
		backend.closeAllConnections(true);
		CPPUNIT_ASSERT(backend.waitForActiveConnections(0, Poco::Timespan(2, 0)));
		try
		{
			session->executeSimple("SELECT 1");
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskSessionBrokenException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("connection to " + backend.hostAndPort()) != std::string::npos);
		}
		CPPUNIT_ASSERT(session->isBroken());
		CPPUNIT_ASSERT_THROW(session->reset(true), BlueTuskSessionBrokenException);
		session->close();
	}

	void testCommandTimeoutWithoutAnswer()
	{
		FakeBackend backend(BackendScript::primary().answer("SELECT slow", QueryAnswer::value("late").delay(10000)));
		TcpProxy proxy(backend.address());
		ProtocolSession::Ptr session = open(settingsFor(proxy.hostAndPort(), "Command Timeout=0.2"));
		proxy.setMode(TcpProxy::Mode::Refuse); // the CancelRequest (a new connection) cannot reach the server
		Poco::Clock started;
		try
		{
			session->executeSimple("SELECT slow");
			CPPUNIT_FAIL("must fail");
		}
		catch (BlueTuskSessionBrokenException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(int(AddressAttempt::TIMED_OUT), exc.code());
			CPPUNIT_ASSERT(exc.message().find("command timeout of 200 ms") != std::string::npos);
		}
		const Poco::Clock::ClockDiff elapsed = started.elapsed();
		CPPUNIT_ASSERT(elapsed >= 400000 && elapsed < 2000000); // 0.2 s + 0.25 s grace (the minimum)
		CPPUNIT_ASSERT(session->isBroken());
		CPPUNIT_ASSERT_EQUAL(0, backend.cancelRequests());
	}

	void testOpenCancellable()
	{
		FakeBackend silent(BackendScript::hang());
		ConnectionSettings settings = settingsFor(silent.hostAndPort(), "Timeout=10");
		ProtocolSessionFactory factory;
		OpenCancellation cancellation;
		std::thread canceller([&cancellation] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); cancellation.cancel(); });
		Poco::Clock started;
		try
		{
			factory.openCancellable(settings.endpoints[0], settings, cancellation);
			canceller.join();
			CPPUNIT_FAIL("must be cancelled");
		}
		catch (BlueTuskTransportException& exc)
		{
			canceller.join();
			CPPUNIT_ASSERT_EQUAL(std::string("connection attempt to " + silent.hostAndPort() + " cancelled"), exc.message());
		}
		CPPUNIT_ASSERT(started.elapsed() < 1000000);
		CPPUNIT_ASSERT(silent.waitForActiveConnections(0, Poco::Timespan(2, 0)));

		// a black-holed connect is cancelled too
		BlackHoleListener hole("127.0.0.1");
		ConnectionSettings holeSettings = settingsFor(Dialer::describe(hole.address()), "Timeout=10");
		OpenCancellation second;
		std::thread secondCanceller([&second] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); second.cancel(); });
		Poco::Clock holeStarted;
		CPPUNIT_ASSERT_THROW(factory.openCancellable(holeSettings.endpoints[0], holeSettings, second), BlueTuskTransportException);
		secondCanceller.join();
		CPPUNIT_ASSERT(holeStarted.elapsed() < 1000000);

		// not cancelled: a normal session
		FakeBackend good(BackendScript::primary());
		OpenCancellation unused;
		Session::Ptr session = factory.openCancellable(good.endpoint(), settingsFor(good.hostAndPort()), unused);
		CPPUNIT_ASSERT(!session->isBroken());
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), session->executeSimple("SELECT 1").size());
		// already cancelled: nothing is tried
		OpenCancellation early;
		early.cancel();
		CPPUNIT_ASSERT_THROW(factory.openCancellable(good.endpoint(), settingsFor(good.hostAndPort()), early), BlueTuskTransportException);
		CPPUNIT_ASSERT_EQUAL(1, good.startupMessages());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PeerSessionTest);
