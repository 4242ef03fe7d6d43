//
// HaCluster.h
//
// Where the failover suites find a cluster run by a real failover manager, and the script's commands:
// scripts/patroni (Patroni with etcd) or scripts/pg-auto-failover (a pg_auto_failover monitor).
//

#ifndef BlueTusk_HaCluster_INCLUDED
#define BlueTusk_HaCluster_INCLUDED

#include <string>

namespace BlueTusk {
namespace Test {

struct HaCluster
	/// A cluster of a failover manager's script: members node1..node3 on 127.0.0.1..3, one port (from the
	/// script's environment variable), the logins of scripts/cluster (ClusterInfo's user, password,
	/// database). Both scripts answer the same commands (start, wait, leader, kill-primary, stop-node N,
	/// start-node N, ...). Not thread-safe: call from the test thread only.
{
	std::string manager = "Patroni";                  /// in messages: "Patroni", "pg_auto_failover"
	std::string script = "patroni";                   /// scripts/<script>
	std::string portVariable = "BLUETUSK_PATRONI_PORT";
	int port = 55462;
	bool holdsCommitsAfterPromotion = false;
		/// pg_auto_failover promotes its candidate in stop_replication but keeps it read-only
		/// (default_transaction_read_only) until it reaches wait_primary, primary_demote_timeout later:
		/// the moment a member "accepts writes" is then when a commit returns on it, not when it leaves
		/// recovery (PromotionWatch).

	static const HaCluster& patroni();
		/// scripts/patroni; BLUETUSK_PATRONI_PORT (default 55462).
	static const HaCluster& autoFailover();
		/// scripts/pg-auto-failover; BLUETUSK_PAF_PORT (default 55482).

	std::string host(int node) const;
		/// "127.0.0.<node>".

	std::string connectionString(const std::string& extra) const;
		/// The three members, with extra appended (";"-separated keywords).

	std::string nodeConnectionString(int node, const std::string& extra) const;
		/// Only member node, target any, with extra appended.

	int run(const std::string& arguments, std::string* output = nullptr) const;
		/// Runs "scripts/<script> <arguments>" with the port variable set; returns its exit status and, when
		/// output is given, its standard output (standard error goes to the test's).

	int leader() const;
		/// The member the manager names as the primary (the script's "leader"), or 0 when none is named for
		/// 15 s (a failed or empty answer is asked again every 200 ms until then).

	void waitHealthy(int seconds) const;
		/// The script's "wait <seconds>": a primary and two replicas following it. Fails the test (CppUnit
		/// assertion) when the cluster does not get there, with a hint to start it.
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_HaCluster_INCLUDED
