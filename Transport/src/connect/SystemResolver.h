//
// SystemResolver.h
//
// Library: BlueTusk/Transport
//
// The operating system's resolver (getaddrinfo), keeping its order and both address families.
//

#ifndef BlueTusk_SystemResolver_INCLUDED
#define BlueTusk_SystemResolver_INCLUDED

#include "Resolver.h"

namespace BlueTusk {

class BlueTusk_Transport_API SystemResolver: public Resolver
	/// Resolves with getaddrinfo(3) (AF_UNSPEC, SOCK_STREAM) and returns the addresses in the order the
	/// system resolver gives them (RFC 6724 ordering by glibc: "::1" before "127.0.0.1" for a name that
	/// has both), IPv6 and IPv4 both kept, duplicates removed. Poco::Net::DNS is not used because it
	/// re-sorts IPv4 first (seen with Poco 1.11's DNS::resolve on Debian 12). Thread-safe (getaddrinfo is reentrant).
{
public:
	SystemResolver();
	~SystemResolver();

	std::vector<Poco::Net::SocketAddress> resolve(const std::string& host, Poco::UInt16 port);
		/// Throws Poco::Net::HostNotFoundException (EAI_NONAME), Poco::Net::NoAddressFoundException
		/// (no usable address) or Poco::Net::DNSException (other errors), each with gai_strerror's text.
};

} // namespace BlueTusk

#endif // BlueTusk_SystemResolver_INCLUDED
