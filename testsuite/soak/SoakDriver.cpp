//
// SoakDriver.cpp
//
// bluetusk-soak (doc/reliability.md): THREADS worker threads on one pooled BlueTuskDataSource
// over the local cluster (scripts/cluster) for SECONDS while a fault thread, every INTERVAL seconds, takes
// the next step of a cycle: stop standby 2, start it, SIGKILL standby 3's postmaster, start it, stop the
// primary (node 1), promote node 2, rebuild the original topology (scripts/cluster reset). Workers alternate
// read-write leases (asking pg_is_in_recovery(): a write lease on a standby is a violation) and
// prefer-standby leases, each running one query and returning the lease.
//
// After the faults: the cluster is reset, the workers run 10 s (idle sessions the reset broke are found on
// use and replaced) and SETTLE seconds more (every operation must then succeed), stop, and the driver checks that every lease came back (busy 0, pending 0, idle == total,
// created - closed == total), that no write lease ever reached a standby, and, after drain(), that the
// pools are empty and the open file descriptors and RSS are back near their values after the warm-up.
//
// The cluster's directory comes from BLUETUSK_CLUSTER_DIR (as for scripts/cluster), for the SIGKILL step.
//
// Usage: bluetusk-soak [--seconds S] [--threads N] [--interval S] [--settle S] [--pause-ms M] [--cluster SCRIPT] CONNECTION
// (--pause-ms: each worker's pause after returning a lease, default 10, so the soak leaves the shared
// machine some CPU; 0 for full speed)
// Prints one line per fault step and a summary; exit status 0 when every check passed, 1 otherwise, 2 on
// bad usage or when the warm-up failed.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Exception.h"
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <csignal>
#include <dirent.h>
#include <sys/types.h>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace BlueTusk;
using Clock = std::chrono::steady_clock;

namespace {

struct Options
{
	int seconds = 600;
	int threads = 32;
	int interval = 20;
	int settle = 15;
	int pauseMs = 10;
	std::string cluster = "scripts/cluster";
	std::string connection;
};


bool parse(int argc, char** argv, Options& options)
{
	for (int i = 1; i < argc; ++i)
	{
		const std::string arg = argv[i];
		const bool hasValue = i + 1 < argc;
		try
		{
			if (arg == "--seconds" && hasValue) options.seconds = std::stoi(argv[++i]);
			else if (arg == "--threads" && hasValue) options.threads = std::stoi(argv[++i]);
			else if (arg == "--interval" && hasValue) options.interval = std::stoi(argv[++i]);
			else if (arg == "--settle" && hasValue) options.settle = std::stoi(argv[++i]);
			else if (arg == "--pause-ms" && hasValue) options.pauseMs = std::stoi(argv[++i]);
			else if (arg == "--cluster" && hasValue) options.cluster = argv[++i];
			else if (arg.rfind("--", 0) != 0 && options.connection.empty()) options.connection = arg;
			else return false;
		}
		catch (std::exception&)
		{
			return false;
		}
	}
	return !options.connection.empty() && options.seconds >= 1 && options.threads >= 1 && options.interval >= 1 && options.settle >= 1 && options.pauseMs >= 0;
}


long openDescriptors()
{
	long count = 0;
	if (DIR* dir = opendir("/proc/self/fd"))
	{
		while (readdir(dir)) ++count;
		closedir(dir);
	}
	return count - 3; // ".", ".." and the directory's own descriptor
}


long residentKilobytes()
{
	std::ifstream status("/proc/self/status");
	std::string line;
	while (std::getline(status, line))
	{
		if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
	}
	return -1;
}


class Workers
{
public:
	Workers(BlueTuskDataSource::Ptr dataSource, int pauseMs): _dataSource(dataSource), _pauseMs(pauseMs)
	{
	}

	void start(int threads)
	{
		_stop = false;
		for (int i = 0; i < threads; ++i) _threads.emplace_back([this, i] { work(i); });
	}

	void stop()
	{
		_stop = true;
		for (auto& thread: _threads) thread.join();
		_threads.clear();
	}

	void resetFailures()
	{
		_failures = 0;
	}

	std::atomic<long> operations{0};
	std::atomic<long> writeLeases{0};
	std::atomic<long> standbyWrites{0};
	std::atomic<long> leasesOut{0};
	long failures() const { return _failures; }

private:
	void work(int index)
	{
		const bool writer = index % 2 == 0;
		while (!_stop)
		{
			try
			{
				BlueTuskConnection lease = _dataSource->open(writer ? TargetSessionAttributes::ReadWrite : TargetSessionAttributes::PreferStandby);
				++leasesOut;
				try
				{
					std::vector<QueryResult> results = lease.executeSimple("SELECT pg_is_in_recovery()");
					if (writer)
					{
						++writeLeases;
						if (results.at(0).rows.at(0).at(0).value_or("") == "t")
						{
							++standbyWrites;
							report("VIOLATION: a read-write lease on standby " + lease.connectedEndpoint().toString());
						}
					}
					++operations;
				}
				catch (Poco::Exception&)
				{
					++_failures;
				}
				lease.close();
				--leasesOut;
				std::this_thread::sleep_for(std::chrono::milliseconds(_pauseMs));
			}
			catch (Poco::Exception& exc)
			{
				++_failures;
				if (_failures % 500 == 1) report("checkout failed (" + std::to_string(_failures) + " so far): " + exc.displayText());
				std::this_thread::sleep_for(std::chrono::milliseconds(50));
			}
		}
	}

	void report(const std::string& text)
	{
		std::lock_guard<std::mutex> lock(_mutex);
		std::cout << text << std::endl;
	}

	BlueTuskDataSource::Ptr _dataSource;
	int _pauseMs;
	std::vector<std::thread> _threads;
	std::atomic<bool> _stop{false};
	std::atomic<long> _failures{0};
	std::mutex _mutex;
};


int sigkillNode(const std::string& node)
	/// SIGKILL to the node's postmaster (its pid is the first line of <cluster dir>/node<N>/data/postmaster.pid).
{
	const char* dir = std::getenv("BLUETUSK_CLUSTER_DIR");
	std::ifstream pidFile(std::string(dir ? dir : "") + "/node" + node + "/data/postmaster.pid");
	long pid = 0;
	if (!dir || !(pidFile >> pid) || pid <= 1) return -1;
	return ::kill(static_cast<pid_t>(pid), SIGKILL);
}


int cluster(const Options& options, const std::string& arguments)
{
	if (arguments.rfind("sigkill-node ", 0) == 0)
	{
		const int status = sigkillNode(arguments.substr(13));
		std::cout << "fault: SIGKILL to the postmaster of node " << arguments.substr(13) << (status == 0 ? "" : " (failed)") << std::endl;
		return status;
	}
	std::cout << "fault: cluster " << arguments << std::endl;
	const std::string command = options.cluster + " " + arguments + " >/dev/null 2>&1";
	const int status = std::system(command.c_str());
	if (status != 0) std::cout << "fault: cluster " << arguments << " exited with " << status << std::endl;
	return status;
}


void faults(const Options& options, Clock::time_point end, int& steps)
{
	static const char* const cycle[] = {"stop-node 2", "start-node 2", "sigkill-node 3", "start-node 3", "stop-node 1", "promote 2", "reset"};
	std::size_t next = 0;
	while (Clock::now() + std::chrono::seconds(options.interval) <= end)
	{
		std::this_thread::sleep_for(std::chrono::seconds(options.interval));
		cluster(options, cycle[next]);
		++steps;
		next = (next + 1) % (sizeof(cycle) / sizeof(cycle[0]));
	}
}

} // namespace


int main(int argc, char** argv)
{
	Options options;
	if (!parse(argc, argv, options))
	{
		std::cerr << "usage: bluetusk-soak [--seconds S] [--threads N] [--interval S] [--settle S] [--pause-ms M] [--cluster SCRIPT] CONNECTION" << std::endl;
		return 2;
	}
	BlueTuskDataSource::Ptr dataSource;
	long fdStart = 0, rssStart = 0;
		try
	{
		dataSource = BlueTuskDataSource::create(options.connection);
		// warm-up: the pools fill and every lazily built structure exists before the baseline is taken
		Workers warmup(dataSource, options.pauseMs);
		warmup.start(options.threads);
		std::this_thread::sleep_for(std::chrono::seconds(3));
		warmup.stop();
		if (warmup.failures() > 0 || warmup.operations == 0)
		{
			std::cerr << "warm-up failed: " << warmup.failures() << " failures, " << warmup.operations << " operations" << std::endl;
			return 2;
		}
		fdStart = openDescriptors();
		rssStart = residentKilobytes();
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "error: " << exc.displayText() << std::endl;
		return 2;
	}
	std::cout << "soak: " << options.threads << " threads for " << options.seconds << " s, a fault every " << options.interval
		<< " s; after warm-up " << fdStart << " descriptors, RSS " << rssStart << " kB; " << dataSource->getPoolStatistics().toString() << std::endl;

	Workers load(dataSource, options.pauseMs);
	const auto end = Clock::now() + std::chrono::seconds(options.seconds);
	load.start(options.threads);
	int steps = 0;
	faults(options, end, steps);
	std::this_thread::sleep_until(end);
	const long faultFailures = load.failures();
	const long faultOperations = load.operations;

	// settle: the original topology again; every operation from here on must succeed
	cluster(options, "reset");
	std::this_thread::sleep_for(std::chrono::seconds(10));  // sessions broken by the reset are found and replaced
	load.resetFailures();
	const long settleStart = load.operations;
	std::this_thread::sleep_for(std::chrono::seconds(options.settle));
	load.stop();
	const long settleFailures = load.failures();
	const long settleOperations = load.operations - settleStart;

	const PoolStatistics after = dataSource->getPoolStatistics();
	dataSource->drain();
	const PoolStatistics drained = dataSource->getPoolStatistics();
	const long fdEnd = openDescriptors();
	const long rssEnd = residentKilobytes();

	bool pass = true;
	auto check = [&pass](bool ok, const std::string& what)
	{
		std::cout << (ok ? "ok:   " : "FAIL: ") << what << std::endl;
		pass = pass && ok;
	};
	std::cout << "soak: " << faultOperations << " operations (" << load.writeLeases << " on read-write leases) and " << faultFailures
		<< " failed through " << steps << " fault steps; settle " << settleOperations << " operations" << std::endl;
	std::cout << "pools after the load: " << after.toString() << std::endl;
	std::cout << "pools after drain():  " << drained.toString() << std::endl;
	check(steps >= 1, std::to_string(steps) + " fault steps taken");
	check(load.standbyWrites == 0, std::to_string(load.standbyWrites) + " read-write leases on a standby");
	check(load.leasesOut == 0, std::to_string(load.leasesOut) + " leases not returned");
	check(after.busy == 0 && after.pending == 0 && after.idle == after.total,
		"every lease back: busy " + std::to_string(after.busy) + ", pending " + std::to_string(after.pending) + ", idle " +
		std::to_string(after.idle) + " of " + std::to_string(after.total));
	check(after.created - after.closed == static_cast<Poco::UInt64>(after.total),
		"counters balance: created " + std::to_string(after.created) + " - closed " + std::to_string(after.closed) + " = total " +
		std::to_string(after.total));
	check(drained.total == 0 && drained.created == drained.closed, "drain() closed every session (total " + std::to_string(drained.total) + ")");
	check(settleFailures == 0 && settleOperations > 0,
		"after the faults " + std::to_string(settleOperations) + " operations, " + std::to_string(settleFailures) + " failed");
	check(fdEnd <= fdStart + 2, "open descriptors " + std::to_string(fdStart) + " after warm-up, " + std::to_string(fdEnd) + " at the end");
	check(rssEnd <= rssStart + 32 * 1024, "RSS " + std::to_string(rssStart) + " kB after warm-up, " + std::to_string(rssEnd) + " kB at the end");
	std::cout << (pass ? "soak: PASS" : "soak: FAIL") << std::endl;
	return pass ? 0 : 1;
}
