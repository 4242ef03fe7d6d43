//
// ConnectRun.cpp
//
// bluetusk-connect.
//

#include "ConnectRun.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PreparedStatement.h"
#include "Poco/Stopwatch.h"
#include "Poco/Thread.h"
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace BlueTusk {
namespace Samples {

namespace {

double elapsedMs(const Poco::Stopwatch& watch)
{
	return static_cast<double>(watch.elapsed()) / 1000.0;
}


const QueryResult* resultToShow(const std::vector<QueryResult>& results)
	/// The last result that has columns, else the last one.
{
	for (auto it = results.rbegin(); it != results.rend(); ++it)
	{
		if (!it->columns.empty()) return &*it;
	}
	return results.empty() ? nullptr : &results.back();
}

[[noreturn]] void rethrowNamingServer(const BlueTuskException& exc, const BlueTuskConnection& connection)
	/// As BlueTuskConnection::executeSimple() does: a query-path error names the server, redacted.
{
	std::unique_ptr<Poco::Exception> copy(exc.clone());
	if (auto* own = dynamic_cast<BlueTuskException*>(copy.get())) own->addContext("server " + connection.connectedEndpoint().toString());
	connection.settings().redactor().rethrow(*copy);
	copy->rethrow();
	throw Poco::BugcheckException("Poco::Exception::rethrow() returned"); // not reached
}

} // namespace


bool ConnectRun::streamQuery(int number, BlueTuskConnection& connection, ServerRole role, double ms)
{
	// A statement with result columns streams (Session::queryEach: one row held at a time, finding 9).
	// Statements without columns keep executeSimple() (their command tag); so do several statements in
	// one --query, which cannot be prepared (42601): false, the caller runs them.
	const std::string& sql = *_options.query;
	std::vector<std::string> columns;
	Session& session = connection.session();
	try
	{
		PreparedStatement statement = session.prepare(sql);
		for (const auto& column: statement.columns()) columns.push_back(column.name);
		session.unprepare(statement);
	}
	catch (BlueTuskServerException& exc)
	{
		if (exc.sqlState() == "42601" && exc.message().find("multiple commands") != std::string::npos) return false;
		rethrowNamingServer(exc, connection);
	}
	catch (BlueTuskException& exc)
	{
		rethrowNamingServer(exc, connection);
	}
	if (columns.empty()) return false;
	_report.connectedStreaming(number, connection, role, ms, columns, [&](ResultStream& stream)
	{
		try
		{
			const Poco::UInt64 rows = session.queryEach(sql, {}, [&stream](const RowView& row) { stream.row(row); return true; });
			return "SELECT " + std::to_string(rows);
		}
		catch (BlueTuskException& exc)
		{
			rethrowNamingServer(exc, connection);
		}
	});
	return true;
}


ConnectRun::ConnectRun(const ConnectOptions& options, const ConnectionSettings& settings, RoutingContext& connector, ConnectReport& report):
	_options(options),
	_settings(settings),
	_connector(connector),
	_report(report)
{
	if (_options.target && !_options.pool) _settings.set("Target Session Attributes", *_options.target);
}


int ConnectRun::run()
{
	Poco::Stopwatch watch;
	watch.start();
	if (_options.pool) runPooled();
	else runUnpooled();
	int opens = _number.load();
	if (opens > 1) _report.summary(opens, _failures.load(), elapsedMs(watch), _perEndpoint);
	return _failures.load();
}


void ConnectRun::runUnpooled()
{
	for (int i = 0; i < _options.count; ++i)
	{
		openOnce([this] { return BlueTuskConnection::open(_settings, _connector); });
	}
}


void ConnectRun::runPooled()
{
	BlueTuskDataSource::Ptr dataSource = BlueTuskDataSource::create(_settings, _connector);
	auto open = [this, dataSource]
	{
		return _options.target ? dataSource->open(*_options.target) : dataSource->open();
	};
	auto worker = [this, open]
	{
		for (int i = 0; i < _options.count; ++i) openOnce(open);
	};
	if (_options.threads <= 1)
	{
		worker();
	}
	else
	{
		std::vector<std::thread> threads;
		for (int t = 0; t < _options.threads; ++t) threads.emplace_back(worker);
		for (auto& thread: threads) thread.join();
	}
	if (_options.stats) _report.stats(*dataSource);
	dataSource->drain();
}


void ConnectRun::openOnce(const std::function<BlueTuskConnection()>& open)
{
	int number = ++_number;
	Poco::Stopwatch watch;
	watch.start();
	BlueTuskConnection connection;
	try
	{
		connection = open();
	}
	catch (Poco::Exception& exc)
	{
		++_failures;
		_report.error(number, exc);
		return;
	}
	catch (const std::exception& exc)
	{
		// Not BlueTusk's own (it wraps what a policy throws in a BlueTuskPluginException): still a failed
		// open, reported as one (exit status 2), never an escape that ends the tool with 70 (EX_SOFTWARE).
		++_failures;
		_report.error(number, BlueTuskException(std::string("unexpected C++ exception: ") + exc.what()));
		return;
	}
	double ms = elapsedMs(watch);
	{
		std::lock_guard<std::mutex> lock(_mutex);
		++_perEndpoint[connection.connectedEndpoint().toString()];
	}
	ServerRole role = ServerRole::Unknown;
	try
	{
		role = connection.role();
	}
	catch (Poco::Exception&)
	{
	}
	bool reported = false;
	try
	{
		if (_options.query) reported = streamQuery(number, connection, role, ms);
		if (!reported)
		{
			std::vector<QueryResult> results;
			if (_options.query) results = connection.executeSimple(*_options.query);
			reported = true;
			_report.connected(number, connection, role, ms, _options.query ? resultToShow(results) : nullptr);
		}
	}
	catch (Poco::Exception& exc)
	{
		++_failures;
		if (!reported) _report.connected(number, connection, role, ms, nullptr);
		_report.error(number, exc);
	}
	if (_options.holdMs > 0) Poco::Thread::sleep(_options.holdMs);
	connection.close();
}

} } // namespace BlueTusk::Samples
