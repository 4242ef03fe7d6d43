//
// PatroniClusterDocument.h
//
// Library: BlueTusk/Plugins/Topology
//
// What Patroni's GET /cluster answer means as topology members (doc/high-availability.md).
//

#ifndef BlueTusk_PatroniClusterDocument_INCLUDED
#define BlueTusk_PatroniClusterDocument_INCLUDED

#include "BlueTusk/TopologySource.h"
#include <string>

namespace BlueTusk {

TopologySnapshot parsePatroniCluster(const std::string& body, const std::string& url);
	/// The members of a /cluster document, in its order: name, host, port, timeline (0 when absent), lag
	/// (bytes; -1 for "unknown" or absent), state as Patroni says it, and role: "leader" (also "master",
	/// "primary") -> Primary; "replica", "sync_standby", "standby_leader" -> Standby; any other role, or a
	/// state other than "running" / "streaming" -> Unknown (still listed). A member without host or port is
	/// left out. Throws BlueTuskException naming url when body is not JSON, has no "members" array, a member
	/// is not an object, or no member is usable.

ServerRole patroniRole(const std::string& role, const std::string& state);
	/// The role mapping above.

} // namespace BlueTusk

#endif // BlueTusk_PatroniClusterDocument_INCLUDED
