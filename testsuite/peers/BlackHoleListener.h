//
// BlackHoleListener.h
//
// Library: BlueTusk test peers
//
// A loopback address where TCP connects hang until the client's own timeout, as with a host that drops
// packets, without iptables: a backlog of 0, never accepted, and one filler connection fill the accept
// queue, after which the kernel drops further SYNs.
//
//   BlackHoleListener hole("127.0.0.4");
//   socket.connect(hole.address(), Poco::Timespan(1, 0));   // throws Poco::TimeoutException after 1 s
//

#ifndef BlueTusk_BlackHoleListener_INCLUDED
#define BlueTusk_BlackHoleListener_INCLUDED

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

class BlackHoleListener
	/// Listens with backlog 0, never accepts, and fills the accept queue with its own filler connections
	/// (as many as this kernel needs: it keeps connecting until a probe connect stays unanswered for
	/// 100 ms), so the kernel drops every further SYN and a client's connect() waits for its own timeout.
	/// Needs no thread. The destructor closes the fillers and the listener; clients still waiting then get
	/// "connection refused" on their next SYN retransmission. Thread-safe accessors.
{
public:
	explicit BlackHoleListener(const std::string& host = "127.0.0.1", Poco::UInt16 port = 0);
		/// Throws Poco::Net::NetException when the address cannot be bound, Poco::IllegalStateException
		/// when the accept queue could not be filled.

	~BlackHoleListener();

	BlackHoleListener(const BlackHoleListener&) = delete;
	BlackHoleListener& operator = (const BlackHoleListener&) = delete;

	Poco::Net::SocketAddress address() const;
	std::string host() const;
	Poco::UInt16 port() const;
	std::string hostAndPort() const;           /// "127.0.0.4:40123"
	BlueTuskHostEndpoint endpoint() const;
	int fillerConnections() const;             /// how many filler connections fill the queue (1 on Linux)

private:
	Poco::Net::ServerSocket _listener;
	Poco::Net::SocketAddress _address;
	std::vector<Poco::Net::StreamSocket> _fillers;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_BlackHoleListener_INCLUDED
