//
// MessageWriterSendTest.cpp
//
// MessageWriter's partial sends, which a pipeline uses: send(socket, end) writes only up to end, and
// sendAhead() never waits, even when the peer reads nothing (a server blocked on answers nobody reads).
// Over a loopback TCP pair; no server.
//

#include "protocol/MessageWriter.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace BlueTusk;


class MessageWriterSendTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MessageWriterSendTest);
	CPPUNIT_TEST(testSendUpToEnd);
	CPPUNIT_TEST(testSendAheadDoesNotWait);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSendUpToEnd()
	{
		Pair pair;
		MessageWriter writer;
		writer.flush();                       // 'H' + length 4: 5 bytes
		const std::size_t first = writer.size();
		writer.sync();                        // 'S' + length 4
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), first);
		writer.send(pair.client, first);
		CPPUNIT_ASSERT_EQUAL(std::string("H\0\0\0\4", 5), pair.receive(5));
		CPPUNIT_ASSERT(!writer.empty());      // the Sync is still to send
		writer.send(pair.client);
		CPPUNIT_ASSERT_EQUAL(std::string("S\0\0\0\4", 5), pair.receive(5));
		CPPUNIT_ASSERT(writer.empty());
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), writer.size());
	}

	void testSendAheadDoesNotWait()
	{
		// 64 MiB is far more than the two socket buffers hold: a waiting send would block for good,
		// sendAhead() returns with the rest left; once the peer has read, it sends more.
		Pair pair;
		MessageWriter writer;
		const std::string value(1 << 20, 'x');
		for (int i = 0; i < 64; ++i)
		{
			writer.begin('d');
			writer.putBytes(value);
			writer.end();
		}
		const std::size_t total = writer.size();
		const Poco::Clock started;
		const std::size_t left = writer.sendAhead(pair.client, total);
		CPPUNIT_ASSERT(left > 0 && left < total);
		CPPUNIT_ASSERT(started.elapsed() < 5 * Poco::Clock::resolution());   // returned, no Timeout involved
		const std::size_t sent = total - left;
		CPPUNIT_ASSERT_EQUAL(sent, pair.receive(sent).size());
		const std::size_t later = writer.sendAhead(pair.client, total);
		CPPUNIT_ASSERT(later < left);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), writer.sendAhead(pair.client, writer.size() - later));   // nothing due up to there
		writer.clear();
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), writer.size());
	}

private:
	struct Pair
		/// A connected loopback pair: client (the writer's side) and peer, which reads only when asked.
	{
		Poco::Net::ServerSocket listener{Poco::Net::SocketAddress("127.0.0.1", 0)};
		Poco::Net::StreamSocket client{listener.address()};
		Poco::Net::StreamSocket peer{listener.acceptConnection()};

		std::string receive(std::size_t bytes)
		{
			peer.setReceiveTimeout(Poco::Timespan(5, 0));
			std::string data(bytes, '\0');
			std::size_t got = 0;
			while (got < bytes)
			{
				const int n = peer.receiveBytes(&data[got], static_cast<int>(std::min<std::size_t>(bytes - got, 1 << 20)));
				if (n <= 0) break;
				got += static_cast<std::size_t>(n);
			}
			data.resize(got);
			return data;
		}
	};
};


CPPUNIT_TEST_SUITE_REGISTRATION(MessageWriterSendTest);
