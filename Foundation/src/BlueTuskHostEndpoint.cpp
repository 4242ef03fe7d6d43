//
// BlueTuskHostEndpoint.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include <arpa/inet.h>
#include <tuple>

namespace BlueTusk {

namespace {

std::string stripBrackets(const std::string& host)
{
	if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
		return host.substr(1, host.size() - 2);
	return host;
}

} // namespace


BlueTuskHostEndpoint::BlueTuskHostEndpoint():
	_port(5432),
	_kind(HOST_NAME)
{
}


BlueTuskHostEndpoint::BlueTuskHostEndpoint(const std::string& host, Poco::UInt16 port):
	_host(stripBrackets(host)),
	_port(port),
	_kind(kindOf(host))
{
}


BlueTuskHostEndpoint::BlueTuskHostEndpoint(const std::string& host, Poco::UInt16 port, const std::string& address):
	_host(stripBrackets(host)),
	_port(port),
	_kind(kindOf(host)),
	_address(address)
{
}


const std::string& BlueTuskHostEndpoint::address() const
{
	return _address;
}


const std::string& BlueTuskHostEndpoint::host() const
{
	return _host;
}


Poco::UInt16 BlueTuskHostEndpoint::port() const
{
	return _port;
}


BlueTuskHostEndpoint::Kind BlueTuskHostEndpoint::kind() const
{
	return _kind;
}


bool BlueTuskHostEndpoint::isUnixSocket() const
{
	return _kind == UNIX_SOCKET;
}


std::string BlueTuskHostEndpoint::unixSocketPath() const
{
	if (_kind != UNIX_SOCKET) return std::string();
	std::string dir = _host;
	while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
	if (dir != "/") dir += '/';
	return dir + ".s.PGSQL." + std::to_string(_port);
}


std::string BlueTuskHostEndpoint::toString() const
{
	if (_kind == IPV6_LITERAL) return "[" + _host + "]:" + std::to_string(_port);
	return _host + ":" + std::to_string(_port);
}


bool BlueTuskHostEndpoint::operator == (const BlueTuskHostEndpoint& other) const
{
	return _port == other._port && _host == other._host && _address == other._address;
}


bool BlueTuskHostEndpoint::operator != (const BlueTuskHostEndpoint& other) const
{
	return !(*this == other);
}


bool BlueTuskHostEndpoint::operator < (const BlueTuskHostEndpoint& other) const
{
	return std::tie(_host, _port, _address) < std::tie(other._host, other._port, other._address);
}


std::size_t BlueTuskHostEndpoint::hash() const
{
	return (std::hash<std::string>()(_host) * 31u + _port) * 31u + std::hash<std::string>()(_address);
}


BlueTuskHostEndpoint::Kind BlueTuskHostEndpoint::kindOf(const std::string& host)
{
	const std::string bare = stripBrackets(host);
	if (!bare.empty() && bare[0] == '/') return UNIX_SOCKET;
	unsigned char buffer[sizeof(struct in6_addr)];
	if (inet_pton(AF_INET, bare.c_str(), buffer) == 1) return IPV4_LITERAL;
	std::string withoutZone = bare.substr(0, bare.find('%'));
	if (inet_pton(AF_INET6, withoutZone.c_str(), buffer) == 1) return IPV6_LITERAL;
	return HOST_NAME;
}

} // namespace BlueTusk
