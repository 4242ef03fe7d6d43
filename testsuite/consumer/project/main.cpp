//
// main.cpp
//
// The find_package consumer: parses a connection string with the installed BlueTusk and prints what it got,
// one "key value" line each, for RunConsumer.cmake to check. With --data-source it creates a data source (no
// server needed) and prints the target-session policies it has, or the error (a missing standard plugin).
//

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/PluginRegistry.h"
#include "BlueTusk/TargetSessionPolicy.h"
#include <iostream>
#include <map>
#include <string>

namespace {

int createDataSource()
	/// A data source through the default connector: its standard plugins come from beside the installed library.
{
	BlueTusk::BlueTuskDataSource::Ptr dataSource = BlueTusk::BlueTuskDataSource::create(
		"Host=127.0.0.1;Port=1;Username=app;Password=consumer-secret;Health Check Interval=0;Target Session Attributes=primary");
	std::cout << "data source created" << std::endl;
	std::string targets;
	for (const auto& name: BlueTusk::RoutingContext::defaultContext().policyNames(BlueTusk::PolicyFamily::TargetSession))
	{
		targets += (targets.empty() ? "" : " ") + name;
	}
	std::cout << "targets " << targets << std::endl;
	return 0;
}

} // namespace


int main(int argc, char** argv)
{
	if (argc > 1 && std::string(argv[1]) == "--data-source")
	{
		try
		{
			return createDataSource();
		}
		catch (BlueTusk::BlueTuskException& exc)
		{
			std::cerr << "error " << exc.displayText() << std::endl;
			return 1;
		}
	}
	const std::string connectionString = argc > 1 ? argv[1] :
		"Host=db-a,db-b:6432,[::1];Port=5433;Username=app;Password=consumer-secret;Target Session Attributes=prefer-standby";
	try
	{
		// An explicit (empty) environment: PGHOST and friends of the caller must not change the result.
		const BlueTusk::ConnectionSettings settings =
			BlueTusk::ConnectionSettings::parse(connectionString, std::map<std::string, std::string>());
		for (const auto& endpoint: settings.endpoints)
		{
			std::cout << "endpoint " << endpoint.toString() << std::endl;
		}
		std::cout << "target " << BlueTusk::toString(settings.targetSessionAttributes) << std::endl;
		std::cout << "verdict " << BlueTusk::toString(BlueTusk::RoleVerdict::Fallback) << std::endl;
		std::cout << "settings " << settings.toString() << std::endl;
		std::cout << "plugins " << CONSUMER_PLUGIN_DIR << std::endl;
		// The installed tree finds its own plugins first, wherever it was installed (no build tree needed).
		std::cout << "relocated " << BlueTusk::pluginRelocatedDirectory() << std::endl;
		std::cout << "hostorder " << BlueTusk::findPluginLibrary(BlueTusk::pluginSearchPath({}), "BlueTuskHostOrderPlugin") << std::endl;
		return 0;
	}
	catch (BlueTusk::BlueTuskException& exc)
	{
		std::cerr << "error " << exc.displayText() << std::endl;
		return 1;
	}
}
