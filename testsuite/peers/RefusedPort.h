//
// RefusedPort.h
//
// Library: BlueTusk test peers
//
// A loopback address:port where TCP connects are refused at once.
//
//   RefusedPort refused("127.0.0.3");
//   socket.connect(refused.address());   // throws Poco::Net::ConnectionRefusedException
//

#ifndef BlueTusk_RefusedPort_INCLUDED
#define BlueTusk_RefusedPort_INCLUDED

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include <string>

namespace BlueTusk {
namespace Test {

class RefusedPort
	/// Binds a TCP socket to host on an ephemeral port and never listens: nothing else can take the port
	/// while this object lives, and the kernel answers every SYN to it with RST (ECONNREFUSED). No thread.
{
public:
	explicit RefusedPort(const std::string& host = "127.0.0.1");
	~RefusedPort();

	RefusedPort(const RefusedPort&) = delete;
	RefusedPort& operator = (const RefusedPort&) = delete;

	Poco::Net::SocketAddress address() const;
	std::string host() const;
	Poco::UInt16 port() const;
	std::string hostAndPort() const;           /// "127.0.0.3:38211"
	BlueTuskHostEndpoint endpoint() const;

private:
	Poco::Net::ServerSocket _socket;
	Poco::Net::SocketAddress _address;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_RefusedPort_INCLUDED
