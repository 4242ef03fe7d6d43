//
// RawClient.cpp
//

#include "RawClient.h"
#include "Poco/DigestEngine.h"
#include "Poco/Exception.h"
#include "Poco/MD5Engine.h"
#include "Poco/Net/NetException.h"
#include <sys/socket.h>

namespace BlueTusk {
namespace Test {

namespace
{
	std::string md5Hex(const std::string& data)
	{
		Poco::MD5Engine md5;
		md5.update(data);
		return Poco::DigestEngine::digestToHex(md5.digest());
	}
}


RawClient::RawClient(const Poco::Net::SocketAddress& address, const Poco::Timespan& timeout)
{
	_socket.connect(address, timeout);
	_socket.setReceiveTimeout(timeout);
}


RawClient::~RawClient()
{
	try
	{
		_socket.close();
	}
	catch (...)
	{
	}
}


void RawClient::send(const std::string& bytes)
{
	_socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()), MSG_NOSIGNAL);
}


namespace
{
	bool readExact(Poco::Net::StreamSocket& socket, char* buffer, std::size_t length)
	{
		std::size_t done = 0;
		while (done < length)
		{
			int n = socket.receiveBytes(buffer + done, static_cast<int>(length - done));
			if (n <= 0) return false;
			done += static_cast<std::size_t>(n);
		}
		return true;
	}
}


bool RawClient::readMessage(char& type, std::string& body)
{
	char header[5];
	try
	{
		if (!readExact(_socket, header, 5)) return false;
	}
	catch (Poco::Net::ConnectionResetException&)
	{
		return false;
	}
	type = header[0];
	Poco::Int32 length = Wire::MessageReader(std::string(header + 1, 4)).int32();
	if (length < 4 || length > (1 << 20)) throw Poco::DataFormatException("bad message length");
	body.assign(static_cast<std::size_t>(length - 4), '\0');
	return body.empty() || readExact(_socket, &body[0], body.size());
}


std::string RawClient::readAll()
{
	std::string all;
	char buffer[1024];
	for (;;)
	{
		int n = _socket.receiveBytes(buffer, sizeof(buffer));
		if (n <= 0) return all;
		all.append(buffer, static_cast<std::size_t>(n));
	}
}


RawResult RawClient::readUntilReady(const std::string& password, const std::string& user)
{
	RawResult result;
	for (;;)
	{
		char type = 0;
		std::string body;
		if (!readMessage(type, body))
		{
			result.eof = true;
			return result;
		}
		result.types.push_back(type);
		Wire::MessageReader reader(body);
		switch (type)
		{
		case 'R':
		{
			Poco::Int32 code = reader.int32();
			result.authentications.push_back(code);
			if (code == 3) send(Wire::MessageWriter('p').cstring(password).finish());
			else if (code == 5)
			{
				std::string salt = reader.bytes(4);
				send(Wire::MessageWriter('p').cstring("md5" + md5Hex(md5Hex(password + user) + salt)).finish());
			}
			break;
		}
		case 'S':
		{
			std::string name = reader.cstring();
			result.parameters[name] = reader.cstring();
			break;
		}
		case 'K':
			result.processId = reader.int32();
			result.secretKey = reader.int32();
			break;
		case 'T':
		{
			int count = reader.int16();
			for (int i = 0; i < count; ++i)
			{
				result.columns.push_back(reader.cstring());
				reader.int32();
				reader.int16();
				result.columnTypes.push_back(static_cast<Poco::UInt32>(reader.int32()));
				reader.int16();
				reader.int32();
				reader.int16();
			}
			break;
		}
		case 'D':
		{
			int count = reader.int16();
			Wire::TextRow row;
			for (int i = 0; i < count; ++i)
			{
				Poco::Int32 length = reader.int32();
				if (length < 0) row.push_back(std::nullopt);
				else row.push_back(reader.bytes(static_cast<std::size_t>(length)));
			}
			result.rows.push_back(row);
			break;
		}
		case 'C':
			result.tags.push_back(reader.cstring());
			break;
		case 'E':
		{
			for (;;)
			{
				char code = reader.byte();
				if (code == '\0') break;
				result.error[code] = reader.cstring();
			}
			if (result.error['S'] == "FATAL") // FATAL: the server closes next
			{
				char next;
				std::string rest;
				result.eof = !readMessage(next, rest);
				return result;
			}
			break;
		}
		case 'Z':
			result.status = reader.byte();
			return result;
		default:
			break;
		}
	}
}


RawResult RawClient::startup(const std::string& user, const std::string& database, const std::string& password, bool sslRequest)
{
	if (sslRequest)
	{
		send(Wire::sslRequest());
		char answer = 0;
		if (_socket.receiveBytes(&answer, 1) != 1 || answer != 'N') throw Poco::ProtocolException("SSLRequest not answered N");
	}
	send(Wire::startupMessage({{"user", user}, {"database", database}, {"application_name", "peer-test"}, {"client_encoding", "UTF8"}}));
	return readUntilReady(password, user);
}


RawResult RawClient::query(const std::string& sql)
{
	send(Wire::query(sql));
	return readUntilReady();
}


void RawClient::terminate()
{
	send(Wire::terminate());
}


Poco::Net::StreamSocket& RawClient::socket()
{
	return _socket;
}

} } // namespace BlueTusk::Test
