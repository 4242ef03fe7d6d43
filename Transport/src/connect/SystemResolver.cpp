//
// SystemResolver.cpp
//
// Library: BlueTusk/Transport
//

#include "SystemResolver.h"
#include "Poco/Net/NetException.h"
#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <algorithm>
#include <cstring>

namespace BlueTusk {

SystemResolver::SystemResolver()
{
}


SystemResolver::~SystemResolver()
{
}


std::vector<Poco::Net::SocketAddress> SystemResolver::resolve(const std::string& host, Poco::UInt16 port)
{
	struct addrinfo hints;
	std::memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	struct addrinfo* result = nullptr;
	const std::string service = std::to_string(port);
	int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
	if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME)
	{
		// AI_ADDRCONFIG hides loopback-only families on hosts without other interfaces: ask again without it.
		hints.ai_flags = 0;
		rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
	}
	if (rc != 0)
	{
		const std::string text = gai_strerror(rc);
		if (rc == EAI_NONAME) throw Poco::Net::HostNotFoundException(host, text);
		if (rc == EAI_NODATA || rc == EAI_ADDRFAMILY) throw Poco::Net::NoAddressFoundException(host, text);
		throw Poco::Net::DNSException(host, text);
	}
	std::vector<Poco::Net::SocketAddress> addresses;
	for (struct addrinfo* ai = result; ai; ai = ai->ai_next)
	{
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
		Poco::Net::SocketAddress address(ai->ai_addr, static_cast<poco_socklen_t>(ai->ai_addrlen));
		if (std::find(addresses.begin(), addresses.end(), address) == addresses.end())
			addresses.push_back(address);
	}
	freeaddrinfo(result);
	if (addresses.empty()) throw Poco::Net::NoAddressFoundException(host, "no IPv4 or IPv6 address");
	return addresses;
}

} // namespace BlueTusk
