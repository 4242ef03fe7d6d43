//
// RejectPlainFront.h
//
// A loopback front for the SSL Mode=allow test: its first connection gets FATAL 28000 "no encryption"
// after the StartupMessage (as pg_hba.conf "hostssl" only would answer); later connections are forwarded
// byte for byte to a real node, so the TLS retry reaches the real server.
//

#ifndef BlueTusk_RejectPlainFront_INCLUDED
#define BlueTusk_RejectPlainFront_INCLUDED

#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Test {

class RejectPlainFront
{
public:
	explicit RejectPlainFront(const Poco::Net::SocketAddress& target):
		_target(target),
		_server(Poco::Net::SocketAddress("127.0.0.1", 0))
	{
		_server.setReceiveTimeout(Poco::Timespan(0, 100000));
		_acceptor = std::thread([this] { acceptLoop(); });
	}

	~RejectPlainFront()
	{
		_stop = true;
		_acceptor.join();
		for (auto& socket: _sockets)
		{
			try { socket.shutdown(); } catch (...) { }
		}
		for (auto& thread: _pumps) thread.join();
	}

	Poco::UInt16 port() const
	{
		return _server.address().port();
	}

	int connections() const
	{
		return _connections;
	}

	bool firstSawSslRequest() const
	{
		return _firstSawSslRequest;
	}

private:
	void acceptLoop()
	{
		while (!_stop)
		{
			Poco::Net::StreamSocket client;
			try
			{
				client = _server.acceptConnection();
			}
			catch (Poco::Exception&)
			{
				continue;
			}
			if (_connections++ == 0)
				rejectFirst(client);
			else
				forward(client);
		}
	}

	static bool readMessage(Poco::Net::StreamSocket& socket, std::string& body)
	{
		unsigned char header[4];
		int got = 0;
		while (got < 4)
		{
			int n = socket.receiveBytes(header + got, 4 - got);
			if (n <= 0) return false;
			got += n;
		}
		int length = (header[0] << 24) | (header[1] << 16) | (header[2] << 8) | header[3];
		body.assign(static_cast<std::size_t>(length - 4), '\0');
		got = 0;
		while (got < length - 4)
		{
			int n = socket.receiveBytes(&body[got], length - 4 - got);
			if (n <= 0) return false;
			got += n;
		}
		return true;
	}

	void rejectFirst(Poco::Net::StreamSocket& client)
	{
		client.setReceiveTimeout(Poco::Timespan(5, 0));
		std::string body;
		if (!readMessage(client, body) || body.size() < 4) return;
		if (body.compare(0, 4, std::string("\x04\xd2\x16\x2f", 4)) == 0)
		{
			_firstSawSslRequest = true;
			return;
		}
		std::string fields;
		fields += "SFATAL"; fields.push_back('\0');
		fields += "VFATAL"; fields.push_back('\0');
		fields += "C28000"; fields.push_back('\0');
		fields += "Mno pg_hba.conf entry for host \"127.0.0.1\", user \"bluetusk\", database \"bluetusk\", no encryption"; fields.push_back('\0');
		fields.push_back('\0');
		std::string message = "E";
		Poco::UInt32 length = static_cast<Poco::UInt32>(fields.size() + 4);
		message.push_back(static_cast<char>(length >> 24));
		message.push_back(static_cast<char>(length >> 16));
		message.push_back(static_cast<char>(length >> 8));
		message.push_back(static_cast<char>(length));
		message += fields;
		client.sendBytes(message.data(), static_cast<int>(message.size()));
		client.close();
	}

	void forward(Poco::Net::StreamSocket& client)
	{
		client.setReceiveTimeout(Poco::Timespan(0)); // accepted sockets inherit the listener's timeout
		Poco::Net::StreamSocket server;
		server.connect(_target, Poco::Timespan(5, 0));
		_sockets.push_back(client);
		_sockets.push_back(server);
		_pumps.emplace_back([client, server]() mutable { pump(client, server); });
		_pumps.emplace_back([client, server]() mutable { pump(server, client); });
	}

	static void pump(Poco::Net::StreamSocket from, Poco::Net::StreamSocket to)
	{
		char buffer[16384];
		try
		{
			for (;;)
			{
				int n = from.receiveBytes(buffer, sizeof(buffer));
				if (n <= 0) break;
				to.sendBytes(buffer, n);
			}
			to.shutdownSend();
		}
		catch (Poco::Exception&)
		{
			try { to.shutdown(); } catch (...) { }
		}
	}

	Poco::Net::SocketAddress _target;
	Poco::Net::ServerSocket _server;
	std::atomic<bool> _stop{false};
	std::atomic<int> _connections{0};
	std::atomic<bool> _firstSawSslRequest{false};
	std::thread _acceptor;
	std::vector<Poco::Net::StreamSocket> _sockets;
	std::vector<std::thread> _pumps;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_RejectPlainFront_INCLUDED
