//
// FleetWorker.cpp
//
// One process of the fleet (FleetWorker.h).
//

#include "FleetWorker.h"
#include "FleetErrors.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Fleet {

std::int64_t nowMicros()
{
	return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

class Output
	/// Whole lines to stdout from several threads.
{
public:
	void line(const std::string& text)
	{
		std::lock_guard<std::mutex> lock(_mutex);
		std::cout << text << std::endl;
	}

private:
	std::mutex _mutex;
};


class WriteHistory
	/// The process's writes as the fleet's report needs them: which server the last one went to, and the
	/// current streak of failures. Thread-safe.
{
public:
	WriteHistory(int process, Output& output): _process(process), _output(output)
	{
	}

	void succeeded(const std::string& server, int writer)
	{
		const std::int64_t at = nowMicros();
		std::lock_guard<std::mutex> lock(_mutex);
		const std::string head = "{\"event\":\"%s\",\"proc\":" + std::to_string(_process) + ",\"writer\":" + std::to_string(writer) +
			",\"server\":" + jsonText(server) + ",\"at_us\":" + std::to_string(at);
		if (_streakErrors > 0)
		{
			_output.line(event(head, "recovered") + ",\"streak_start_us\":" + std::to_string(_streakStart) +
				",\"streak_errors\":" + std::to_string(_streakErrors) + "}");
			_streakErrors = 0;
		}
		if (server != _lastServer)
		{
			_output.line(event(head, "write_on") + ",\"previous\":" + jsonText(_lastServer) + "}");
			_lastServer = server;
		}
	}

	void failed(const std::string& kind, const std::string& text, int writer)
	{
		const std::int64_t at = nowMicros();
		std::lock_guard<std::mutex> lock(_mutex);
		if (_streakErrors++ == 0)
		{
			_streakStart = at;
			_output.line("{\"event\":\"error\",\"proc\":" + std::to_string(_process) + ",\"writer\":" + std::to_string(writer) +
				",\"at_us\":" + std::to_string(at) + ",\"kind\":" + jsonText(kind) + ",\"text\":" + jsonText(text.substr(0, 400)) + "}");
		}
	}

private:
	static std::string event(const std::string& head, const std::string& name)
	{
		const std::size_t at = head.find("%s");
		return head.substr(0, at) + name + head.substr(at + 2);
	}

	const int _process;
	Output& _output;
	std::mutex _mutex;
	std::string _lastServer;
	std::int64_t _streakStart = 0;
	long _streakErrors = 0;
};


class Worker
{
public:
	Worker(const WorkerOptions& options, const std::atomic<bool>& stop):
		_options(options),
		_stop(stop),
		_history(options.process, _output),
		_deadline(nowMicros() + static_cast<std::int64_t>(options.seconds) * 1000000)
	{
		const std::string application = ";Application Name=bluetusk-fleet-" + std::to_string(options.process);
		_writeSource = BlueTuskDataSource::create(options.connection + application);
		_readSource = options.readConnection.empty() ? _writeSource : BlueTuskDataSource::create(options.readConnection + application);
	}

	int run()
	{
		_output.line("{\"event\":\"start\",\"proc\":" + std::to_string(_options.process) + ",\"at_us\":" + std::to_string(nowMicros()) +
			",\"writers\":" + std::to_string(_options.writers) + ",\"readers\":" + std::to_string(_options.readers) + "}");
		std::vector<std::thread> threads;
		for (int w = 0; w < _options.writers; ++w) threads.emplace_back([this, w] { write(w); });
		for (int r = 0; r < _options.readers; ++r) threads.emplace_back([this, r] { read(r); });
		while (running())
		{
			pause(1000);
			report();
		}
		for (auto& thread: threads) thread.join();
		report();
		_output.line("{\"event\":\"summary\",\"proc\":" + std::to_string(_options.process) + ",\"writes\":" + std::to_string(_totalWrites) +
			",\"reads\":" + std::to_string(_totalReads) + ",\"write_errors\":" + _writeErrors.json(_writeTotals) +
			",\"read_errors\":" + _readErrors.json(_readTotals) + "}");
		return 0;
	}

private:
	bool running() const
	{
		return !_stop && nowMicros() < _deadline;
	}

	void pause(int milliseconds) const
		/// Sleeps milliseconds in slices of at most 100 ms, returning early when the worker stops.
	{
		const std::int64_t until = nowMicros() + static_cast<std::int64_t>(milliseconds) * 1000;
		while (running())
		{
			const std::int64_t left = until - nowMicros();
			if (left <= 0) return;
			std::this_thread::sleep_for(std::chrono::microseconds(std::min<std::int64_t>(left, 100000)));
		}
	}

	int think(std::mt19937& random) const
	{
		std::uniform_int_distribution<int> jitter(_options.thinkMs / 2, _options.thinkMs + _options.thinkMs / 2);
		return jitter(random);
	}

	void write(int writer)
	{
		std::mt19937 random(static_cast<unsigned>(_options.process * 1000 + writer));
		pause(think(random));   // the writers of a process do not start in step
		for (long seq = 0; running(); ++seq)
		{
			try
			{
				std::string server;
				{
					BlueTuskConnection lease = _writeSource->open(_options.writeTarget);
					const QueryResult result = lease.query("INSERT INTO fleet_writes (process, writer, seq, server) VALUES ($1, $2, $3, "
						"host(inet_server_addr()) || ':' || inet_server_port()) RETURNING server",
						{_options.process, writer, static_cast<Poco::Int64>(seq)});
					server = result.row(0).get<std::string>(0);
				}
				++_writes;
				_history.succeeded(server, writer);
				pause(think(random));
			}
			catch (Poco::Exception& exc)
			{
				const std::string kind = errorKind(exc);
				_writeErrors.add(kind);
				_history.failed(kind, exc.displayText(), writer);
				pause(_options.retryMs);
			}
		}
	}

	void read(int reader)
	{
		std::mt19937 random(static_cast<unsigned>(_options.process * 1000 + 500 + reader));
		pause(think(random));
		while (running())
		{
			try
			{
				{
					BlueTuskConnection lease = _readSource->open(_options.readTarget);
					lease.query("SELECT count(*) FROM pg_stat_database");
				}
				++_reads;
				pause(think(random));
			}
			catch (Poco::Exception& exc)
			{
				_readErrors.add(errorKind(exc));
				pause(_options.retryMs);
			}
		}
	}

	static void addTo(std::map<std::string, long>& totals, const std::map<std::string, long>& counts)
	{
		for (const auto& entry: counts) totals[entry.first] += entry.second;
	}

	std::string sessions(Poco::UInt64& created) const
		/// {"endpoint":sessions,...} over both data sources; created gets the sessions opened in all.
	{
		std::map<std::string, int> perEndpoint;
		created = 0;
		std::vector<BlueTuskDataSource::Ptr> sources{_writeSource};
		if (_readSource != _writeSource) sources.push_back(_readSource);
		for (const auto& source: sources)
		{
			for (const auto& entry: source->getHostPoolStatistics())
			{
				perEndpoint[entry.first.toString()] += entry.second.total;
				created += entry.second.created;
			}
		}
		std::string out = "{";
		for (const auto& entry: perEndpoint)
		{
			if (out.size() > 1) out += ",";
			out += jsonText(entry.first) + ":" + std::to_string(entry.second);
		}
		return out + "}";
	}

	void report()
	{
		const auto writeErrors = _writeErrors.take();
		const auto readErrors = _readErrors.take();
		addTo(_writeTotals, writeErrors);
		addTo(_readTotals, readErrors);
		const long writes = _writes.exchange(0), reads = _reads.exchange(0);
		_totalWrites += writes;
		_totalReads += reads;
		Poco::UInt64 created = 0;
		const std::string perEndpoint = sessions(created);
		_output.line("{\"event\":\"second\",\"proc\":" + std::to_string(_options.process) + ",\"at_us\":" + std::to_string(nowMicros()) +
			",\"writes\":" + std::to_string(writes) + ",\"reads\":" + std::to_string(reads) +
			",\"write_errors\":" + _writeErrors.json(writeErrors) + ",\"read_errors\":" + _readErrors.json(readErrors) +
			",\"sessions\":" + perEndpoint + ",\"created\":" + std::to_string(created) + "}");
	}

	const WorkerOptions _options;
	const std::atomic<bool>& _stop;
	Output _output;
	WriteHistory _history;
	const std::int64_t _deadline;
	BlueTuskDataSource::Ptr _writeSource;
	BlueTuskDataSource::Ptr _readSource;
	std::atomic<long> _writes{0}, _reads{0};
	long _totalWrites = 0, _totalReads = 0;
	ErrorCounts _writeErrors, _readErrors;
	std::map<std::string, long> _writeTotals, _readTotals;
};

} // namespace


int runWorker(const WorkerOptions& options, const std::atomic<bool>& stop)
{
	std::unique_ptr<Worker> worker;
	try
	{
		worker = std::make_unique<Worker>(options, stop);
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "bluetusk-fleet: process " << options.process << ": cannot create the data source: " << exc.displayText() << std::endl;
		return 2;
	}
	return worker->run();
}

} } // namespace BlueTusk::Fleet
