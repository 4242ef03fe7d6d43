//
// MessageReaderSpateTest.cpp
//
// MessageReader's spates (doc/performance.md, "11a-11c: where the bulk paths wait"): once reads have been
// at least 8 KiB for MessageReader::SPATE_AFTER_US, a read that would block waits for 64 KiB (SO_RCVLOWAT)
// at most SPATE_WAIT_US. Over a loopback TCP pair, a peer thread playing the server: every byte arrives,
// in order, also when the peer pauses longer than the wait, and the socket's low water mark is back at
// 1 byte afterwards (a later read never waits for bytes that do not come). No server.
//

#include "protocol/MessageReader.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Thread.h"
#include "Poco/Clock.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sys/socket.h>
#include <string>
#include <thread>

using namespace BlueTusk;


class MessageReaderSpateTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MessageReaderSpateTest);
	CPPUNIT_TEST(testSpateDeliversEveryMessage);
	CPPUNIT_TEST(testPauseLongerThanTheWait);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSpateDeliversEveryMessage()
	{
		// 40 ms of 8 KiB flushes (a spate four times as long as SPATE_AFTER_US), then the end of the
		// result, shorter than the low water mark, then ReadyForQuery and one more answer.
		Pair pair;
		const int rows = run(pair, 40000, 0);
		CPPUNIT_ASSERT(rows > 1000);
		CPPUNIT_ASSERT_EQUAL(1, lowWater(pair.client));
	}

	void testPauseLongerThanTheWait()
	{
		// The peer stops for 20 ms (40 times SPATE_WAIT_US) in the middle of a message of a spate: the
		// waiting read times out, takes what is there, and the rest follows.
		Pair pair;
		const int rows = run(pair, 30000, 20000);
		CPPUNIT_ASSERT(rows > 1000);
		CPPUNIT_ASSERT_EQUAL(1, lowWater(pair.client));
	}

private:
	struct Pair
		/// A connected loopback pair: client (the reader's side) and peer (the server's side).
	{
		Poco::Net::ServerSocket listener{Poco::Net::SocketAddress("127.0.0.1", 0)};
		Poco::Net::StreamSocket client{listener.address()};
		Poco::Net::StreamSocket peer{listener.acceptConnection()};
	};

	static std::string message(char type, const std::string& body)
	{
		std::string m(1, type);
		const std::size_t length = body.size() + 4;
		m += static_cast<char>((length >> 24) & 0xFF);
		m += static_cast<char>((length >> 16) & 0xFF);
		m += static_cast<char>((length >> 8) & 0xFF);
		m += static_cast<char>(length & 0xFF);
		return m + body;
	}

	static std::string row(int i)
	{
		return message('D', "row-" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 37), 'x'));
	}

	static void sendAll(Poco::Net::StreamSocket& socket, const std::string& bytes)
	{
		std::size_t sent = 0;
		while (sent < bytes.size()) sent += static_cast<std::size_t>(socket.sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent)));
	}

	static int lowWater(Poco::Net::StreamSocket& socket)
	{
		int value = 0;
		socklen_t length = sizeof(value);
		CPPUNIT_ASSERT_EQUAL(0, ::getsockopt(socket.impl()->sockfd(), SOL_SOCKET, SO_RCVLOWAT, &value, &length));
		return value;
	}

	static int run(Pair& pair, long spateUs, long pauseUs)
		/// The peer sends rows in 8 KiB writes for spateUs (pausing pauseUs once, halfway, inside a row),
		/// then 'C', 'Z' and, 5 ms later, one 'N'; the reader checks every message in order. Returns the rows.
	{
		int sentRows = 0;
		std::thread server([&]
		{
			std::string pending;
			int i = 0;
			bool paused = pauseUs == 0;
			const Poco::Clock started;
			while (started.elapsed() < spateUs)
			{
				while (pending.size() < 8192) pending += row(i++);
				if (!paused && started.elapsed() > spateUs / 2)
				{
					sendAll(pair.peer, pending.substr(0, 8195));   // 3 bytes into the next row
					Poco::Thread::sleep(static_cast<long>(pauseUs / 1000));
					pending.erase(0, 8195);
					paused = true;
					continue;
				}
				sendAll(pair.peer, pending.substr(0, 8192));
				pending.erase(0, 8192);
				Poco::Thread::sleep(0);
			}
			sentRows = i;
			sendAll(pair.peer, pending + message('C', std::string("SELECT ") + std::to_string(i) + '\0') + message('Z', "I"));
			Poco::Thread::sleep(5);
			sendAll(pair.peer, message('N', "after"));
		});
		MessageReader reader;
		BackendMessage received;
		int rows = 0;
		bool ok = true;
		for (;;)
		{
			reader.receive(pair.client, received);
			if (received.type == 'D')
			{
				ok = ok && received.body == row(rows).substr(5);
				++rows;
				continue;
			}
			break;
		}
		CPPUNIT_ASSERT_EQUAL('C', received.type);
		reader.receive(pair.client, received);
		CPPUNIT_ASSERT_EQUAL('Z', received.type);
		reader.receive(pair.client, received);
		CPPUNIT_ASSERT_EQUAL('N', received.type);
		CPPUNIT_ASSERT_EQUAL(std::string("after"), received.body);
		server.join();
		CPPUNIT_ASSERT(ok);
		CPPUNIT_ASSERT_EQUAL(sentRows, rows);
		CPPUNIT_ASSERT_EQUAL(std::size_t(0), reader.buffered());
		return rows;
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(MessageReaderSpateTest);
