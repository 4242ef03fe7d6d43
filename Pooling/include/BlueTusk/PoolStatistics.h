//
// PoolStatistics.h
//
// Library: BlueTusk/Pooling
//
// Counters of one endpoint pool, or of all pools of a data source (doc/pooling.md).
//

#ifndef BlueTusk_PoolStatistics_INCLUDED
#define BlueTusk_PoolStatistics_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/PreparedStatement.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {

struct BlueTusk_Pooling_API PoolStatistics
	/// A consistent snapshot (taken under the pool lock): busy + idle == total. Sessions being opened
	/// count as busy. In an aggregate, minSize and maxSize are sums, lastKnownRole is Unknown and the WAL
	/// position unknown.
{
	int total = 0;       /// sessions owned by the pool(s): idle + busy
	int idle = 0;        /// sessions ready to hand out
	int busy = 0;        /// leased sessions, plus sessions being opened
	int connecting = 0;  /// of busy: opens in flight (reservations and warm-up opens; at most Max Connecting)
	int pending = 0;     /// checkouts waiting for capacity
	Poco::UInt64 created = 0;          /// physical sessions opened successfully
	Poco::UInt64 closed = 0;           /// physical sessions closed (any reason, evictions included)
	Poco::UInt64 evicted = 0;          /// closed by the eviction policy (idle or max lifetime)
	Poco::UInt64 checkoutTimeouts = 0; /// checkouts that gave up after Checkout Timeout
	Poco::UInt64 connectFailures = 0;  /// failed attempts to open a new session (a parallel race's cancelled
	                                   /// losers are not failures)
	Poco::UInt64 refusals = 0;         /// of connectFailures: opens the server refused with SQLSTATE 53300
	                                   /// (too many connections), taken as capacity, not as a down host
	int minSize = 0;
	int maxSize = 0;
	bool draining = false;
	ServerRole lastKnownRole = ServerRole::Unknown;
	Lsn walPosition;
		/// the endpoint's last known WAL position (doc/freshness.md): a standby's replay position, a
		/// primary's current position, as of the last role-and-WAL probe (0/0: not known; the freshness
		/// rules probe it, so it stays unknown while neither is in use)
	Poco::Int64 lagBytes = -1;
		/// how far that standby was behind the primary then, in bytes (0 for a primary; -1: not known)
	StatementStatistics statements;
		/// the sums over every session this pool has owned of their prepared statements, statement
		/// cache hits, evictions and re-prepares (Session::statementStatistics())

	PoolStatistics& operator += (const PoolStatistics& other);
		/// Adds counters and sizes; draining becomes true if either is; the role becomes Unknown.

	std::string toString() const;
		/// "total=3 idle=1 busy=2 pending=0 created=3 closed=0 evicted=0 timeouts=0 failures=0 min=0 max=20",
		/// then "prepared=2 cacheHits=96 evictions=0 reprepared=0" once a session prepared or hit anything,
		/// "wal=0/3000060 lag=4.2 MB" once the position is known; "connecting=2" and "refused=5" when not 0.
};

} // namespace BlueTusk

#endif // BlueTusk_PoolStatistics_INCLUDED
