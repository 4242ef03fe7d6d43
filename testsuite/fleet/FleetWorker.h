//
// FleetWorker.h
//
// bluetusk-fleet's worker: one application process of the fleet (scripts/fleet): one pooled data source,
// a few writer and reader threads with think time, every failure counted by kind, one JSON line a second.
//

#ifndef BlueTusk_FleetWorker_INCLUDED
#define BlueTusk_FleetWorker_INCLUDED

#include <atomic>
#include <cstdint>
#include <string>

namespace BlueTusk {
namespace Fleet {

struct WorkerOptions
	/// One worker's settings, from bluetusk-fleet's command line (FleetMain.cpp).
{
	int process = 0;                 /// this process's number in the fleet: Application Name=bluetusk-fleet-<process>
	std::string connection;          /// the writers' data source (and the readers' unless readConnection is set)
	std::string readConnection;      /// the readers' own data source (HAProxy's replica port), or ""
	std::string writeTarget = "read-write";    /// the writers' Target Session Attributes ("any" through HAProxy)
	std::string readTarget = "prefer-standby"; /// the readers' Target Session Attributes
	int writers = 4;                 /// writer threads: each an INSERT returning the server's address, then think time
	int readers = 2;                 /// reader threads: each a small SELECT, then think time
	int thinkMs = 500;               /// mean pause after a successful operation (uniform in [thinkMs/2, 3*thinkMs/2])
	int retryMs = 50;                /// pause after a failed operation
	int seconds = 900;               /// the worker stops by itself after this long (a deadline, should scripts/fleet die)
};

std::int64_t nowMicros();
	/// Microseconds since the epoch (CLOCK_REALTIME: the same clock for every process and for scripts/fleet).

int runWorker(const WorkerOptions& options, const std::atomic<bool>& stop);
	/// Runs the worker until stop becomes true or options.seconds pass. Prints to stdout, one JSON object a
	/// line: "second" (per second: writes, reads, write_errors and read_errors by kind, sessions per endpoint
	/// from the pool statistics, sessions created), "write_on" (the process's first write on a server other
	/// than its previous write's), "recovered" (the first successful write after a streak of failed ones:
	/// when the streak began, how many failed), "error" (the first failure of a streak, its text) and,
	/// at the end, "summary". Returns 0, or 2 when the data source cannot be created.

} } // namespace BlueTusk::Fleet

#endif // BlueTusk_FleetWorker_INCLUDED
