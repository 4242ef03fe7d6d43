//
// ConnectApplication.cpp
//
// bluetusk-connect: opens a connection (or a pooled lease) with a connection string and shows which server
// it chose and why; a diagnostics tool for multi-host connection strings (doc/samples.md).
//
// Exit status: 0 success, 1 usage error (bad option or connection string), 2 a connection, query or plugin
// failure.
//

#include "TextSafety.h"
#include "ConnectOptions.h"
#include "ConnectReport.h"
#include "ConnectRun.h"
#include "ErrorReport.h"
#include "SampleJson.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/AutoPtr.h"
#include "Poco/ConsoleChannel.h"
#include "Poco/File.h"
#include "Poco/Logger.h"
#include "Poco/Util/Application.h"
#include "Poco/String.h"
#include "Poco/Util/HelpFormatter.h"
#include "Poco/Util/Option.h"
#include "Poco/Util/OptionSet.h"
#include <iostream>

namespace BlueTusk {
namespace Samples {

const int EXIT_STATUS_USAGE = 1;
const int EXIT_STATUS_FAILURE = 2;
const std::string USAGE_ERROR_TYPE = "UsageError";


void printUsageError(bool json, const std::string& text, const std::string& type, const std::string& jsonMessage)
	/// An error before any connection: JSON error event on stdout (json), else "bluetusk-connect: text" and a
	/// hint on stderr.
{
	if (json)
	{
		ErrorReport report;
		report.type = type;
		report.message = jsonMessage;
		std::cout << toLine(report.toJson()) << std::endl;
		return;
	}
	std::cerr << "bluetusk-connect: " << BlueTusk::Samples::terminalSafe(text) << "\n(try bluetusk-connect --help)" << std::endl;
}


bool jsonRequested(int argc, char** argv)
	/// Whether the command line asks for --json (or -j, or an abbreviation such as --js, as Poco's Unix options
	/// accept): used when the options themselves fail to parse, so the error can still be a JSON line.
{
	const std::string name = "json";
	for (int i = 1; i < argc; ++i)
	{
		const std::string arg = argv[i];
		if (arg == "-j") return true;
		if (arg.size() > 2 && arg.compare(0, 2, "--") == 0 && arg.size() - 2 <= name.size() && name.compare(0, arg.size() - 2, arg, 2, std::string::npos) == 0)
			return true;
	}
	return false;
}


void checkExplicitPluginPath(const std::string& path)
	/// A --plugin argument naming a file (it contains a '/') is loaded from that file only, so when the file
	/// is missing or unreadable say so plainly (the library's message for a base name lists the whole search
	/// path, which is beside the point here). Throws BlueTuskPluginException.
{
	if (path.find('/') == std::string::npos) return;
	Poco::File file(path);
	if (!file.exists()) throw BlueTuskPluginException("plugin library " + path + " does not exist");
	if (!file.isFile()) throw BlueTuskPluginException("plugin library " + path + " is not a file");
	if (!file.canRead()) throw BlueTuskPluginException("plugin library " + path + " cannot be loaded: it is not readable (permission denied)");
}


class ConnectApplication: public Poco::Util::Application
	/// The command line (Poco::Util options) around ConnectRun.
{
public:
	ConnectApplication()
	{
		setUnixOptions(true);
	}

protected:
	void defineOptions(Poco::Util::OptionSet& options) override
	{
		using Poco::Util::Option;
		options.addOption(Option("query", "q", "run SQL after connecting and print its rows").argument("SQL"));
		options.addOption(Option("json", "j", "print one JSON object per line"));
		options.addOption(Option("pool", "p", "open through a BlueTuskDataSource (pooled leases)"));
		options.addOption(Option("target", "t", "target for the open: any, primary, standby, prefer-primary, "
			"prefer-standby, read-write, read-only, or a site target session policy loaded with --plugin or Plugin Path "
			"(default: the connection string's)").argument("T"));
		options.addOption(Option("count", "n", "opens in a row (per thread; default 1)").argument("N"));
		options.addOption(Option("threads", "", "with --pool: T threads, each doing --count checkouts").argument("T"));
		options.addOption(Option("hold-ms", "", "hold each connection M milliseconds before closing it").argument("M"));
		options.addOption(Option("stats", "s", "with --pool: print aggregate and per-endpoint pool statistics at the end"));
		options.addOption(Option("plugin", "", "load a policy plugin library (repeatable)").argument("PATH").repeatable(true));
		options.addOption(Option("list-policies", "l", "print the policy names of each family and exit"));
		options.addOption(Option("verbose", "v", "log the library's debug messages (each attempt) to stderr"));
		options.addOption(Option("help", "h", "print this help and exit"));
	}

	void handleOption(const std::string& name, const std::string& value) override
	{
		Poco::Util::Application::handleOption(name, value);
		if (name == "query") _options.query = value;
		else if (name == "json") _options.json = true;
		else if (name == "pool") _options.pool = true;
		else if (name == "target")
		{
			_options.target = value;
			try
			{
				parseTargetSessionAttributes(value, "--target");
			}
			catch (BlueTuskException& exc)
			{
				_options.targetError = exc.message();   // unless a site plugin provides it: checked in main()
			}
		}
		else if (name == "count") _options.count = ConnectOptions::positiveNumber(name, value, 1);
		else if (name == "threads") _options.threads = ConnectOptions::positiveNumber(name, value, 1, ConnectOptions::MAX_THREADS);
		else if (name == "hold-ms") _options.holdMs = ConnectOptions::positiveNumber(name, value, 0);
		else if (name == "stats") _options.stats = true;
		else if (name == "plugin") _options.plugins.push_back(value);
		else if (name == "list-policies") _options.listPolicies = true;
		else if (name == "verbose") _options.verbose = true;
		else if (name == "help")
		{
			_options.help = true;
			stopOptionsProcessing();
		}
	}

	int main(const ArgVec& args) override
	{
		_options.positional = args;
		if (_options.help)
		{
			printHelp();
			return EXIT_OK;
		}
		try
		{
			_options.check();
		}
		catch (Poco::Exception& exc)
		{
			return usageError(exc.message());
		}
		setUpLogging();

		ConnectReport report(_options.json, std::cout, std::cerr);
		RoutingContext connector = RoutingContext::defaultContext();
		try
		{
			for (const auto& plugin: _options.plugins)
			{
				checkExplicitPluginPath(plugin);
				connector.loadPlugin(plugin);
			}
			if (_options.listPolicies)
			{
				report.policies(connector);
				return EXIT_OK;
			}
		}
		catch (Poco::Exception& exc)
		{
			report.error(0, exc);
			return EXIT_STATUS_FAILURE;
		}

		ConnectionSettings settings;
		try
		{
			settings = ConnectionSettings::parse(_options.positional.front());
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			// The parser's messages name keywords and positions, never a value: no password can show here.
			return usageError("invalid connection string: " + exc.message(), "BlueTuskConnectionStringException", exc.message());
		}
		if (!_options.targetError.empty() && !isSiteTarget(connector, settings, *_options.target))
		{
			std::string loaded;
			for (const auto& name: connector.policyNames(PolicyFamily::TargetSession)) loaded += (loaded.empty() ? "" : ", ") + name;
			return usageError(_options.targetError + "; nor is it a loaded target session policy (" + loaded + ")");
		}
		try
		{
			ConnectRun run(_options, settings, connector, report);
			return run.run() == 0 ? EXIT_OK : EXIT_STATUS_FAILURE;
		}
		catch (Poco::Exception& exc)
		{
			// Creating the data source failed (unknown Host Order or Eviction Policy, ...).
			report.error(0, exc);
			return EXIT_STATUS_FAILURE;
		}
		catch (const std::exception& exc)
		{
			// Whatever escapes is a failure of the run (2), not Poco's EX_SOFTWARE (70).
			report.error(0, BlueTuskException(std::string("unexpected C++ exception: ") + exc.what()));
			return EXIT_STATUS_FAILURE;
		}
		catch (...)
		{
			// A plugin may throw anything (an int, ...): still a failure of the run.
			report.error(0, BlueTuskException("an exception that is neither a Poco::Exception nor a std::exception"));
			return EXIT_STATUS_FAILURE;
		}
	}

private:
	void printHelp()
	{
		Poco::Util::HelpFormatter help(options());
		help.setCommand("bluetusk-connect");
		help.setUsage("[options] CONNECTION_STRING");
		help.setHeader("Opens a connection with a (multi-host) connection string and shows which server it chose, "
			"its role and the attempts it took; optionally runs a query, pools, and prints pool statistics.");
		help.setFooter("Exit status: 0 success, 1 usage error, 2 connection/query/plugin failure. "
			"Example: bluetusk-connect --target standby --query 'SELECT 1' 'Host=127.0.0.1,127.0.0.2;Port=55432;Username=bluetusk'");
		help.format(std::cout);
	}

	static bool isSiteTarget(RoutingContext& connector, const ConnectionSettings& settings, const std::string& name)
		/// Whether name is registered by a plugin loaded by --plugin or the connection string's Plugin Path
		/// (in any letter case). The policy is not created here: a registered policy that fails (its name()
		/// throws, ...) is the open's plugin failure (exit status 2), not a usage error; so is a Plugin Path
		/// that cannot be loaded.
	{
		try
		{
			connector.loadStandardPlugins(settings.pluginPath);
		}
		catch (Poco::Exception&)
		{
			return true;   // the open reports the plugin failure
		}
		for (const auto& loaded: connector.policyNames(PolicyFamily::TargetSession))
			if (Poco::icompare(loaded, name) == 0) return true;
		return false;
	}

	int usageError(const std::string& message)
	{
		return usageError(message, USAGE_ERROR_TYPE, message);
	}

	int usageError(const std::string& text, const std::string& type, const std::string& jsonMessage)
		/// Reports an error found before any connection is tried (exit status 1): with --json as an error
		/// event on stdout (type "UsageError" or the exception class, no attempts), else text on stderr.
	{
		printUsageError(_options.json, text, type, jsonMessage);
		return EXIT_STATUS_USAGE;
	}

	void setUpLogging()
	{
		Poco::AutoPtr<Poco::Channel> channel(new Poco::ConsoleChannel(std::cerr));
		Poco::Logger::root().setChannel(channel);
		Poco::Logger::root().setLevel(Poco::Message::PRIO_ERROR);
		Poco::Logger::setChannel("BlueTusk", channel);
		Poco::Logger::setLevel("BlueTusk", _options.verbose ? Poco::Message::PRIO_DEBUG : Poco::Message::PRIO_ERROR);
		Poco::Logger::get("BlueTusk").setChannel(channel);
		Poco::Logger::get("BlueTusk").setLevel(_options.verbose ? Poco::Message::PRIO_DEBUG : Poco::Message::PRIO_ERROR);
	}

	ConnectOptions _options;
};

} } // namespace BlueTusk::Samples


int main(int argc, char** argv)
{
	Poco::AutoPtr<BlueTusk::Samples::ConnectApplication> app = new BlueTusk::Samples::ConnectApplication;
	try
	{
		app->init(argc, argv);
	}
	catch (Poco::Util::OptionException& exc)
	{
		BlueTusk::Samples::printUsageError(BlueTusk::Samples::jsonRequested(argc, argv), exc.displayText(),
			BlueTusk::Samples::USAGE_ERROR_TYPE, exc.displayText());
		return BlueTusk::Samples::EXIT_STATUS_USAGE;
	}
	catch (Poco::Exception& exc)
	{
		if (BlueTusk::Samples::jsonRequested(argc, argv))
		{
			BlueTusk::Samples::printUsageError(true, exc.displayText(), BlueTusk::Samples::USAGE_ERROR_TYPE, exc.displayText());
		}
		else std::cerr << "bluetusk-connect: " << BlueTusk::Samples::terminalSafe(exc.displayText(), true) << std::endl;
		return BlueTusk::Samples::EXIT_STATUS_USAGE;
	}
	return app->run();
}
