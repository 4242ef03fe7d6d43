//
// Resolver.h
//
// Library: BlueTusk/Transport
//
// The interface that turns a host name into the ordered list of socket addresses to try.
//

#ifndef BlueTusk_Resolver_INCLUDED
#define BlueTusk_Resolver_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Types.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

class BlueTusk_Transport_API Resolver
	/// Resolves a host name into socket addresses, in the order they should be tried (doc/transport.md).
	/// The Dialer calls it once per physical connection attempt, and only for host names: IP literals and
	/// Unix-socket directories are never resolved. SystemResolver is the real one; StaticResolver lets
	/// tests give a name any list of addresses.
	///
	/// Implementations must be thread-safe: one resolver is shared by every connection attempt.
{
public:
	using Ptr = std::shared_ptr<Resolver>;

	virtual ~Resolver();

	virtual std::vector<Poco::Net::SocketAddress> resolve(const std::string& host, Poco::UInt16 port) = 0;
		/// Returns every address of host, with port set, in the order to try them (never empty).
		/// Throws Poco::Net::HostNotFoundException, Poco::Net::NoAddressFoundException or
		/// Poco::Net::DNSException (with the resolver's error text) when the name cannot be resolved.

	static Ptr defaultResolver();
		/// The process-wide SystemResolver (created on first use). Thread-safe.
};

} // namespace BlueTusk

#endif // BlueTusk_Resolver_INCLUDED
