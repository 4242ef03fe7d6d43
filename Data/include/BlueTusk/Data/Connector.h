//
// Connector.h
//
// Library: BlueTusk/Data
//
// The Poco::Data connector "bluetusk": multi-host routing, failover and per-endpoint pools for
// Poco::Data applications.
//

#ifndef BlueTusk_Data_Connector_INCLUDED
#define BlueTusk_Data_Connector_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Data/Connector.h"

namespace BlueTusk {
namespace Data {

class BlueTusk_Data_API Connector: public Poco::Data::Connector
	/// Registered with Poco::Data::SessionFactory under KEY ("bluetusk"), as Poco's own connectors are:
	///
	///     BlueTusk::Data::Connector::registerConnector();
	///     Poco::Data::Session session("bluetusk", "Host=db-a,db-b,db-c;Username=app;Target Session Attributes=read-write");
	///     session << "INSERT INTO orders VALUES ($1, $2)", use(id), use(total), now;
	///
	/// See SessionImpl for what a session does and doc/poco-data.md for moving an application from
	/// Poco's "postgresql" connector. Thread-safe.
{
public:
	static const std::string KEY;
		/// "bluetusk"

	Connector();
	~Connector();

	const std::string& name() const;
		/// KEY.

	Poco::AutoPtr<Poco::Data::SessionImpl> createSession(const std::string& connectionString,
		std::size_t timeout = Poco::Data::SessionImpl::LOGIN_TIMEOUT_DEFAULT);
		/// A new SessionImpl (a lease checked out within timeout seconds). Throws
		/// BlueTusk::Data::ConnectionException.

	static void registerConnector();
		/// Adds the connector to Poco::Data::SessionFactory (again after unregisterConnector()).

	static void unregisterConnector();
		/// Removes it, and drains the data sources its sessions shared (idle sessions close now, sessions
		/// still open return their leases when they close).
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_Connector_INCLUDED
