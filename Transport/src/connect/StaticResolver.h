//
// StaticResolver.h
//
// Library: BlueTusk/Transport
//
// A resolver with a fixed table of host names and addresses, for tests.
//

#ifndef BlueTusk_StaticResolver_INCLUDED
#define BlueTusk_StaticResolver_INCLUDED

#include "Resolver.h"
#include "Poco/Mutex.h"
#include <map>

namespace BlueTusk {

class BlueTusk_Transport_API StaticResolver: public Resolver
	/// Answers from a table: each host name maps to an ordered list of addresses. An address given
	/// without a port (or with port 0) gets the port asked for; one given with a port keeps it, so a test
	/// can point one name at peers listening on different ports. Names not in the table go to the
	/// fallback resolver, or fail with Poco::Net::HostNotFoundException when there is none.
	/// Host names are matched exactly (case-sensitive). Thread-safe.
{
public:
	using Ptr = std::shared_ptr<StaticResolver>;

	StaticResolver();
		/// A resolver with an empty table and no fallback.

	explicit StaticResolver(Resolver::Ptr fallback);
		/// Unknown names go to fallback (e.g. Resolver::defaultResolver()).

	~StaticResolver();

	void add(const std::string& host, const std::vector<std::string>& addresses);
		/// Appends addresses for host: "127.0.0.1", "::1", "127.0.0.2:6000", "[::1]:6000".
		/// Throws Poco::InvalidArgumentException for text that is not an IP address (with optional port).

	void add(const std::string& host, const Poco::Net::SocketAddress& address);
		/// Appends one address for host; port 0 means "the port asked for".

	void remove(const std::string& host);
		/// Forgets host.

	void clear();
		/// Forgets every host and resets the counters.

	std::vector<Poco::Net::SocketAddress> resolve(const std::string& host, Poco::UInt16 port);
		/// The table's addresses for host, in the order added, with port applied.

	int resolveCount(const std::string& host) const;
		/// How often resolve() was called for host (tests check "resolved once per attempt").

private:
	Resolver::Ptr _fallback;
	std::map<std::string, std::vector<Poco::Net::SocketAddress>> _table;
	std::map<std::string, int> _counts;
	mutable Poco::FastMutex _mutex;
};

} // namespace BlueTusk

#endif // BlueTusk_StaticResolver_INCLUDED
