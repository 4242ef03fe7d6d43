//
// PoolerEnvironment.h
//
// The per-node PgBouncers of the local cluster (scripts/pgbouncer) as the pooler suites reach them.
//

#ifndef BlueTusk_Test_PoolerEnvironment_INCLUDED
#define BlueTusk_Test_PoolerEnvironment_INCLUDED

#include <string>

namespace BlueTusk {
namespace Test {

int poolerPort();
	/// BLUETUSK_PGBOUNCER_PORT, or the cluster's port + 7 (scripts/pgbouncer's default).

std::string throughPoolers(const std::string& extra = "");
	/// The three PgBouncers (127.0.0.1, .2, .3 at poolerPort()), default settings, then extra (";"-joined).

std::string throughPooler(int node, const std::string& extra = "");
	/// Node node's PgBouncer alone (127.0.0.<node>), then extra.

int runPgBouncerCommand(const std::string& arguments);
	/// Runs scripts/pgbouncer with arguments for this cluster (its port and directory); returns the exit
	/// status (-1 if it did not exit). Its output is discarded.

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_PoolerEnvironment_INCLUDED
