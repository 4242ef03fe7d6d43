//
// AutoFailoverTopologySource.h
//
// Library: BlueTusk/Plugins/Topology
//
// Topology Source=pg_auto_failover:<monitor connection string> (doc/high-availability.md): the members of
// a pg_auto_failover formation as its monitor knows them, with a push when the monitor changes a state.
//

#ifndef BlueTusk_AutoFailoverTopologySource_INCLUDED
#define BlueTusk_AutoFailoverTopologySource_INCLUDED

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/NotificationListener.h"
#include "BlueTusk/TopologySource.h"
#include <memory>
#include <mutex>
#include <string>

namespace BlueTusk {

struct AutoFailoverNode
	/// One row of the monitor's pgautofailover.node table, as read().
{
	std::string name;           /// nodename ("node1")
	std::string host;           /// nodehost: where the other nodes and the applications connect
	int port = 0;               /// nodeport
	std::string reportedState;  /// reportedstate: what the node's keeper last reported ("secondary")
	std::string goalState;      /// goalstate: what the monitor assigned it ("secondary", "demoted")
	int health = -1;            /// health: 1 the monitor's health check passes, 0 it fails, -1 unknown
	Poco::UInt32 timeline = 0;  /// reportedtli; 0 when unknown
	Poco::Int64 lagBytes = -1;  /// WAL bytes between the primary's and the node's reported LSN; -1 unknown
};


class AutoFailoverTopologySource: public TopologySource
	/// Reads the monitor's pgautofailover.node table (every node it manages: one formation per monitor is
	/// what BlueTusk expects) over an unpooled session, and LISTENs to the monitor's "state" channel, on
	/// which the monitor sends a notification for every state it assigns or a node reports, so that
	/// waitForChange() returns as soon as the failover manager acts.
	///
	/// The location is a BlueTusk connection string (keyword/value, libpq or URL form) for the monitor's
	/// database, e.g. "postgresql://bluetusk:secret@monitor:5432/pg_auto_failover" (quote a ;-separated
	/// one in the data source's string). Without a password of its own it uses the data source's when the
	/// user names match. The login needs SELECT on pgautofailover.node (the role autoctl_node has it).
	///
	/// Roles (roleOf()): primary, wait_primary and single are Primary, secondary and catchingup Standby,
	/// every other state (report_lsn, prepare_promotion, stop_replication, draining, demoted, ...) Unknown;
	/// a node that still reports a primary state while the monitor assigned it another (a lost primary
	/// being demoted) is Unknown too. The state text is the reported state, followed by " -> <goal>" when
	/// the goal differs and by ", unhealthy" when the monitor's health check fails.
{
public:
	AutoFailoverTopologySource();
	~AutoFailoverTopologySource() override;

	std::string name() const override;
		/// "pg_auto_failover".

	void configure(const std::string& location, const ConnectionSettings& seed) override;
		/// Parses location as a connection string (target any: the monitor is one server). Throws
		/// BlueTuskConnectionStringException naming "Topology Source" and the parser's reason (never the
		/// location, which may hold a password) when it is empty or malformed.

	TopologySnapshot read(const Poco::Timespan& timeout) override;
		/// Queries the monitor, within timeout (connect and command). The primary comes first, then the other
		/// nodes in the monitor's order (node id). Throws BlueTuskException naming the monitor's endpoints
		/// when the monitor cannot be reached or queried, or reports no node.

	bool waitForChange(const Poco::Timespan& timeout) override;
		/// True as soon as a notification arrives on "state" (those queued behind it are consumed with it),
		/// or when the listening session was lost and replaced (a change may have been missed); false
		/// when timeout ran out or after close(). Opens the listening session on first use; when the
		/// monitor cannot be reached it waits like a polling source (false at the end). Waits in slices
		/// of at most 100 ms so that close() is seen promptly.

	void close() override;
		/// Ends waitForChange() and read() soon; closes the monitor sessions (at once, or when the running
		/// call returns).

	static ServerRole roleOf(const std::string& reportedState, const std::string& goalState);
		/// The role a node's reported and assigned states mean (see the class description).

	static TopologyMember member(const AutoFailoverNode& node);
		/// The TopologyMember for a node of the monitor's table: endpoint host:port, name, roleOf(), the
		/// state text, timeline and lag.

	static const std::string& query();
		/// The SQL read() runs: one row per node (nodename, nodehost, nodeport, reportedstate, goalstate,
		/// health, reportedtli, lag in bytes or NULL), the primary first.

private:
	std::string monitorName() const;
		/// "pg_auto_failover monitor <endpoints>", for messages.
	ConnectionSettings boundedSettings(const Poco::Timespan& timeout) const;
	void closeSessions();

	ConnectionSettings _settings;
	std::mutex _ioMutex;       /// held by read() and waitForChange() while they use the sessions
	BlueTuskConnection _connection;
	std::unique_ptr<NotificationListener> _listener;
};

} // namespace BlueTusk

#endif // BlueTusk_AutoFailoverTopologySource_INCLUDED
