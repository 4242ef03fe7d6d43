//
// FailoverWriter.cpp
//
// bluetusk-failover-writer: an application that keeps writing while its primary fails over. Writer threads
// share one pooled BlueTuskDataSource; each takes a read-write lease, INSERTs one row, returns the lease and
// pauses. With Failover Timeout in the connection string, a checkout made while there is no primary waits
// for the new one instead of failing. At the end it prints where the writes went (one line per run of
// writes on the same endpoint), the longest pause between two successful writes, what failed, and the
// pools' statistics; with --json also one JSON line (the demo's Patroni step reads it).
//
// Usage: bluetusk-failover-writer [--writers N] [--seconds S] [--pause-ms M] [--table NAME] [--json] CONNECTION
//   --writers N    writer threads (default 4)
//   --seconds S    how long to write (default 10)
//   --pause-ms M   pause after each write, per thread (default 20)
//   --table NAME   table to write into, created when missing (default demo_failover_writes)
//   --json         end with one JSON line: writes, failed_checkouts, failed_writes, longest_gap_ms,
//                  gap_from_ms, gap_to_ms (epoch milliseconds), segments [{endpoint, from_ms, to_ms, writes}]
// Exit status 0 when every checkout and write succeeded, 1 when some failed, 2 on bad usage or no connection.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Exception.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace BlueTusk;

namespace {

struct Options
{
	int writers = 4;
	int seconds = 10;
	int pauseMs = 20;
	std::string table = "demo_failover_writes";
	bool json = false;
	std::string connection;
};


struct Write
{
	std::int64_t at;       // epoch milliseconds when the INSERT had returned
	std::string endpoint;  // where it ran
};


std::int64_t epochMs()
{
	return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}


bool parse(int argc, char** argv, Options& options)
{
	for (int i = 1; i < argc; ++i)
	{
		const std::string arg = argv[i];
		const bool hasValue = i + 1 < argc;
		try
		{
			if (arg == "--writers" && hasValue) options.writers = std::stoi(argv[++i]);
			else if (arg == "--seconds" && hasValue) options.seconds = std::stoi(argv[++i]);
			else if (arg == "--pause-ms" && hasValue) options.pauseMs = std::stoi(argv[++i]);
			else if (arg == "--table" && hasValue) options.table = argv[++i];
			else if (arg == "--json") options.json = true;
			else if (arg.rfind("--", 0) != 0 && options.connection.empty()) options.connection = arg;
			else return false;
		}
		catch (std::exception&)
		{
			return false;
		}
	}
	const bool plainTable = !options.table.empty() && std::all_of(options.table.begin(), options.table.end(),
		[](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
	return !options.connection.empty() && options.writers >= 1 && options.seconds >= 1 && options.pauseMs >= 0 && plainTable;
}


class Writers
{
public:
	Writers(BlueTuskDataSource::Ptr dataSource, const Options& options):
		_dataSource(dataSource),
		_options(options)
	{
	}

	void run()
	{
		const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(_options.seconds);
		std::vector<std::thread> threads;
		for (int i = 0; i < _options.writers; ++i) threads.emplace_back([this, i, deadline] { write(i, deadline); });
		for (auto& thread: threads) thread.join();
		std::sort(_written.begin(), _written.end(), [](const Write& a, const Write& b) { return a.at < b.at; });
	}

	const std::vector<Write>& written() const { return _written; }
	long failedCheckouts() const { return _failedCheckouts; }
	long failedWrites() const { return _failedWrites; }

private:
	void write(int writer, std::chrono::steady_clock::time_point deadline)
	{
		for (long seq = 1; std::chrono::steady_clock::now() < deadline; ++seq)
		{
			BlueTuskConnection lease;
			try
			{
				lease = _dataSource->open(TargetSessionAttributes::ReadWrite);
			}
			catch (Poco::Exception& exc)
			{
				++_failedCheckouts;
				report("checkout failed: " + exc.displayText());
				continue;
			}
			const std::string endpoint = lease.connectedEndpoint().toString();
			try
			{
				lease.executeSimple("INSERT INTO " + _options.table + "(writer, seq) VALUES (" + std::to_string(writer) +
					", " + std::to_string(seq) + ")");
				std::lock_guard<std::mutex> lock(_mutex);
				_written.push_back(Write{epochMs(), endpoint});
			}
			catch (Poco::Exception& exc)
			{
				++_failedWrites;   // in flight when its server died: the application's to retry, never BlueTusk's
				report("write on " + endpoint + " failed: " + exc.displayText());
			}
			lease.close();
			std::this_thread::sleep_for(std::chrono::milliseconds(_options.pauseMs));
		}
	}

	void report(const std::string& text)
	{
		std::lock_guard<std::mutex> lock(_mutex);
		std::cout << text << std::endl;
	}

	BlueTuskDataSource::Ptr _dataSource;
	const Options& _options;
	std::mutex _mutex;
	std::vector<Write> _written;
	std::atomic<long> _failedCheckouts{0};
	std::atomic<long> _failedWrites{0};
};


std::string jsonText(const std::string& text)
{
	std::string quoted = "\"";
	for (char c: text)
	{
		if (c == '"' || c == '\\') quoted += '\\';
		quoted += c;
	}
	return quoted + "\"";
}


void summarize(const Writers& writers, const Options& options, const PoolStatistics& statistics)
{
	const std::vector<Write>& written = writers.written();
	std::int64_t gap = 0, gapFrom = 0, gapTo = 0;
	std::string segments;
	std::size_t start = 0;
	for (std::size_t i = 0; i < written.size(); ++i)
	{
		if (i > 0 && written[i].at - written[i - 1].at > gap)
		{
			gap = written[i].at - written[i - 1].at;
			gapFrom = written[i - 1].at;
			gapTo = written[i].at;
		}
		if (i + 1 == written.size() || written[i + 1].endpoint != written[start].endpoint)
		{
			const long count = static_cast<long>(i - start + 1);
			std::cout << "writes on " << written[start].endpoint << ": " << count << " (for "
				<< (written[i].at - written[start].at) << " ms)" << std::endl;
			segments += std::string(segments.empty() ? "" : ", ") + "{\"endpoint\": " + jsonText(written[start].endpoint) +
				", \"from_ms\": " + std::to_string(written[start].at) + ", \"to_ms\": " + std::to_string(written[i].at) +
				", \"writes\": " + std::to_string(count) + "}";
			start = i + 1;
		}
	}
	std::cout << options.writers << " writers, " << written.size() << " writes in " << options.seconds << " s; failed checkouts "
		<< writers.failedCheckouts() << ", failed writes " << writers.failedWrites() << "; longest pause between two writes "
		<< gap << " ms" << std::endl;
	std::cout << "pools: " << statistics.toString() << std::endl;
	if (options.json)
	{
		std::cout << "{\"writes\": " << written.size() << ", \"failed_checkouts\": " << writers.failedCheckouts()
			<< ", \"failed_writes\": " << writers.failedWrites() << ", \"longest_gap_ms\": " << gap << ", \"gap_from_ms\": "
			<< gapFrom << ", \"gap_to_ms\": " << gapTo << ", \"segments\": [" << segments << "]}" << std::endl;
	}
}

} // namespace


int main(int argc, char** argv)
{
	Options options;
	if (!parse(argc, argv, options))
	{
		std::cerr << "usage: bluetusk-failover-writer [--writers N] [--seconds S] [--pause-ms M] [--table NAME] [--json] CONNECTION\n"
			"  (NAME: lower-case letters, digits and _; CONNECTION: a BlueTusk connection string, e.g. with Failover Timeout=20)" << std::endl;
		return 2;
	}
	try
	{
		BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(options.connection);
		{
			BlueTuskConnection lease = dataSource->open(TargetSessionAttributes::ReadWrite);
			lease.executeSimple("CREATE TABLE IF NOT EXISTS " + options.table + " (id bigserial PRIMARY KEY, writer int NOT NULL, "
				"seq bigint NOT NULL, written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
			std::cout << "writing into " << options.table << " on " << lease.connectedEndpoint().toString() << " with "
				<< options.writers << " writers for " << options.seconds << " s" << std::endl;
		}
		Writers writers(dataSource, options);
		writers.run();
		summarize(writers, options, dataSource->getPoolStatistics());
		return writers.failedCheckouts() + writers.failedWrites() == 0 ? 0 : 1;
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "error: " << exc.displayText() << std::endl;
		return 2;
	}
}
