//
// PoolMonitorApplication.cpp
//
// bluetusk-pool-monitor: a Poco::Util::ServerApplication whose data sources come from a .properties file
// through BlueTusk::DataSourceSubsystem, with a small HTTP server:
//   GET /                          a readable page: per-endpoint pool statistics and learned roles
//   GET /stats[?dataSource=N]      the same as JSON
//   GET /query?sql=SQL[&target=T]  one checkout from the data source, the statement's rows as JSON
//   GET /metrics                   the pools' metrics in the Prometheus text format (bluetusk.metrics.enabled)
// It serves until SIGINT or SIGTERM, then the subsystem drains the pools (doc/samples.md).
//
// Usage: bluetusk-pool-monitor --config=FILE [--port=N] [--set=key=value ...]
//

#include "MonitorHandlers.h"
#include "BlueTusk/Util/DataSourceSubsystem.h"
#ifdef BLUETUSK_HAVE_METRICS
#include "BlueTusk/Metrics/MetricsSubsystem.h"
#endif
#include "Poco/Clock.h"
#include "Poco/Net/HTTPServer.h"
#include "Poco/Net/HTTPServerParams.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/NumberParser.h"
#include "Poco/Thread.h"
#include "Poco/Util/HelpFormatter.h"
#include "Poco/Util/Option.h"
#include "Poco/Util/OptionException.h"
#include "Poco/Util/OptionSet.h"
#include "Poco/Util/ServerApplication.h"
#include <iostream>

namespace BlueTusk {
namespace Samples {

class PoolMonitorApplication: public Poco::Util::ServerApplication
{
public:
	PoolMonitorApplication()
	{
		addSubsystem(new DataSourceSubsystem);
#ifdef BLUETUSK_HAVE_METRICS
		addSubsystem(new Metrics::MetricsSubsystem);   // after the data sources: it attaches to them
#endif
	}

protected:
	void defineOptions(Poco::Util::OptionSet& options) override
	{
		ServerApplication::defineOptions(options);
		using Poco::Util::Option;
		options.addOption(Option("config", "c", "load the configuration from FILE (.properties, .ini or .xml); "
			"default: bluetusk-pool-monitor.properties next to the program").argument("FILE"));
		options.addOption(Option("port", "p", "HTTP port (default: poolMonitor.port, else 8080; 0 picks a free port)").argument("N"));
		options.addOption(Option("set", "s", "set a configuration property, overriding the file "
			"(e.g. --set=bluetusk.dataSources.main.port=55432); repeatable").argument("KEY=VALUE").repeatable(true));
		options.addOption(Option("help", "h", "print this help and exit"));
	}

	void handleOption(const std::string& name, const std::string& value) override
	{
		ServerApplication::handleOption(name, value);
		if (name == "config") _configFile = value;
		else if (name == "port")
		{
			unsigned port = 0;
			if (!Poco::NumberParser::tryParseUnsigned(value, port) || port > 65535)
				throw Poco::Util::InvalidArgumentException("--port needs a port number, not \"" + value + "\"");
			config().setString("poolMonitor.port", value);
		}
		else if (name == "set")
		{
			std::string::size_type eq = value.find('=');
			if (eq == std::string::npos || eq == 0)
				throw Poco::Util::InvalidArgumentException("--set needs KEY=VALUE, not \"" + value + "\"");
			config().setString(value.substr(0, eq), value.substr(eq + 1));
		}
		else if (name == "help")
		{
			_help = true;
			stopOptionsProcessing();
		}
	}

	void initialize(Poco::Util::Application& self) override
	{
		// Load the configuration before the subsystems initialize, so DataSourceSubsystem sees it (Poco 1.11).
		if (!_help)
		{
			if (!_configFile.empty()) loadConfiguration(_configFile);
			else loadConfiguration();
		}
		ServerApplication::initialize(self);
	}

	int main(const ArgVec&) override
	{
		if (_help)
		{
			Poco::Util::HelpFormatter help(options());
			help.setCommand(commandName());
			help.setUsage("--config=FILE [--port=N] [--set=KEY=VALUE ...]");
			help.setHeader("Serves queries through BlueTusk data sources configured under bluetusk.dataSources.* and shows "
				"their per-endpoint pool statistics and learned host roles: GET / (HTML), /stats (JSON), /query?sql=..&target=.. (JSON), "
				"/metrics (Prometheus, with bluetusk.metrics.enabled = true).");
			help.format(std::cout);
			return EXIT_OK;
		}
		DataSourceSubsystem& subsystem = getSubsystem<DataSourceSubsystem>();
		const std::vector<std::string> names = subsystem.names();
		if (names.empty())
		{
			std::cerr << "bluetusk-pool-monitor: no data sources configured: give --config=FILE with "
				"bluetusk.dataSources.<name>.connectionString (see samples/PoolMonitor/bluetusk-pool-monitor.properties)" << std::endl;
			return EXIT_CONFIG;
		}
		MonitorContext context{subsystem, config().getString("poolMonitor.dataSource", names.front())};
		if (!subsystem.has(context.defaultDataSource))
		{
			std::cerr << "bluetusk-pool-monitor: poolMonitor.dataSource: no data source \"" << context.defaultDataSource << "\"" << std::endl;
			return EXIT_CONFIG;
		}

#ifdef BLUETUSK_HAVE_METRICS
		Metrics::MetricsSubsystem& metrics = getSubsystem<Metrics::MetricsSubsystem>();
		if (metrics.isEnabled()) context.metrics = [&metrics]() { return metrics.exporter().text(); };
#endif

		const std::string address = config().getString("poolMonitor.address", "127.0.0.1");
		const auto port = static_cast<Poco::UInt16>(config().getUInt("poolMonitor.port", 8080));
		Poco::Net::ServerSocket socket(Poco::Net::SocketAddress(address, port));
		Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
		params->setMaxThreads(8);
		Poco::Net::HTTPServer server(new MonitorRequestHandlerFactory(context), socket, params);
		server.start();
		for (const auto& name: names)
		{
			std::cout << "data source \"" << name << "\": " << subsystem.dataSource(name)->settings().toString() << "\n";
		}
		std::cout << "listening on http://" << socket.address().toString() << "/" << std::endl;
		logger().information("listening on http://%s/", socket.address().toString());

		waitForTerminationRequest();

		logger().information("stopping");
		// No request may still run when main() returns: the subsystems then drain the data sources and
		// destroy the metrics exporter the handlers read. stop() alone only stops accepting; a scrape in
		// flight (Prometheus keeps its connection open) went on into the destroyed exporter and crashed.
		// stopAll(true) also shuts the open connections down; then wait for the handlers, at most 5 s.
		server.stopAll(true);
		Poco::Clock stopping;
		while (server.currentConnections() > 0 && stopping.elapsed() < 5 * Poco::Clock::resolution()) Poco::Thread::sleep(10);
		std::cout << "stopped" << std::endl;
		return EXIT_OK;
	}

private:
	std::string _configFile;
	bool _help = false;
};

} } // namespace BlueTusk::Samples


int main(int argc, char** argv)
{
	Poco::AutoPtr<BlueTusk::Samples::PoolMonitorApplication> app = new BlueTusk::Samples::PoolMonitorApplication;
	try
	{
		return app->run(argc, argv);
	}
	catch (Poco::Exception& exc)
	{
		// A configuration mistake found by DataSourceSubsystem while initializing names the property.
		std::cerr << "bluetusk-pool-monitor: " << exc.displayText() << std::endl;
		return Poco::Util::Application::EXIT_CONFIG;
	}
}
