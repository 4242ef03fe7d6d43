//
// CheckoutLoop.cpp
//
// bluetusk-checkout-loop CONNECTION_STRING TARGET [N]: one thread checks out (open(TARGET)) and returns a
// session N times (default 5000) after 50 unmeasured ones, and prints the median, mean, p99 and max of one
// checkout+return in microseconds, with the threads the process started meanwhile. TARGET is a standard
// name (any, standby, ...) or a site target-session policy's (load it with Plugin Path). Used for the
// figures in doc/plugin-calls.md ("Where and how policies are called"); builds against the public API only.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "Poco/Exception.h"
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace {

int threadsAlive()
	/// Threads of this process alive now (Linux /proc/self/task).
{
	int count = 0;
	if (DIR* dir = opendir("/proc/self/task"))
	{
		while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
		closedir(dir);
	}
	return count;
}

} // namespace


int main(int argc, char** argv)
{
	if (argc < 3)
	{
		std::cerr << "usage: bluetusk-checkout-loop CONNECTION_STRING TARGET [N]\n";
		return 1;
	}
	const std::string target = argv[2];
	const int n = argc > 3 ? std::max(100, std::atoi(argv[3])) : 5000;
	try
	{
		BlueTusk::BlueTuskDataSource::Ptr dataSource = BlueTusk::BlueTuskDataSource::create(argv[1]);
		for (int i = 0; i < 50; ++i) dataSource->open(target).close();
		const int threadsBefore = threadsAlive();
		std::vector<double> times;
		times.reserve(n);
		const auto all = std::chrono::steady_clock::now();
		for (int i = 0; i < n; ++i)
		{
			const auto start = std::chrono::steady_clock::now();
			dataSource->open(target).close();
			times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
		}
		const double total = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - all).count();
		std::sort(times.begin(), times.end());
		std::cout << std::fixed << std::setprecision(1) << "target=" << target << " n=" << n << " median=" << times[n / 2]
			<< " us mean=" << total / n << " us p99=" << times[n * 99 / 100] << " us max=" << times.back() << " us threads="
			<< threadsBefore << "->" << threadsAlive() << "\n";
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "error: " << exc.displayText() << "\n";
		return 2;
	}
	return 0;
}
