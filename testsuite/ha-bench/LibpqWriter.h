//
// LibpqWriter.h
//
// The libpq side of the failover benchmark: one thread that writes in a loop through one libpq connection
// and, when the connection or a write fails, reconnects every 50 ms, the way an application without a
// failover-aware driver does. Used twice: with a multi-host string and target_session_attrs=read-write,
// and through HAProxy (one address).
//

#ifndef BlueTusk_LibpqWriter_INCLUDED
#define BlueTusk_LibpqWriter_INCLUDED

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Test {

class LibpqWriter
	/// Loop: connect (when not connected; a failed connect is counted and retried after retryMs), INSERT
	/// one row into bt_failover_bench RETURNING the server's address, pause pauseMs. A failed INSERT is
	/// counted, the connection is dropped and reconnected after retryMs. Every successful write is kept
	/// with its completion time (nowMicros()) and the member that acknowledged it. Counters may be read
	/// while running; stop() joins the thread.
{
public:
	LibpqWriter(const std::string& client, const std::string& conninfo, int pauseMs, int retryMs);
		/// client tags the rows (column client) and the failure texts.
	~LibpqWriter();
		/// stop().

	void start();
	void stop();
		/// Asks the thread to finish its current operation (bounded by connect_timeout) and joins it.

	std::int64_t firstWriteOn(const std::string& host, std::int64_t after) const;
		/// Completion time of the first write acknowledged by host at or after after; 0 when none.
	long writesOn(const std::string& host, std::int64_t after) const;
		/// Writes acknowledged by host at or after after.
	long writesNotOn(const std::string& host, std::int64_t after) const;
		/// Writes acknowledged by any other member at or after after.

	std::atomic<long> writes{0};            /// successful INSERTs
	std::atomic<long> connectFailures{0};   /// PQconnectdb that did not give a usable connection
	std::atomic<long> writeFailures{0};     /// INSERTs that failed on an open connection
	std::atomic<long> readOnlyRefusals{0};  /// of those, refused as read-only (SQLSTATE 25006: a standby)

	std::string failures() const;
		/// The first failure texts, one a line.

private:
	void run();
	void note(const std::string& text);

	struct Write
	{
		std::int64_t at;
		std::string host;
	};

	std::string _client;
	std::string _conninfo;
	int _pauseMs;
	int _retryMs;
	std::atomic<bool> _stop{false};
	std::thread _thread;
	mutable std::mutex _mutex;
	std::vector<Write> _written;
	std::vector<std::string> _failures;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_LibpqWriter_INCLUDED
