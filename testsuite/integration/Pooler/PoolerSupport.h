//
// PoolerSupport.h
//
// What the pooler suites share: the PgBouncers' port, connection strings through them and their script
// (scripts/pgbouncer), the way to make a named statement disappear from every server session of node 1's
// PgBouncer, and a runner that counts the rounds of many threads that threw.
//

#ifndef BlueTusk_Test_PoolerSupport_INCLUDED
#define BlueTusk_Test_PoolerSupport_INCLUDED

#include "BlueTusk/BlueTuskConnection.h"
#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/Exception.h"
#include "Poco/NumberParser.h"
#include <atomic>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include <sys/wait.h>

namespace BlueTusk {
namespace Test {

inline int poolerPort()
	/// BLUETUSK_PGBOUNCER_PORT, else the cluster's port + 7 (scripts/pgbouncer).
{
	const std::string text = Poco::Environment::get("BLUETUSK_PGBOUNCER_PORT", "");
	return text.empty() ? cluster().port + 7 : Poco::NumberParser::parse(text);
}


inline std::string poolerTestString(const std::string& hosts, int port, const std::string& extra)
{
	std::string text = "Host=" + hosts + ";Port=" + std::to_string(port) + ";Username=" + cluster().user +
		";Password=" + cluster().password + ";Database=" + cluster().database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}


inline std::string throughPooler(const std::string& hosts, const std::string& extra = "")
	/// A connection string through the PgBouncers of hosts ("127.0.0.1" or "127.0.0.1,127.0.0.2,127.0.0.3").
{
	return poolerTestString(hosts, poolerPort(), extra);
}


inline std::string throughPooler(int node, const std::string& extra = "")
	/// Node node's PgBouncer alone (127.0.0.<node>), then extra.
{
	return throughPooler("127.0.0." + std::to_string(node), extra);
}


inline int runPgBouncerCommand(const std::string& arguments)
	/// Runs scripts/pgbouncer with arguments for this cluster (its port and directory); returns the exit
	/// status (-1 if it did not exit). Its output is discarded.
{
	const std::string command = "BLUETUSK_CLUSTER_PORT=" + std::to_string(cluster().port) + " BLUETUSK_CLUSTER_DIR='" +
		cluster().clusterDir + "' '" + cluster().scriptsDir + "/pgbouncer' " + arguments + " >/dev/null 2>&1";
	const int status = std::system(command.c_str());
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


inline std::string throughPoolers(const std::string& extra = "")
	/// The three PgBouncers, default settings otherwise.
{
	return throughPooler("127.0.0.1,127.0.0.2,127.0.0.3", extra);
}


inline std::string toServer(const std::string& extra = "")
	/// A connection string to node 1 itself, no pooler.
{
	return poolerTestString("127.0.0.1", cluster().port, extra);
}


constexpr int POOLER_SERVER_SESSIONS = 8;   /// scripts/pgbouncer's default_pool_size


inline int deallocateOnEveryServerSession()
	/// Holds every server session of node 1's PgBouncer at once (one client each, in a transaction block) and
	/// runs DEALLOCATE ALL on each: a named statement prepared through it exists nowhere afterwards, so its
	/// next use meets 26000, the first sign of a transaction pooler. Returns how many distinct server
	/// processes ran it (POOLER_SERVER_SESSIONS when every one was reached).
{
	std::vector<BlueTuskConnection> holders;
	std::set<Poco::Int32> processes;
	for (int i = 0; i < POOLER_SERVER_SESSIONS; ++i)
	{
		holders.push_back(BlueTuskConnection::open(throughPooler("127.0.0.1", "Server Pooling=session;Max Auto Prepare=0")));
		holders.back().executeSimple("BEGIN; DEALLOCATE ALL");
		processes.insert(holders.back().executeSimple("SELECT pg_backend_pid()").front().row(0).get<Poco::Int32>(0));
	}
	for (BlueTuskConnection& holder: holders) holder.executeSimple("COMMIT");
	return static_cast<int>(processes.size());
}


inline int countErrors(int threads, int rounds, const std::function<void(int thread, int round)>& work)
	/// Runs work(t, i) for i < rounds on each of threads threads; returns how many rounds threw a
	/// Poco::Exception (the first one is printed).
{
	std::atomic<int> errors{0};
	std::mutex mutex;
	std::string firstError;
	std::vector<std::thread> running;
	for (int t = 0; t < threads; ++t)
	{
		running.emplace_back([&, t]
		{
			for (int i = 0; i < rounds; ++i)
			{
				try
				{
					work(t, i);
				}
				catch (const Poco::Exception& exc)
				{
					std::lock_guard<std::mutex> lock(mutex);
					if (errors++ == 0) firstError = exc.displayText();
				}
			}
		});
	}
	for (std::thread& thread: running) thread.join();
	if (errors > 0) std::cerr << "first error of " << errors << ": " << firstError << std::endl;
	return errors;
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_PoolerSupport_INCLUDED
