//
// DialerTest.cpp
//
// Resolver order (StaticResolver, SystemResolver), what the Dialer resolves and what it skips, per-address
// diagnostics in order, outcome classification, the Deadline, and cancellation. Everything on loopback.
//

#include "BlueTusk/BlueTuskException.h"
#include "connect/CancellationWatch.h"
#include "connect/Dialer.h"
#include "BlueTusk/Session.h"
#include "connect/StaticResolver.h"
#include "connect/SystemResolver.h"
#include "Poco/Clock.h"
#include "Poco/Net/NetException.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SSLException.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cerrno>
#include <thread>

using namespace BlueTusk;

namespace {

Poco::UInt16 refusedPort()
	/// A loopback port with nothing listening (bound and released: connects are refused).
{
	Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
	Poco::UInt16 port = probe.address().port();
	probe.close();
	return port;
}

} // namespace


class DialerTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(DialerTest);
	CPPUNIT_TEST(testStaticResolver);
	CPPUNIT_TEST(testSystemResolver);
	CPPUNIT_TEST(testAddressesOf);
	CPPUNIT_TEST(testUnresolvableName);
	CPPUNIT_TEST(testTriesAddressesInOrder);
	CPPUNIT_TEST(testSetupFailureMovesOn);
	CPPUNIT_TEST(testServerErrorIsNotRetried);
	CPPUNIT_TEST(testClassify);
	CPPUNIT_TEST(testDescribe);
	CPPUNIT_TEST(testDeadline);
	CPPUNIT_TEST(testExpiredDeadline);
	CPPUNIT_TEST(testCancelled);
	CPPUNIT_TEST_SUITE_END();

public:
	void testStaticResolver()
	{
		StaticResolver resolver;
		resolver.add("db", std::vector<std::string>{"::1", "127.0.0.2", "127.0.0.3:6000", "[::1]:7000"});
		std::vector<Poco::Net::SocketAddress> addresses = resolver.resolve("db", 5432);
		CPPUNIT_ASSERT_EQUAL(std::size_t(4), addresses.size());
		CPPUNIT_ASSERT_EQUAL(std::string("[::1]:5432"), addresses[0].toString());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2:5432"), addresses[1].toString());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.3:6000"), addresses[2].toString());
		CPPUNIT_ASSERT_EQUAL(std::string("[::1]:7000"), addresses[3].toString());
		CPPUNIT_ASSERT_EQUAL(1, resolver.resolveCount("db"));
		CPPUNIT_ASSERT_THROW(resolver.resolve("other", 5432), Poco::Net::HostNotFoundException);
		CPPUNIT_ASSERT_EQUAL(1, resolver.resolveCount("other"));
		CPPUNIT_ASSERT_THROW(resolver.add("x", std::vector<std::string>{"not-an-address"}), Poco::InvalidArgumentException);

		auto fallback = std::make_shared<StaticResolver>();
		fallback->add("other", std::vector<std::string>{"127.0.0.9"});
		StaticResolver chained(fallback);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.9:1"), chained.resolve("other", 1).at(0).toString());
		resolver.remove("db");
		CPPUNIT_ASSERT_THROW(resolver.resolve("db", 5432), Poco::Net::HostNotFoundException);
		resolver.clear();
		CPPUNIT_ASSERT_EQUAL(0, resolver.resolveCount("db"));
	}

	void testSystemResolver()
	{
		SystemResolver resolver;
		std::vector<Poco::Net::SocketAddress> addresses = resolver.resolve("localhost", 5432);
		CPPUNIT_ASSERT(!addresses.empty());
		bool hasV4 = false;
		for (std::size_t i = 0; i < addresses.size(); ++i)
		{
			CPPUNIT_ASSERT_EQUAL(Poco::UInt16(5432), addresses[i].port());
			CPPUNIT_ASSERT(addresses[i].host().isLoopback());
			if (addresses[i].family() == Poco::Net::SocketAddress::IPv4) hasV4 = true;
			for (std::size_t j = i + 1; j < addresses.size(); ++j) CPPUNIT_ASSERT(!(addresses[i] == addresses[j]));
		}
		CPPUNIT_ASSERT(hasV4);
		// glibc puts ::1 before 127.0.0.1 for a name with both (RFC 6724); the order is kept, not re-sorted
		if (addresses.size() == 2 && addresses[1].family() == Poco::Net::SocketAddress::IPv4)
			CPPUNIT_ASSERT(addresses[0].family() == Poco::Net::SocketAddress::IPv6);
		CPPUNIT_ASSERT_THROW(resolver.resolve("no-such-host.invalid", 5432), Poco::Net::HostNotFoundException);
		CPPUNIT_ASSERT(Resolver::defaultResolver().get() == Resolver::defaultResolver().get());
	}

	void testAddressesOf()
	{
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db", std::vector<std::string>{"127.0.0.5", "::1"});
		Dialer dialer(resolver);
		CPPUNIT_ASSERT(dialer.resolver() == resolver);
		std::vector<Poco::Net::SocketAddress> named = dialer.addressesOf(BlueTuskHostEndpoint("db", 6432));
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), named.size());
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.5:6432"), named[0].toString());
		// literals and socket directories are not resolved
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.7:5432"), dialer.addressesOf(BlueTuskHostEndpoint("127.0.0.7", 5432)).at(0).toString());
		CPPUNIT_ASSERT_EQUAL(std::string("[::1]:5433"), dialer.addressesOf(BlueTuskHostEndpoint("[::1]", 5433)).at(0).toString());
		std::vector<Poco::Net::SocketAddress> socket = dialer.addressesOf(BlueTuskHostEndpoint("/var/run/postgresql", 5432));
		CPPUNIT_ASSERT(socket.at(0).family() == Poco::Net::SocketAddress::UNIX_LOCAL);
		CPPUNIT_ASSERT_EQUAL(std::string("/var/run/postgresql/.s.PGSQL.5432"), Dialer::describe(socket[0]));
		CPPUNIT_ASSERT_EQUAL(1, resolver->resolveCount("db"));
		CPPUNIT_ASSERT_EQUAL(0, resolver->resolveCount("127.0.0.7"));
		CPPUNIT_ASSERT_EQUAL(0, resolver->resolveCount("/var/run/postgresql"));
	}

	void testUnresolvableName()
	{
		Dialer dialer(std::make_shared<StaticResolver>());
		try
		{
			dialer.dial(BlueTuskHostEndpoint("nowhere", 5432), Poco::Timespan(1, 0));
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("nowhere:5432"), exc.endpoint());
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), exc.attempts().size());
			CPPUNIT_ASSERT_EQUAL(std::string("nowhere"), exc.attempts()[0].address);
			CPPUNIT_ASSERT_EQUAL(AddressAttempt::OTHER, exc.attempts()[0].outcome);
			CPPUNIT_ASSERT_EQUAL(std::string("could not connect to nowhere:5432: nowhere error (could not translate host name \"nowhere\" "
				"to address: not in the StaticResolver table) after 0.0 ms"), exc.message());
		}
	}

	void testTriesAddressesInOrder()
	{
		const Poco::UInt16 refused1 = refusedPort();
		const Poco::UInt16 refused2 = refusedPort();
		Poco::Net::ServerSocket listener(Poco::Net::SocketAddress("127.0.0.3", 0));
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("three", Poco::Net::SocketAddress("127.0.0.1", refused1));
		resolver->add("three", Poco::Net::SocketAddress("127.0.0.2", refused2));
		resolver->add("three", listener.address());
		Dialer dialer(resolver);
		Dialer::Result result = dialer.dial(BlueTuskHostEndpoint("three", 5432), Poco::Timespan(2, 0));
		CPPUNIT_ASSERT_EQUAL(listener.address().toString(), result.address.toString());
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), result.attempts.size());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::REFUSED, result.attempts[0].outcome);
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:") + std::to_string(refused1), result.attempts[0].address);
		CPPUNIT_ASSERT_EQUAL(std::string("Connection refused"), result.attempts[0].errorText);
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::REFUSED, result.attempts[1].outcome);
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CONNECTED, result.attempts[2].outcome);
		CPPUNIT_ASSERT(result.attempts[0].elapsedMs < 500);
		CPPUNIT_ASSERT_EQUAL(1, resolver->resolveCount("three"));
		Poco::Net::StreamSocket accepted = listener.acceptConnection();
		CPPUNIT_ASSERT_EQUAL(result.socket.address().toString(), accepted.peerAddress().toString());

		// all refused: one exception naming the endpoint and each address in order
		resolver->clear();
		resolver->add("two", Poco::Net::SocketAddress("127.0.0.1", refused1));
		resolver->add("two", Poco::Net::SocketAddress("127.0.0.2", refused2));
		try
		{
			dialer.dial(BlueTuskHostEndpoint("two", 5432), Poco::Timespan(2, 0));
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::size_t(2), exc.attempts().size());
			const std::string first = "127.0.0.1:" + std::to_string(refused1) + " refused (Connection refused)";
			const std::string second = "127.0.0.2:" + std::to_string(refused2) + " refused (Connection refused)";
			CPPUNIT_ASSERT_EQUAL(std::string("could not connect to two:5432: ") + first, exc.message().substr(0, 31 + first.size()));
			CPPUNIT_ASSERT(exc.message().find(second) > exc.message().find(first));
			CPPUNIT_ASSERT(exc.nested());
			CPPUNIT_ASSERT(exc.nested()->message().find(second) != std::string::npos);
		}
	}

	void testSetupFailureMovesOn()
	{
		Poco::Net::ServerSocket first(Poco::Net::SocketAddress("127.0.0.1", 0));
		Poco::Net::ServerSocket second(Poco::Net::SocketAddress("127.0.0.2", 0));
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db", first.address());
		resolver->add("db", second.address());
		Dialer dialer(resolver);
		int calls = 0;
		Dialer::Result result = dialer.dial(BlueTuskHostEndpoint("db", 5432), Deadline(Poco::Timespan(2, 0)),
			[&calls](Poco::Net::StreamSocket&, const Poco::Net::SocketAddress&)
			{
				if (++calls == 1) throw BlueTuskSessionBrokenException("the server closed the connection unexpectedly", AddressAttempt::CLOSED);
			});
		CPPUNIT_ASSERT_EQUAL(2, calls);
		CPPUNIT_ASSERT_EQUAL(second.address().toString(), result.address.toString());
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CLOSED, result.attempts.at(0).outcome);
		CPPUNIT_ASSERT_EQUAL(std::string("the server closed the connection unexpectedly"), result.attempts[0].errorText);
	}

	void testServerErrorIsNotRetried()
	{
		Poco::Net::ServerSocket first(Poco::Net::SocketAddress("127.0.0.1", 0));
		Poco::Net::ServerSocket second(Poco::Net::SocketAddress("127.0.0.2", 0));
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db", first.address());
		resolver->add("db", second.address());
		Dialer dialer(resolver);
		int calls = 0;
		BlueTuskServerException::Fields fields;
		fields.severity = "FATAL";
		fields.sqlState = "57P03";
		fields.message = "the database system is starting up";
		CPPUNIT_ASSERT_THROW(dialer.dial(BlueTuskHostEndpoint("db", 5432), Deadline(Poco::Timespan(2, 0)),
			[&](Poco::Net::StreamSocket&, const Poco::Net::SocketAddress&) { ++calls; throw BlueTuskServerException(fields, false); }),
			BlueTuskServerException);
		CPPUNIT_ASSERT_EQUAL(1, calls);
		calls = 0;
		CPPUNIT_ASSERT_THROW(dialer.dial(BlueTuskHostEndpoint("db", 5432), Deadline(Poco::Timespan(2, 0)),
			[&](Poco::Net::StreamSocket&, const Poco::Net::SocketAddress&) { ++calls; throw BlueTuskAuthenticationException("rejected"); }),
			BlueTuskAuthenticationException);
		CPPUNIT_ASSERT_EQUAL(1, calls);
	}

	void testClassify()
	{
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::REFUSED, Dialer::classify(Poco::Net::ConnectionRefusedException("x")));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TIMED_OUT, Dialer::classify(Poco::TimeoutException()));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::RESET, Dialer::classify(Poco::Net::ConnectionResetException()));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::UNREACHABLE, Dialer::classify(Poco::Net::NetException("x", EHOSTUNREACH)));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::UNREACHABLE, Dialer::classify(Poco::Net::NetException("x", ENETUNREACH)));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::REFUSED, Dialer::classify(Poco::Net::NetException("x", ENOENT)));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, Dialer::classify(Poco::Net::SSLException("x")));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::TLS_FAILURE, Dialer::classify(Poco::Net::CertificateValidationException("x")));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::CLOSED, Dialer::classify(BlueTuskSessionBrokenException("x")));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::RESET, Dialer::classify(BlueTuskSessionBrokenException("x", AddressAttempt::RESET)));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::PROTOCOL_ERROR, Dialer::classify(BlueTuskProtocolException("x")));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::SERVER_ERROR, Dialer::classify(BlueTuskServerException("x")));
		CPPUNIT_ASSERT_EQUAL(AddressAttempt::OTHER, Dialer::classify(Poco::InvalidArgumentException("x")));
		CPPUNIT_ASSERT(Dialer::isRetryable(Poco::Net::SSLException("x")));
		CPPUNIT_ASSERT(Dialer::isRetryable(Poco::TimeoutException()));
		CPPUNIT_ASSERT(Dialer::isRetryable(BlueTuskProtocolException("x")));
		CPPUNIT_ASSERT(!Dialer::isRetryable(BlueTuskServerException("x")));
		CPPUNIT_ASSERT(!Dialer::isRetryable(BlueTuskAuthenticationException("x")));
		CPPUNIT_ASSERT(!Dialer::isRetryable(Poco::InvalidArgumentException("x")));
		const Poco::Net::SocketAddress address("127.0.0.1", 5432);
		CPPUNIT_ASSERT_EQUAL(std::string("Connection refused"), Dialer::errorText(Poco::Net::ConnectionRefusedException("127.0.0.1:5432"), address));
		CPPUNIT_ASSERT_EQUAL(std::string("connect timed out"), Dialer::errorText(Poco::TimeoutException("connect timed out", "127.0.0.1:5432"), address));
		CPPUNIT_ASSERT_EQUAL(std::string("timed out"), Dialer::errorText(Poco::TimeoutException(), address));
	}

	void testDescribe()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:5432"), Dialer::describe(Poco::Net::SocketAddress("127.0.0.1", 5432)));
		CPPUNIT_ASSERT_EQUAL(std::string("[::1]:5432"), Dialer::describe(Poco::Net::SocketAddress("::1", 5432)));
		CPPUNIT_ASSERT_EQUAL(std::string("/tmp/.s.PGSQL.5432"), Dialer::describe(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, "/tmp/.s.PGSQL.5432")));
	}

	void testDeadline()
	{
		Deadline unlimited;
		CPPUNIT_ASSERT(unlimited.isUnlimited());
		CPPUNIT_ASSERT(!unlimited.expired());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), unlimited.socketTimeout().totalMicroseconds());
		CPPUNIT_ASSERT(Deadline(Poco::Timespan(0)).isUnlimited());
		Deadline short_(Poco::Timespan(0, 50000));
		CPPUNIT_ASSERT(!short_.isUnlimited());
		CPPUNIT_ASSERT(!short_.expired());
		CPPUNIT_ASSERT(short_.socketTimeout().totalMicroseconds() <= 50000);
		CPPUNIT_ASSERT(short_.socketTimeout().totalMicroseconds() > 0);
		std::this_thread::sleep_for(std::chrono::milliseconds(60));
		CPPUNIT_ASSERT(short_.expired());
		CPPUNIT_ASSERT(short_.remaining().totalMicroseconds() <= 0);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000), short_.socketTimeout().totalMicroseconds());
		CPPUNIT_ASSERT(short_.elapsed().totalMilliseconds() >= 60);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(50), short_.timeout().totalMilliseconds());
	}

	void testExpiredDeadline()
	{
		const Poco::UInt16 refused = refusedPort();
		auto resolver = std::make_shared<StaticResolver>();
		Dialer dialer(resolver);
		Poco::Net::ServerSocket listener(Poco::Net::SocketAddress("127.0.0.1", 0));
		resolver->clear();
		resolver->add("db", listener.address());
		resolver->add("db", Poco::Net::SocketAddress("127.0.0.2", refused));
		try
		{
			dialer.dial(BlueTuskHostEndpoint("db", 5432), Deadline(Poco::Timespan(0, 100000)),
				[](Poco::Net::StreamSocket&, const Poco::Net::SocketAddress&) { std::this_thread::sleep_for(std::chrono::milliseconds(150)); throw Poco::TimeoutException("no answer"); });
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskTransportException& exc)
		{
			CPPUNIT_ASSERT_EQUAL(std::size_t(2), exc.attempts().size());
			CPPUNIT_ASSERT_EQUAL(AddressAttempt::TIMED_OUT, exc.attempts()[0].outcome);
			CPPUNIT_ASSERT_EQUAL(std::string("no answer"), exc.attempts()[0].errorText);
			CPPUNIT_ASSERT_EQUAL(AddressAttempt::NOT_ATTEMPTED, exc.attempts()[1].outcome);
			CPPUNIT_ASSERT(exc.attempts()[1].errorText.find("connect timeout of 100 ms had run out") != std::string::npos);
		}
	}

	void testCancelled()
	{
		Poco::Net::ServerSocket listener(Poco::Net::SocketAddress("127.0.0.1", 0));
		auto resolver = std::make_shared<StaticResolver>();
		resolver->add("db", listener.address());
		resolver->add("db", listener.address());
		Dialer dialer(resolver);
		OpenCancellation cancellation;
		Poco::Clock started;
		std::thread canceller([&cancellation] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); cancellation.cancel(); });
		try
		{
			CancellationWatch watch(cancellation);
			Deadline deadline(Poco::Timespan(10, 0), &watch);
			dialer.dial(BlueTuskHostEndpoint("db", 5432), deadline, [&deadline](Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress&)
			{
				// a server that never answers: the receive ends when the watch shuts the socket down
				socket.setReceiveTimeout(deadline.socketTimeout());
				char byte;
				if (socket.receiveBytes(&byte, 1) <= 0) throw BlueTuskSessionBrokenException("closed", AddressAttempt::CLOSED);
			});
			canceller.join();
			CPPUNIT_FAIL("must throw");
		}
		catch (BlueTuskTransportException& exc)
		{
			canceller.join();
			CPPUNIT_ASSERT(exc.message().find("cancelled") != std::string::npos);
		}
		CPPUNIT_ASSERT(started.elapsed() < 1000000);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DialerTest);
