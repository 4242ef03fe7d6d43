//
// DataOrdersApplication.cpp
//
// bluetusk-data-orders: an order service written against Poco::Data alone. It places orders one after the
// other through a session on the primary (Target Session Attributes=read-write) and, every few orders,
// reports count and total through a second session that prefers a standby. When the primary goes away
// mid-run, the failed write reconnects (Failover Timeout lets the checkout wait for a promotion) and is
// retried: the INSERT is idempotent (ON CONFLICT DO NOTHING on the order id), so an order the old primary
// had already committed is not placed twice. Each line of output says what happened and where.
//
// Usage: bluetusk-data-orders [--config=FILE] [--set=key=value ...]
// Properties (bluetusk-data-orders.properties next to the program by default): orders.connection,
// orders.writes, orders.reports, orders.count, orders.intervalMs, orders.reportEvery, orders.table.
//

#include "BlueTusk/Data/ConnectorSubsystem.h"
#include "BlueTusk/Data/DataException.h"
#include "Poco/Data/Session.h"
#include "Poco/Path.h"
#include "Poco/Thread.h"
#include "Poco/Util/Application.h"
#include "Poco/Util/HelpFormatter.h"
#include "Poco/Util/Option.h"
#include "Poco/Util/OptionException.h"
#include "Poco/Util/OptionSet.h"
#include <iostream>
#include <memory>

using namespace Poco::Data::Keywords;

namespace BlueTusk {
namespace Samples {

class DataOrdersApplication: public Poco::Util::Application
{
public:
	DataOrdersApplication()
	{
		addSubsystem(new BlueTusk::Data::ConnectorSubsystem);   // registers "bluetusk" (bluetusk.data.connector)
	}

protected:
	void defineOptions(Poco::Util::OptionSet& options) override
	{
		Application::defineOptions(options);
		using Poco::Util::Option;
		options.addOption(Option("config", "c", "load the configuration from FILE (default: bluetusk-data-orders.properties next to the program)").argument("FILE"));
		options.addOption(Option("set", "s", "set a configuration property (e.g. --set=orders.count=50); repeatable").argument("KEY=VALUE").repeatable(true));
		options.addOption(Option("help", "h", "print this help and exit"));
	}

	void handleOption(const std::string& name, const std::string& value) override
	{
		Application::handleOption(name, value);
		if (name == "config") _configFile = value;
		else if (name == "set")
		{
			const std::size_t equals = value.find('=');
			if (equals == std::string::npos) throw Poco::Util::InvalidArgumentException("--set needs KEY=VALUE, not \"" + value + "\"");
			_overrides.emplace_back(value.substr(0, equals), value.substr(equals + 1));
		}
		else if (name == "help")
		{
			Poco::Util::HelpFormatter help(options());
			help.setCommand(commandName());
			help.setUsage("[--config=FILE] [--set=key=value ...]");
			help.setHeader("Places orders through Poco::Data with the bluetusk connector and reports on a standby.");
			help.format(std::cout);
			_help = true;
			stopOptionsProcessing();
		}
	}

	void initialize(Application& self) override
	{
		if (_configFile.empty())
		{
			Poco::Path beside(config().getString("application.dir"), "bluetusk-data-orders.properties");
			_configFile = beside.toString();
		}
		if (!_help) loadConfiguration(_configFile);
		for (const auto& item: _overrides) config().setString(item.first, item.second);
		Application::initialize(self);
	}

	int main(const std::vector<std::string>&) override
	{
		if (_help) return EXIT_OK;
		const std::string base = config().getString("orders.connection");
		const std::string writes = base + ";" + config().getString("orders.writes", "Target Session Attributes=read-write");
		const std::string reports = base + ";" + config().getString("orders.reports", "Target Session Attributes=prefer-standby");
		const int count = config().getInt("orders.count", 20);
		const long interval = config().getInt("orders.intervalMs", 100);
		const int reportEvery = config().getInt("orders.reportEvery", 5);
		const std::string table = config().getString("orders.table", "sample_orders");
		try
		{
			std::unique_ptr<Poco::Data::Session> writer(new Poco::Data::Session("bluetusk", writes));
			*writer << "CREATE TABLE IF NOT EXISTS " + table + " (id int PRIMARY KEY, customer text, total numeric, placed timestamptz DEFAULT now())", now;
			*writer << "TRUNCATE " + table, now;
			std::cout << "writes on " << where(*writer) << std::endl;
			int retried = 0;
			for (int id = 1; id <= count; ++id)
			{
				std::string customer = "customer-" + std::to_string(id % 7);
				double total = 10.0 + id * 0.25;
				for (int attempt = 1;; ++attempt)
				{
					try
					{
						*writer << "INSERT INTO " + table + " (id, customer, total) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
							use(id), use(customer), use(total), now;
						break;
					}
					catch (Poco::Data::DataException& exc)
					{
						if (attempt == 3) throw;
						std::cout << "order " << id << ": write failed (" << exc.message().substr(0, 120) << "); reconnecting" << std::endl;
						writer->reconnect();   // routes anew: waits for a primary within Failover Timeout
						std::cout << "writes on " << where(*writer) << std::endl;
						++retried;
					}
				}
				std::cout << "order " << id << " placed on " << where(*writer) << std::endl;
				if (id % reportEvery == 0) report(reports, table);
				Poco::Thread::sleep(interval);
			}
			report(reports, table);
			std::cout << "placed " << count << " orders, " << retried << " retried after a failover" << std::endl;
		}
		catch (Poco::Exception& exc)
		{
			std::cerr << "error: " << exc.displayText() << std::endl;
			return EXIT_UNAVAILABLE;
		}
		return EXIT_OK;
	}

private:
	static std::string where(Poco::Data::Session& session)
	{
		return Poco::AnyCast<std::string>(session.getProperty("endpoint")) + " (" + Poco::AnyCast<std::string>(session.getProperty("role")) + ")";
	}

	static void report(const std::string& connectionString, const std::string& table)
	{
		try
		{
			Poco::Data::Session reader("bluetusk", connectionString);   // a lease from the shared pools
			Poco::Int64 orders = 0;
			std::string total;
			reader << "SELECT count(*), coalesce(sum(total), 0)::text FROM " + table, into(orders), into(total), now;
			std::cout << "report on " << where(reader) << ": " << orders << " orders, total " << total << std::endl;
		}
		catch (Poco::Exception& exc)
		{
			std::cout << "report failed: " << exc.message().substr(0, 160) << std::endl;   // a report may wait for the next
		}
	}

	std::string _configFile;
	std::vector<std::pair<std::string, std::string>> _overrides;
	bool _help = false;
};

} } // namespace BlueTusk::Samples


POCO_APP_MAIN(BlueTusk::Samples::DataOrdersApplication)
