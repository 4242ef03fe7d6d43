//
// PoolerTestSupport.h
//
// What the pooler suites share: the connection string through the per-node PgBouncers (scripts/pgbouncer)
// and a runner that counts the rounds of many threads that threw.
//

#ifndef BlueTusk_PoolerTestSupport_INCLUDED
#define BlueTusk_PoolerTestSupport_INCLUDED

#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/Exception.h"
#include "Poco/NumberParser.h"
#include <atomic>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Test {

inline int poolerPort()
	/// BLUETUSK_PGBOUNCER_PORT, else the cluster port + 7 (scripts/pgbouncer's default).
{
	const std::string text = Poco::Environment::get("BLUETUSK_PGBOUNCER_PORT", "");
	return text.empty() ? cluster().port + 7 : Poco::NumberParser::parse(text);
}


inline std::string throughPoolers(const std::string& extra = "")
	/// The three PgBouncers, default settings otherwise.
{
	std::string text = "Host=127.0.0.1,127.0.0.2,127.0.0.3;Port=" + std::to_string(poolerPort()) + ";Username=" +
		cluster().user + ";Password=" + cluster().password + ";Database=" + cluster().database;
	if (!extra.empty()) text += ";" + extra;
	return text;
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

#endif // BlueTusk_PoolerTestSupport_INCLUDED
