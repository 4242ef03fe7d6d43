//
// DataTestSupport.h
//
// Connection strings and connector registration for the Poco::Data connector's integration tests.
//

#ifndef BlueTusk_DataTestSupport_INCLUDED
#define BlueTusk_DataTestSupport_INCLUDED

#include "BlueTusk/Data/Connector.h"
#include "TestEnvironment.h"
#include "Poco/Data/Session.h"
#include <string>

#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL
#include "Poco/Data/PostgreSQL/Connector.h"
#endif

namespace BlueTusk {
namespace Test {

inline std::string bluetuskString(const std::string& hosts, const std::string& extra = "")
	/// A bluetusk connection string for the cluster (no TLS, Timeout=10).
{
	return cluster().connectionString(hosts, "SSL Mode=disable;Timeout=10" + (extra.empty() ? std::string() : ";" + extra));
}


inline std::string primaryString(const std::string& extra = "")
{
	return bluetuskString(cluster().hosts.at(0), extra);
}


inline std::string postgresqlString()
	/// The same primary for Poco's own connector (libpq keyword/value).
{
	const ClusterInfo& c = cluster();
	return "host=" + c.hosts.at(0) + " port=" + std::to_string(c.port) + " user=" + c.user + " password=" + c.password +
		" dbname=" + c.database + " sslmode=disable";
}


inline void registerConnectors()
{
	static bool done = false;
	if (done) return;
	BlueTusk::Data::Connector::registerConnector();
#ifdef BLUETUSK_HAVE_POCO_POSTGRESQL
	Poco::Data::PostgreSQL::Connector::registerConnector();
#endif
	done = true;
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_DataTestSupport_INCLUDED
