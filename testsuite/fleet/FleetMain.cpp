//
// FleetMain.cpp
//
// bluetusk-fleet: the client side of scripts/fleet (doc/high-availability.md, "A fleet through a
// failover"). Three modes:
//
//   bluetusk-fleet setup --connection STRING
//       creates the table fleet_writes afresh (on the primary).
//   bluetusk-fleet worker --process N --connection STRING [--read-connection STRING] [--writers N]
//                         [--readers N] [--think-ms MS] [--retry-ms MS] [--write-target T] [--read-target T]
//                         [--seconds S]
//       one process of the fleet (FleetWorker.h): JSON lines on stdout until SIGTERM or S seconds.
//   bluetusk-fleet watch --member STRING --member STRING ... [--seconds S]
//       the independent promotion watch: asks every member (one single-host connection string each)
//       pg_is_in_recovery() every 5 ms on its own session and thread; the first member seen as a standby and then
//       as a primary is "the new primary accepts writes": prints {"event":"promoted","server":..,"at_us":..}
//       and exits 0; exit 1 when no promotion is seen within S seconds (default 60).
//
// Exit status 2 on bad usage.
//

#include "FleetErrors.h"
#include "FleetWorker.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "Poco/Exception.h"
#include <csignal>
#include <functional>
#include <mutex>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace BlueTusk;
using namespace BlueTusk::Fleet;

namespace {

std::atomic<bool> stopRequested{false};

extern "C" void onSignal(int)
{
	stopRequested = true;
}


struct Arguments
{
	std::string mode;
	WorkerOptions worker;
	std::vector<std::string> members;
	int watchSeconds = 60;
};


Arguments parse(int argc, char** argv)
{
	if (argc < 2) throw std::invalid_argument("a mode is required: setup, worker or watch");
	Arguments arguments;
	arguments.mode = argv[1];
	if (arguments.mode != "setup" && arguments.mode != "worker" && arguments.mode != "watch")
		throw std::invalid_argument("unknown mode " + arguments.mode + " (setup, worker, watch)");
	WorkerOptions& worker = arguments.worker;
	for (int i = 2; i < argc; ++i)
	{
		const std::string arg = argv[i];
		if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
		const std::string value = argv[++i];
		auto number = [&]() -> int
		{
			std::size_t used = 0;
			const int n = std::stoi(value, &used);
			if (used != value.size() || n < 0) throw std::invalid_argument(arg + " needs a number >= 0, not " + value);
			return n;
		};
		if (arg == "--connection") worker.connection = value;
		else if (arg == "--read-connection") worker.readConnection = value;
		else if (arg == "--process") worker.process = number();
		else if (arg == "--writers") worker.writers = number();
		else if (arg == "--readers") worker.readers = number();
		else if (arg == "--think-ms") worker.thinkMs = number();
		else if (arg == "--retry-ms") worker.retryMs = number();
		else if (arg == "--write-target") worker.writeTarget = value;
		else if (arg == "--read-target") worker.readTarget = value;
		else if (arg == "--seconds") worker.seconds = arguments.watchSeconds = number();
		else if (arg == "--member") arguments.members.push_back(value);
		else throw std::invalid_argument("unknown argument " + arg + " (see the header of testsuite/fleet/FleetMain.cpp)");
	}
	if (arguments.mode == "watch" && arguments.members.size() < 2) throw std::invalid_argument("watch needs two --member or more");
	if (arguments.mode != "watch" && worker.connection.empty()) throw std::invalid_argument("--connection is required");
	return arguments;
}


int setup(const std::string& connection)
{
	BlueTuskConnection db = BlueTuskConnection::open(connection + ";Target Session Attributes=read-write");
	db.executeSimple("DROP TABLE IF EXISTS fleet_writes; CREATE TABLE fleet_writes (id bigserial PRIMARY KEY, "
		"process int NOT NULL, writer int NOT NULL, seq bigint NOT NULL, server text NOT NULL, "
		"written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
	return 0;
}


void watchMember(const std::string& connection, std::int64_t deadline, std::mutex& mutex, std::string& promoted, std::int64_t& promotedAt)
	/// One member of the watch, on its own thread (a connect that hangs on one member delays no other):
	/// every 5 ms pg_is_in_recovery(); the first "f" after a "t" is that member's promotion.
{
	BlueTuskConnection session;
	bool seenStandby = false;
	while (nowMicros() < deadline && !stopRequested)
	{
		{
			std::lock_guard<std::mutex> lock(mutex);
			if (!promoted.empty()) return;
		}
		try
		{
			if (!session.isOpen()) session = BlueTuskConnection::open(connection);
			const QueryResult result = session.query("SELECT pg_is_in_recovery(), host(inet_server_addr()) || ':' || inet_server_port()");
			if (result.row(0).get<bool>(0)) seenStandby = true;
			else if (seenStandby)
			{
				const std::int64_t at = nowMicros();
				std::lock_guard<std::mutex> lock(mutex);
				if (promoted.empty())
				{
					promoted = result.row(0).get<std::string>(1);
					promotedAt = at;
				}
				return;
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		catch (Poco::Exception&)
		{
			session = BlueTuskConnection();
			std::this_thread::sleep_for(std::chrono::milliseconds(100));   // a dead member is asked again every 100 ms
		}
	}
}


int watch(const Arguments& arguments)
{
	const std::int64_t deadline = nowMicros() + static_cast<std::int64_t>(arguments.watchSeconds) * 1000000;
	std::mutex mutex;
	std::string promoted;
	std::int64_t promotedAt = 0;
	std::vector<std::thread> threads;
	for (const auto& member: arguments.members)
	{
		threads.emplace_back(watchMember, member + ";Timeout=1;Command Timeout=1", deadline, std::ref(mutex), std::ref(promoted), std::ref(promotedAt));
	}
	for (auto& thread: threads) thread.join();
	if (promoted.empty())
	{
		std::cout << "{\"event\":\"no promotion\",\"at_us\":" << nowMicros() << "}" << std::endl;
		return 1;
	}
	std::cout << "{\"event\":\"promoted\",\"server\":" << jsonText(promoted) << ",\"at_us\":" << promotedAt << "}" << std::endl;
	return 0;
}

} // namespace


int main(int argc, char** argv)
{
	Arguments arguments;
	try
	{
		arguments = parse(argc, argv);
	}
	catch (std::exception& exc)
	{
		std::cerr << "bluetusk-fleet: " << exc.what() << std::endl;
		return 2;
	}
	std::signal(SIGTERM, onSignal);
	std::signal(SIGINT, onSignal);
	try
	{
		if (arguments.mode == "setup") return setup(arguments.worker.connection);
		if (arguments.mode == "watch") return watch(arguments);
		return runWorker(arguments.worker, stopRequested);
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "bluetusk-fleet " << arguments.mode << ": " << exc.displayText() << std::endl;
		return 1;
	}
}
