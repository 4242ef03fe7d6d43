//
// BenchmarkEnvironment.cpp
//

#include "BenchmarkEnvironment.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace BlueTusk {
namespace Bench {

std::string blueTusk(const std::string& hostList, const std::string& extra)
{
	return Test::cluster().connectionString(hostList, extra);
}


std::string libpq(const std::string& hostList, const std::string& extra, const std::string& portList)
{
	const auto& c = Test::cluster();
	std::string text = "host=" + hostList + " port=" + (portList.empty() ? std::to_string(c.port) : portList) +
		" user=" + c.user + " password=" + c.password + " dbname=" + c.database + " gssencmode=disable";
	if (!extra.empty()) text += " " + extra;
	return text;
}


std::string primary()
{
	return Test::cluster().hosts.at(0);
}


std::string allNodes()
{
	const auto& hosts = Test::cluster().hosts;
	std::string list;
	for (const auto& host: hosts)
	{
		if (!list.empty()) list += ",";
		list += host;
	}
	return list;
}


LibpqConnection::LibpqConnection(const std::string& conninfo):
	_conn(PQconnectdb(conninfo.c_str()))
{
	if (PQstatus(_conn) != CONNECTION_OK)
	{
		std::string message = _conn ? PQerrorMessage(_conn) : "out of memory";
		PQfinish(_conn);
		_conn = nullptr;
		throw std::runtime_error("libpq: " + message);
	}
}


void execParamsLoop(benchmark::State& state, const std::string& conninfo, const char* sql, const char* value)
{
	LibpqConnection connection(conninfo);
	const char* values[1] = {value};
	for (auto _: state)
	{
		PGresult* result = PQexecParams(connection.get(), sql, 1, nullptr, values, nullptr, nullptr, 0);
		checkResult(result, PGRES_TUPLES_OK);
		benchmark::DoNotOptimize(std::strtol(PQgetvalue(result, 0, 0), nullptr, 10));
		PQclear(result);
	}
}


LibpqConnection::LibpqConnection(LibpqConnection&& other) noexcept:
	_conn(other._conn)
{
	other._conn = nullptr;
}


LibpqConnection::~LibpqConnection()
{
	if (_conn) PQfinish(_conn);
}


void checkResult(PGresult* result, ExecStatusType expected)
{
	if (PQresultStatus(result) != expected)
	{
		std::string message = result ? PQresultErrorMessage(result) : "no result";
		PQclear(result);
		throw std::runtime_error("libpq: " + message);
	}
}


int repetitions(int defaultCount)
{
	const char* value = std::getenv("BLUETUSK_BENCH_REPETITIONS");
	if (value && *value) return std::max(1, std::atoi(value));
	return defaultCount;
}


double percentile(std::vector<double> values, double fraction)
{
	if (values.empty()) return 0;
	std::size_t rank = static_cast<std::size_t>(std::ceil(fraction * values.size()));
	std::size_t index = rank == 0 ? 0 : std::min(rank, values.size()) - 1;
	std::nth_element(values.begin(), values.begin() + index, values.end());
	return values[index];
}


double runThreads(int threads, const std::function<void(int)>& body)
{
	std::mutex mutex;
	std::condition_variable gate;
	bool open = false;
	std::exception_ptr failure;
	std::vector<std::thread> workers;
	workers.reserve(threads);
	for (int i = 0; i < threads; ++i)
	{
		workers.emplace_back([&, i]
		{
			{
				std::unique_lock<std::mutex> lock(mutex);
				gate.wait(lock, [&] { return open; });
			}
			try
			{
				body(i);
			}
			catch (...)
			{
				std::lock_guard<std::mutex> lock(mutex);
				if (!failure) failure = std::current_exception();
			}
		});
	}
	auto start = Clock::now();
	{
		std::lock_guard<std::mutex> lock(mutex);
		open = true;
	}
	gate.notify_all();
	for (auto& worker: workers) worker.join();
	double elapsed = secondsSince(start);
	if (failure) std::rethrow_exception(failure);
	return elapsed;
}


void warmUp(int threads, const std::function<void()>& once, double seconds)
{
	const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
	runThreads(threads, [&](int)
	{
		while (Clock::now() < end) once();
	});
}

} } // namespace BlueTusk::Bench
