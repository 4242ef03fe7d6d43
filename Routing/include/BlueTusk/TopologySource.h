//
// TopologySource.h
//
// Library: BlueTusk/Routing
//
// The topology source family (doc/high-availability.md, doc/plugins.md): where a data source learns the
// members of its cluster from the failover manager (Patroni's REST API, the pg_auto_failover monitor)
// instead of only from the host list written in its connection string. The standard implementations are
// a plugin (Plugins/Topology, library BlueTuskTopologyPlugin).
//

#ifndef BlueTusk_TopologySource_INCLUDED
#define BlueTusk_TopologySource_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include "Poco/Types.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Routing_API TopologyMember
	/// One member of the cluster as a topology source reports it. Everything but endpoint is a hint: the
	/// router still confirms the role of every session it hands out (doc/routing.md, step 4).
{
	BlueTuskHostEndpoint endpoint;  /// where to connect: the member's host and PostgreSQL port
	std::string name;               /// the member's name in the failover manager ("node1"), for messages
	ServerRole role = ServerRole::Unknown;
	                                /// Primary for the leader / primary, Standby for a replica, Unknown
	                                /// when the source does not know or the member is not usable
	std::string state;              /// the manager's own state text ("running", "streaming", "secondary")
	Poco::UInt32 timeline = 0;      /// the member's timeline; 0 when unknown
	Poco::Int64 lagBytes = -1;      /// bytes of WAL behind the primary; -1 when unknown

	bool operator == (const TopologyMember& other) const;
	bool operator != (const TopologyMember& other) const;
};


struct BlueTusk_Routing_API TopologySnapshot
	/// What one read of a topology source returned.
{
	std::vector<TopologyMember> members;  /// in the source's order (a leader first when the source says so)
	Poco::Timestamp readAt;               /// when the read completed

	std::vector<BlueTuskHostEndpoint> endpoints() const;
		/// The members' endpoints, in order, without duplicates.
};


class BlueTusk_Routing_API TopologySource
	/// A source of cluster membership (doc/high-availability.md, "Topology sources"). A data source whose
	/// connection string has Topology Source=<name>:<location> creates one instance with
	/// RoutingContext::createTopologySource(name), calls configure() once, then calls read() from one background
	/// thread every Topology Refresh Interval (or sooner when waitForChange() reports a push). The data
	/// source's host list becomes the members of the last successful read; the written host list is the
	/// seed and is used until a read has succeeded. A read that fails or runs out of time keeps the last
	/// members read and appends the written hosts not among them (without role hints): a source that
	/// cannot be reached never blocks a checkout, and the written hosts are tried while it cannot.
	///
	/// Thread-safety: configure(), read(), waitForChange() and close() are called from one thread at a time
	/// (the data source's topology thread), except close(), which may be called from another thread while
	/// read() or waitForChange() runs, and must make them return promptly.
	///
	/// A plugin exports its implementations with POCO_BEGIN_MANIFEST(BlueTusk::TopologySource) and
	/// POCO_EXPORT_INTERFACE(MySource, "my-name"): Topology Source=my-name:<location> selects it.
{
public:
	using Ptr = std::shared_ptr<TopologySource>;

	TopologySource();
	virtual ~TopologySource();

	virtual std::string name() const = 0;
		/// The name that selects this source ("patroni", "pg_auto_failover").

	virtual void configure(const std::string& location, const ConnectionSettings& seed) = 0;
		/// Takes the location (all of the Topology Source value after "<name>:") and the data source's
		/// settings (credentials and TLS settings a source may reuse; seed.endpoints is the written host
		/// list). Throws BlueTuskConnectionStringException, naming "Topology Source" and never a password,
		/// when the location is malformed. Does no I/O.

	virtual TopologySnapshot read(const Poco::Timespan& timeout) = 0;
		/// Reads the members now, within timeout (a source tries its locations in turn within it). Throws a
		/// BlueTuskException (BlueTuskTransportException for a network failure, BlueTuskException for an
		/// answer it cannot use) whose message names the location tried and never a password. A read that
		/// returns no member is a failure too (throw).

	virtual bool waitForChange(const Poco::Timespan& timeout);
		/// Waits up to timeout for the source to signal a change (a push) and returns true if it did, false
		/// when the time ran out. The default sleeps for timeout (a source that only polls) and returns false
		/// at once after close().

	virtual void close();
		/// Releases the source's connections and makes a running read() or waitForChange() return soon. The
		/// default wakes waitForChange(). Called once before the source is destroyed.

protected:
	bool closed() const;
		/// Whether close() was called.

private:
	TopologySource(const TopologySource&) = delete;
	TopologySource& operator = (const TopologySource&) = delete;

	struct Impl;
	std::unique_ptr<Impl> _impl;
};

} // namespace BlueTusk

#endif // BlueTusk_TopologySource_INCLUDED
