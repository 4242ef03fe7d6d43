//
// PeerCredentials.cpp
//
// Library: BlueTusk/Transport
//

#include "PeerCredentials.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/LocalUser.h"
#include "Poco/Error.h"
#include "Poco/Net/NetException.h"
#include <cerrno>
#include <sys/socket.h>

namespace BlueTusk {

std::string PeerCredentials::peerUserName(const Poco::Net::StreamSocket& socket)
{
	struct ucred credentials;
	socklen_t length = sizeof(credentials);
	if (::getsockopt(socket.impl()->sockfd(), SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0)
	{
		const int error = errno;
		throw Poco::Net::NetException("cannot read the peer credentials (SO_PEERCRED) of the socket: " + Poco::Error::getMessage(error), error);
	}
	const std::string name = LocalUser::nameOf(credentials.uid);
	return name.empty() ? "uid " + std::to_string(credentials.uid) : name;
}


void PeerCredentials::check(const Poco::Net::StreamSocket& socket, const std::string& requirePeer, const BlueTuskHostEndpoint& endpoint)
{
	if (requirePeer.empty() || socket.address().family() != Poco::Net::SocketAddress::UNIX_LOCAL) return;
	const std::string actual = peerUserName(socket);
	if (actual != requirePeer)
		throw BlueTuskAuthenticationException("requirepeer specifies \"" + requirePeer + "\", but the server at " + endpoint.unixSocketPath() +
			" runs as \"" + actual + "\"");
}

} // namespace BlueTusk
