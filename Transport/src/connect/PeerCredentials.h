//
// PeerCredentials.h
//
// Library: BlueTusk/Transport
//
// libpq's requirepeer: which operating-system user runs the server at the other end of a Unix-domain socket.
//

#ifndef BlueTusk_PeerCredentials_INCLUDED
#define BlueTusk_PeerCredentials_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "Poco/Net/StreamSocket.h"
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API PeerCredentials
	/// Reads SO_PEERCRED (Linux, unix(7)) of a connected Unix-domain socket. Thread-safety: as the socket's.
{
public:
	static std::string peerUserName(const Poco::Net::StreamSocket& socket);
		/// The name of the user whose process holds the other end of socket (its uid when the user
		/// database has no name for it). Throws Poco::Net::NetException (errno as code) when the kernel
		/// cannot tell (e.g. socket is not a Unix-domain socket).

	static void check(const Poco::Net::StreamSocket& socket, const std::string& requirePeer, const BlueTuskHostEndpoint& endpoint);
		/// libpq's requirepeer (PostgreSQL docs 34.1.2): when requirePeer is not empty and socket is a
		/// Unix-domain socket, the server must run as the user requirePeer; otherwise
		/// BlueTuskAuthenticationException "requirepeer specifies "x", but the server at <socket path> runs
		/// as "postgres"" (it stops a multi-host open, as libpq stops). Does nothing for TCP sockets or an
		/// empty requirePeer. Runs before anything is sent on the socket.
};

} // namespace BlueTusk

#endif // BlueTusk_PeerCredentials_INCLUDED
