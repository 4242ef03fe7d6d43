//
// TransportTestSupport.h
//
// Helpers for the Transport integration tests: settings for a node of the local cluster, sessions.
//

#ifndef BlueTusk_TransportTestSupport_INCLUDED
#define BlueTusk_TransportTestSupport_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "TestEnvironment.h"
#include <string>

namespace BlueTusk {
namespace Test {

inline ConnectionSettings nodeSettings(int node, const std::string& extra = "")
	/// Settings for node N (1..3) of the cluster: its address, the test login, SSL Mode=disable unless
	/// extra says otherwise, Timeout=5.
{
	const ClusterInfo& c = cluster();
	std::string text = c.connectionString(c.hosts.at(node - 1), "Timeout=5;SSL Mode=disable");
	if (!extra.empty()) text += ";" + extra;
	return ConnectionSettings::parse(text, {});
}


inline ProtocolSession::Ptr openNode(int node, const std::string& extra = "")
{
	ConnectionSettings settings = nodeSettings(node, extra);
	ProtocolSessionFactory factory;
	return factory.openSession(settings.endpoints.at(0), settings);
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_TransportTestSupport_INCLUDED
