//
// ConnectReport.cpp
//
// bluetusk-connect.
//

#include "ConnectReport.h"
#include "TextSafety.h"
#include "ErrorReport.h"
#include "SampleJson.h"
#include "Poco/NumberFormatter.h"
#include <algorithm>
#include <iomanip>
#include <vector>

namespace BlueTusk {
namespace Samples {

namespace {

std::string ms(double value)
{
	return Poco::NumberFormatter::format(roundedMs(value), 1) + " ms";
}


std::string joined(const std::vector<std::string>& items)
{
	std::string text;
	for (const auto& item: items)
	{
		if (!text.empty()) text += ", ";
		text += item;
	}
	return text.empty() ? std::string("(none)") : text;
}

} // namespace


ConnectReport::ConnectReport(bool json, std::ostream& out, std::ostream& err):
	_json(json),
	_out(out),
	_err(err)
{
}


void ConnectReport::connected(int number, const BlueTuskConnection& connection, ServerRole role, double elapsedMs, const QueryResult* result)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_json)
	{
		const std::string line = toLine(connectedEvent(connection, role, elapsedMs));
		if (!result)
		{
			_out << line << std::endl;
			return;
		}
		// The rows written one at a time from the result (as addResult() would lay them out): no second,
		// JSON copy of a large result in memory.
		_out << line.substr(0, line.size() - 1);
		ResultStream stream(true, _out);
		writeResult(stream, *result);
		_out.flush();
		return;
	}
	printConnection(number, connection, role, elapsedMs);
	if (result) printTable(*result);
	_out.flush();
}


void ConnectReport::writeResult(ResultStream& stream, const QueryResult& result)
{
	std::vector<std::string> names;
	for (const auto& column: result.columns) names.push_back(column.name);
	stream.begin(names);
	for (const auto& row: result.rows) stream.row(row);
	stream.finish(result.commandTag);
}


void ConnectReport::connectedStreaming(int number, const BlueTuskConnection& connection, ServerRole role, double elapsedMs,
	const std::vector<std::string>& columns, const std::function<std::string(ResultStream&)>& produce)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_json)
	{
		const std::string line = toLine(connectedEvent(connection, role, elapsedMs));
		_out << line.substr(0, line.size() - 1);   // without its closing brace: the result follows
	}
	else
	{
		printConnection(number, connection, role, elapsedMs);
	}
	ResultStream stream(_json, _out);
	stream.begin(columns);
	std::string tag;
	try
	{
		tag = produce(stream);
	}
	catch (...)
	{
		if (_json) _out << "],\"command_tag\":\"\",\"incomplete\":true}" << std::endl;
		else stream.finish(std::string());
		_out.flush();
		throw;
	}
	stream.finish(tag);
	_out.flush();
}


void ConnectReport::printConnection(int number, const BlueTuskConnection& connection, ServerRole role, double elapsedMs)
{
	const HostAttemptList& attempts = connection.attemptLog();
	_out << "[" << number << "] connected to " << connection.connectedEndpoint().toString() << " (" << toString(role) << ") in " << ms(elapsedMs);
	if (connection.isPooled())
	{
		bool reused = !attempts.empty() && attempts.back().reused;
		_out << (reused ? ", idle pooled session" : ", new pooled session");
	}
	_out << "\n";
	if (attempts.size() > 1)
	{
		// A long Failover Timeout wait repeats the host list many times: show its start and its end.
		const std::size_t edge = 4;
		for (std::size_t i = 0; i < attempts.size(); ++i)
		{
			if (attempts.size() > 3 * edge && i == edge)
			{
				_out << "      ... " << attempts.size() - 2 * edge << " more attempts ...\n";
				i = attempts.size() - edge - 1;
				continue;
			}
			const HostAttempt& attempt = attempts[i];
			_out << "      " << attempt.endpoint.toString() << "  " << HostAttempt::outcomeName(attempt.outcome) << ": " << terminalSafe(attempt.detail)
				<< " (" << ms(attempt.elapsedMs) << ")\n";
		}
	}
}


void ConnectReport::printTable(const QueryResult& result)
{
	if (result.columns.empty())
	{
		_out << "    " << terminalSafe(result.commandTag) << "\n";
		return;
	}
	ResultStream stream(false, _out);
	writeResult(stream, result);
}


void ConnectReport::error(int number, const Poco::Exception& exc)
{
	std::lock_guard<std::mutex> lock(_mutex);
	ErrorReport report = ErrorReport::from(exc);
	if (_json)
	{
		_out << toLine(report.toJson()) << std::endl;
		return;
	}
	if (number > 0) _err << "[" << number << "] ";
	_err << terminalSafe(report.toText(), true) << std::endl;
}


void ConnectReport::stats(const BlueTuskDataSource& dataSource)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_json)
	{
		_out << toLine(statsEvent(dataSource)) << std::endl;
		return;
	}
	auto row = [this](const std::string& name, const std::string& role, const PoolStatistics& s)
	{
		_out << "    " << std::left << std::setw(22) << name << std::setw(18) << role << std::right
			<< std::setw(6) << s.total << std::setw(6) << s.idle << std::setw(6) << s.busy << std::setw(8) << s.pending
			<< std::setw(6) << s.maxSize << std::setw(8) << s.created << std::setw(7) << s.closed << std::setw(9) << s.connectFailures << "\n";
	};
	_out << "pool statistics:\n";
	_out << "    " << std::left << std::setw(22) << "endpoint" << std::setw(18) << "role" << std::right
		<< std::setw(6) << "total" << std::setw(6) << "idle" << std::setw(6) << "busy" << std::setw(8) << "pending"
		<< std::setw(6) << "max" << std::setw(8) << "created" << std::setw(7) << "closed" << std::setw(9) << "failures" << "\n";
	for (const auto& entry: dataSource.getHostPoolStatistics())
	{
		row(entry.first.toString(), toString(entry.second.lastKnownRole), entry.second);
	}
	row("all endpoints", "", dataSource.getPoolStatistics());
	_out.flush();
}


void ConnectReport::summary(int opens, int failures, double elapsedMs, const std::map<std::string, int>& perEndpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_json)
	{
		Poco::JSON::Object::Ptr event = newObject();
		event->set("event", "summary");
		event->set("opens", opens);
		event->set("failures", failures);
		event->set("elapsed_ms", roundedMs(elapsedMs));
		Poco::JSON::Object::Ptr endpoints = newObject();
		for (const auto& entry: perEndpoint) endpoints->set(entry.first, entry.second);
		event->set("endpoints", endpoints);
		_out << toLine(event) << std::endl;
		return;
	}
	_out << opens << " opens, " << failures << " failed, in " << ms(elapsedMs) << "; successful opens per endpoint:";
	for (const auto& entry: perEndpoint) _out << "  " << entry.first << " " << entry.second;
	_out << std::endl;
}


void ConnectReport::policies(RoutingContext& connector)
{
	std::lock_guard<std::mutex> lock(_mutex);
	const std::pair<PolicyFamily, const char*> families[] = {
		{PolicyFamily::HostOrder, "host_order"}, {PolicyFamily::TargetSession, "target_session"}, {PolicyFamily::Eviction, "eviction"},
		{PolicyFamily::Retry, "retry"}, {PolicyFamily::Topology, "topology"}};
	if (_json)
	{
		Poco::JSON::Object::Ptr event = newObject();
		event->set("event", "policies");
		for (const auto& family: families)
		{
			Poco::JSON::Array::Ptr names = new Poco::JSON::Array;
			for (const auto& name: connector.policyNames(family.first)) names->add(name);
			event->set(family.second, names);
		}
		_out << toLine(event) << std::endl;
		return;
	}
	for (const auto& family: families)
	{
		_out << std::left << std::setw(16) << (toString(family.first) + ":") << std::right << joined(connector.policyNames(family.first)) << "\n";
	}
	_out.flush();
}

} } // namespace BlueTusk::Samples
