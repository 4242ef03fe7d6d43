//
// PatroniCluster.h
//
// Where the HA suite finds the Patroni cluster started by scripts/patroni, and the script's commands.
//

#ifndef BlueTusk_PatroniCluster_INCLUDED
#define BlueTusk_PatroniCluster_INCLUDED

#include <string>

namespace BlueTusk {
namespace Test {

struct PatroniCluster
	/// The cluster of scripts/patroni: members node1..node3 on 127.0.0.1..3, one port
	/// (BLUETUSK_PATRONI_PORT, default 55462), the logins of scripts/cluster (ClusterInfo's user,
	/// password, database). Not thread-safe: call from the test thread only.
{
	int port = 55462;

	static const PatroniCluster& instance();

	std::string host(int node) const;
		/// "127.0.0.<node>".

	std::string connectionString(const std::string& extra) const;
		/// The three members, with extra appended (";"-separated keywords).

	std::string nodeConnectionString(int node, const std::string& extra) const;
		/// Only member node, target any, with extra appended.

	int run(const std::string& arguments, std::string* output = nullptr) const;
		/// Runs "scripts/patroni <arguments>" with BLUETUSK_PATRONI_PORT set; returns its exit status and,
		/// when output is given, its standard output (standard error goes to the test's).

	int leader() const;
		/// The member holding the leader key and running (scripts/patroni leader), or 0 when none.

	void waitHealthy(int seconds) const;
		/// scripts/patroni wait <seconds>: a leader and two streaming replicas. Fails the test (CppUnit
		/// assertion) when the cluster does not get there, with a hint to run scripts/patroni start.
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_PatroniCluster_INCLUDED
