//
// LibpqWriter.cpp
//

#include "LibpqWriter.h"
#include "FailoverLoad.h"
#include <libpq-fe.h>
#include <chrono>
#include <cstring>

namespace BlueTusk {
namespace Test {

namespace {

const std::size_t maxFailuresKept = 10;


void pause(int milliseconds)
{
	std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
}


std::string oneLine(const char* text)
{
	std::string line = text ? text : "";
	while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
	for (char& c: line)
	{
		if (c == '\n') c = ' ';
	}
	return line;
}

} // namespace


LibpqWriter::LibpqWriter(const std::string& client, const std::string& conninfo, int pauseMs, int retryMs):
	_client(client),
	_conninfo(conninfo),
	_pauseMs(pauseMs),
	_retryMs(retryMs)
{
}


LibpqWriter::~LibpqWriter()
{
	stop();
}


void LibpqWriter::start()
{
	_stop = false;
	_thread = std::thread([this] { run(); });
}


void LibpqWriter::stop()
{
	_stop = true;
	if (_thread.joinable()) _thread.join();
}


void LibpqWriter::note(const std::string& text)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_failures.size() < maxFailuresKept) _failures.push_back(text);
}


void LibpqWriter::run()
{
	PGconn* connection = nullptr;
	const std::string insert = "INSERT INTO bt_failover_bench(client, seq) VALUES ('" + _client + "', $1) "
		"RETURNING host(inet_server_addr())";
	for (long seq = 1; !_stop; ++seq)
	{
		if (!connection)
		{
			connection = PQconnectdb(_conninfo.c_str());
			if (PQstatus(connection) != CONNECTION_OK)
			{
				++connectFailures;
				note("connect failed: " + oneLine(PQerrorMessage(connection)));
				PQfinish(connection);
				connection = nullptr;
				pause(_retryMs);
				continue;
			}
		}
		const std::string value = std::to_string(seq);
		const char* parameters[1] = {value.c_str()};
		PGresult* result = PQexecParams(connection, insert.c_str(), 1, nullptr, parameters, nullptr, nullptr, 0);
		if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1)
		{
			const std::int64_t at = nowMicros();
			++writes;
			std::lock_guard<std::mutex> lock(_mutex);
			_written.push_back(Write{at, PQgetvalue(result, 0, 0)});
		}
		else
		{
			++writeFailures;
			const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
			if (state && std::strcmp(state, "25006") == 0) ++readOnlyRefusals;
			note("write failed: " + oneLine(PQerrorMessage(connection)));
			PQclear(result);
			PQfinish(connection);
			connection = nullptr;
			pause(_retryMs);
			continue;
		}
		PQclear(result);
		pause(_pauseMs);
	}
	if (connection) PQfinish(connection);
}


std::int64_t LibpqWriter::firstWriteOn(const std::string& host, std::int64_t after) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	for (const Write& write: _written) // in completion order: one thread appends
	{
		if (write.host == host && write.at >= after) return write.at;
	}
	return 0;
}


long LibpqWriter::writesOn(const std::string& host, std::int64_t after) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	long count = 0;
	for (const Write& write: _written)
	{
		if (write.host == host && write.at >= after) ++count;
	}
	return count;
}


long LibpqWriter::writesNotOn(const std::string& host, std::int64_t after) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	long count = 0;
	for (const Write& write: _written)
	{
		if (write.host != host && write.at >= after) ++count;
	}
	return count;
}


std::string LibpqWriter::failures() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::string text;
	for (const auto& failure: _failures) text += "    " + _client + ": " + failure + "\n";
	return text;
}

} } // namespace BlueTusk::Test
