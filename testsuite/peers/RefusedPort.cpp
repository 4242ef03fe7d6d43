//
// RefusedPort.cpp
//
// Library: BlueTusk test peers
//

#include "RefusedPort.h"
#include "PeerSupport.h"

namespace BlueTusk {
namespace Test {


RefusedPort::RefusedPort(const std::string& host)
{
	_socket.bind(Poco::Net::SocketAddress(host, 0), false);
	_address = _socket.address();
}


RefusedPort::~RefusedPort()
{
	Detail::closeQuietly(_socket);
}


Poco::Net::SocketAddress RefusedPort::address() const
{
	return _address;
}


std::string RefusedPort::host() const
{
	return _address.host().toString();
}


Poco::UInt16 RefusedPort::port() const
{
	return _address.port();
}


std::string RefusedPort::hostAndPort() const
{
	return _address.toString();
}


BlueTuskHostEndpoint RefusedPort::endpoint() const
{
	return BlueTuskHostEndpoint(host(), port());
}

} } // namespace BlueTusk::Test
