//
// FailoverLoad.h
//
// The application side of a failover test: writer threads (read-write checkouts) and reader threads
// (prefer-standby checkouts) on one pooled BlueTuskDataSource, and a watch that sees the moment a member
// starts accepting writes.
//

#ifndef BlueTusk_FailoverLoad_INCLUDED
#define BlueTusk_FailoverLoad_INCLUDED

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/RoutingContext.h"
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Test {

std::int64_t nowMicros();
	/// Monotonic time (std::chrono::steady_clock) in microseconds.


class FailoverLoad
	/// writers threads loop: checkout read-write, SELECT pg_is_in_recovery() (a standby here is a routing
	/// bug), INSERT one row into bt_ha_writes, return the lease, pause. readers threads loop: checkout
	/// prefer-standby, SELECT pg_is_in_recovery(), return. Every outcome is counted; every successful write
	/// is kept with its completion time and member. A failed write on a checked-out session (its server
	/// died under it) is what an application retries; a failed checkout is what Failover Timeout must
	/// prevent. Counters may be read while running; stop() joins the threads.
{
public:
	struct Write
	{
		std::int64_t at;   /// nowMicros() when the INSERT had returned
		std::string host;  /// the member it ran on (as in the host list)
	};

	FailoverLoad(BlueTuskDataSource::Ptr dataSource, int writers, int readers, const std::string& run);
		/// run tags the rows written (column run).
	~FailoverLoad();
		/// stop().

	void start();
	void stop();
		/// Asks every thread to finish its current operation and joins them (each operation is bounded by
		/// the data source's Failover Timeout and Timeout).

	std::int64_t firstWriteOn(const std::string& host, std::int64_t after) const;
		/// Completion time of the first successful write on host that completed at or after after; 0 when none.
	long writesOn(const std::string& host, std::int64_t after) const;
		/// Successful writes on host completed at or after after.

	std::atomic<long> writes{0};              /// successful INSERTs
	std::atomic<long> writeErrors{0};         /// INSERT or its recovery check failed on a checked-out session
	std::atomic<long> standbyWriteSessions{0};/// read-write checkouts whose session was in recovery
	std::atomic<long> reads{0};               /// successful reads
	std::atomic<long> readsOnStandby{0};
	std::atomic<long> readErrors{0};
	std::atomic<long> checkoutFailures{0};    /// open() threw (writers and readers)

	std::string failures() const;
		/// The first failure texts (checkout failures, standby sessions, write errors), one a line.

private:
	void writer(int index);
	void reader();
	void note(const std::string& text);

	BlueTuskDataSource::Ptr _dataSource;
	int _writers;
	int _readers;
	std::string _run;
	std::atomic<bool> _stop{false};
	std::vector<std::thread> _threads;
	mutable std::mutex _mutex;
	std::vector<Write> _written;
	std::vector<std::string> _failures;
};


struct HaCluster;


class PromotionWatch
	/// One thread per watched member keeps an unpooled session (target any) and asks it
	/// pg_is_in_recovery() every pollMs; the first "f" records when that member left recovery. When the
	/// cluster holds writes after a promotion (HaCluster::holdsCommitsAfterPromotion), the thread then polls
	/// until its transactions are no longer read-only and commits one that has a transaction id (SELECT
	/// txid_current(): it waits for synchronous replication like any write), and records when that commit
	/// returned: the member accepts writes from then on. Otherwise leaving recovery is accepting writes. A
	/// lost session is reopened on the next poll.
{
public:
	PromotionWatch(const HaCluster& cluster, const std::vector<int>& nodes, int pollMs);
		/// Starts watching members nodes (1..3) of cluster at once.
	~PromotionWatch();
		/// Stops and joins.

	int promoted() const;
		/// The first member seen accepting writes, or 0.
	std::int64_t promotedAt() const;
		/// nowMicros() when promoted() was seen accepting writes; 0 when none has.
	std::int64_t leftRecoveryAt() const;
		/// nowMicros() when promoted() answered "not in recovery" (promotedAt() or before); 0 when none has.

private:
	void watch(int node);

	RoutingContext _connector;
	const HaCluster& _cluster;
	int _pollMs;
	std::atomic<bool> _stop{false};
	std::vector<std::thread> _threads;
	mutable std::mutex _mutex;
	int _promoted = 0;
	std::int64_t _promotedAt = 0;
	std::int64_t _leftRecoveryAt = 0;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_FailoverLoad_INCLUDED
