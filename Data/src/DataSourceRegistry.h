//
// DataSourceRegistry.h
//
// Library: BlueTusk/Data
//
// The process-wide map from a connection string (and login timeout) to the BlueTuskDataSource that the
// bluetusk sessions opened with it share: strings that differ only in Target Session Attributes name the
// same data source (doc/poco-data.md, "Read your writes").
//

#ifndef BlueTusk_Data_Detail_DataSourceRegistry_INCLUDED
#define BlueTusk_Data_Detail_DataSourceRegistry_INCLUDED

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Data {
namespace Detail {

class DataSourceRegistry
	/// Thread-safe. Data sources stay until clear() (Connector::unregisterConnector()), which drains them:
	/// idle sessions close at once, leased ones when their Poco sessions close.
{
public:
	struct Lookup
	{
		BlueTuskDataSource::Ptr dataSource;
		TargetSessionAttributes target = TargetSessionAttributes::Any;   /// the string's own target
		std::string targetPolicy;   /// the string's own site target-session policy (doc/plugins.md), or ""
	};

	static DataSourceRegistry& instance();

	Lookup get(const std::string& connectionString, std::size_t loginTimeoutSeconds);
		/// The shared data source, created on first use (RoutingContext::defaultContext()), and the Target
		/// Session Attributes connectionString names (sessions check out for their own target). Strings
		/// whose settings are equal apart from Target Session Attributes (ConnectionSettings::operator ==,
		/// so also when written in another form or order), with the same login timeout, share one data
		/// source and with it its pools and its read-your-writes token. Its Checkout Timeout is the smaller
		/// of the string's and the login timeout (when not 0). Throws like BlueTuskDataSource::create().

	void clear();
	std::size_t size() const;
		/// The number of distinct data sources.

private:
	struct Shared
	{
		ConnectionSettings settings;   /// with Target Session Attributes any and the login timeout applied
		std::size_t loginTimeoutSeconds = 0;
		BlueTuskDataSource::Ptr dataSource;
	};

	mutable std::mutex _mutex;
	std::map<std::string, Lookup> _byString;   /// string + login timeout -> lookup (no parse on a repeat)
	std::vector<Shared> _dataSources;
};

} } } // namespace BlueTusk::Data::Detail

#endif // BlueTusk_Data_Detail_DataSourceRegistry_INCLUDED
