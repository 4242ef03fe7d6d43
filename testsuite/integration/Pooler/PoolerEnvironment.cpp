//
// PoolerEnvironment.cpp
//
// The per-node PgBouncers of the local cluster (scripts/pgbouncer) as the pooler suites reach them.
//

#include "PoolerEnvironment.h"
#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/NumberParser.h"
#include <cstdlib>
#include <sys/wait.h>

namespace BlueTusk {
namespace Test {

namespace {

std::string login(const std::string& hosts, const std::string& extra)
{
	std::string text = "Host=" + hosts + ";Port=" + std::to_string(poolerPort()) + ";Username=" +
		cluster().user + ";Password=" + cluster().password + ";Database=" + cluster().database;
	if (!extra.empty()) text += ";" + extra;
	return text;
}

} // namespace


int poolerPort()
{
	const std::string text = Poco::Environment::get("BLUETUSK_PGBOUNCER_PORT", "");
	return text.empty() ? cluster().port + 7 : Poco::NumberParser::parse(text);
}


std::string throughPoolers(const std::string& extra)
{
	return login("127.0.0.1,127.0.0.2,127.0.0.3", extra);
}


std::string throughPooler(int node, const std::string& extra)
{
	return login("127.0.0." + std::to_string(node), extra);
}


int runPgBouncerCommand(const std::string& arguments)
{
	const std::string command = "BLUETUSK_CLUSTER_PORT=" + std::to_string(cluster().port) + " BLUETUSK_CLUSTER_DIR='" +
		cluster().clusterDir + "' '" + cluster().scriptsDir + "/pgbouncer' " + arguments + " >/dev/null 2>&1";
	const int status = std::system(command.c_str());
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} } // namespace BlueTusk::Test
