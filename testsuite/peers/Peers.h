//
// Peers.h
//
// Library: BlueTusk test peers (static library BlueTuskTestPeers, linked into every test executable)
//
// The fault-injection peers for BlueTusk's fault tests (doc/samples.md). Everything runs on loopback
// (127.0.0.0/8); every peer is an RAII object: its constructor binds (port 0: an ephemeral port, read it
// back with port()/hostAndPort()) and starts its threads, its destructor closes every socket and joins
// every thread. All members are thread-safe. Namespace BlueTusk::Test.
//
//   FakeBackend(script, host = "127.0.0.1", port = 0)
//       A scripted PostgreSQL server (protocol 3.0). BackendScript presets: primary(), standby(),
//       readOnlyPrimary(), startingUp() (57P03), tooManyClients() (53300), adminShutdown() (57P01),
//       passwordFailure() (28P01), startupError(sqlState, message), closeOnAccept(), closeAfterStartup(),
//       resetAfterStartup(), garbage(bytes), hang(); modifiers withoutRoleParameters(), delayStartup(ms),
//       requirePassword(Cleartext | Md5 | ScramSha256, password), parameter(name, value), role(...),
//       answer(sql, QueryAnswer); field corruptServerSignature for SCRAM.
//       Counters: connectionsAccepted(), startupMessages(), sslRequests(), sessionsReady(),
//       passwordsReceived(), cancelRequests(), terminates(), activeConnections(), queries(),
//       lastStartupParameters(); waitForActiveConnections(n, timeout), waitForConnectionsAccepted(n, timeout);
//       setScript() at run time; closeAllConnections(reset) breaks open sessions.
//   waitUntil(condition, timeout)
//       Polls a condition (a counter the peer thread updates after the client moved on, e.g. terminates()).
//   BlackHoleListener(host = "127.0.0.1", port = 0)
//       Connects to it hang until the client's timeout (backlog 0, accept queue filled, never accepts).
//   RefusedPort(host = "127.0.0.1")
//       A port bound but not listening: connects are refused at once; the port stays reserved.
//   TcpProxy(target, host = "127.0.0.1", port = 0, mode = Forward)
//       setMode(Forward | Delay(ms) | Reset | Refuse | BlackHole) at run time on the same port;
//       connectionsAccepted(), activeConnections(), closeAllConnections(reset).
//   hostList(peer, peer, ...)
//       The peers' "host:port" joined with ',' for a Host= list (IPv6 peers as "[::1]:port").
// Every peer has address(), host(), port(), hostAndPort() and endpoint() (a BlueTuskHostEndpoint).
//
// Example: a Routing fault test with five hosts
//
//   using namespace BlueTusk::Test;
//   FakeBackend standby(BackendScript::standby(), "127.0.0.1");
//   FakeBackend starting(BackendScript::startingUp(), "127.0.0.2");
//   BlackHoleListener hole("127.0.0.3");
//   FakeBackend primary(BackendScript::primary(), "127.0.0.4");
//   RefusedPort refused("127.0.0.5");
//   std::string hosts = hostList(standby, starting, hole, primary, refused); // "127.0.0.1:41234,127.0.0.2:..."
//   auto connection = BlueTuskConnection::open("Host=" + hosts + ";Username=u;Timeout=0.5;"
//       "Target Session Attributes=primary");
//   CPPUNIT_ASSERT_EQUAL(1, standby.startupMessages());
//   CPPUNIT_ASSERT_EQUAL(primary.endpoint(), connection.connectedEndpoint());
//

#ifndef BlueTusk_Peers_INCLUDED
#define BlueTusk_Peers_INCLUDED

#include "BackendScript.h"
#include "BlackHoleListener.h"
#include "FakeBackend.h"
#include "RefusedPort.h"
#include "TcpProxy.h"
#include <string>

namespace BlueTusk {
namespace Test {

template <class... Peer>
std::string hostList(const Peer&... peers)
	/// "127.0.0.1:41234,127.0.0.2:40112,[::1]:39000": the peers' hostAndPort() joined with ',' in the order
	/// given, for a Host= list. Any mix of FakeBackend, BlackHoleListener, RefusedPort and TcpProxy.
{
	std::string list;
	((list += (list.empty() ? "" : ",") + peers.hostAndPort()), ...);
	return list;
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Peers_INCLUDED
