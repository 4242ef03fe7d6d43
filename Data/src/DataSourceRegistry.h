//
// DataSourceRegistry.h
//
// Library: BlueTusk/Data
//
// The process-wide map from a connection string (and login timeout) to the BlueTuskDataSource that the
// bluetusk sessions opened with it share.
//

#ifndef BlueTusk_Data_Detail_DataSourceRegistry_INCLUDED
#define BlueTusk_Data_Detail_DataSourceRegistry_INCLUDED

#include "BlueTusk/BlueTuskDataSource.h"
#include <map>
#include <mutex>
#include <string>

namespace BlueTusk {
namespace Data {
namespace Detail {

class DataSourceRegistry
	/// Thread-safe. Data sources stay until clear() (Connector::unregisterConnector()), which drains them:
	/// idle sessions close at once, leased ones when their Poco sessions close.
{
public:
	static DataSourceRegistry& instance();

	BlueTuskDataSource::Ptr get(const std::string& connectionString, std::size_t loginTimeoutSeconds);
		/// The shared data source, created on first use (Connector::defaultConnector()); its Checkout
		/// Timeout is the smaller of the string's and the login timeout (when not 0). Throws like
		/// BlueTuskDataSource::create().

	void clear();
	std::size_t size() const;

private:
	mutable std::mutex _mutex;
	std::map<std::string, BlueTuskDataSource::Ptr> _dataSources;
};

} } } // namespace BlueTusk::Data::Detail

#endif // BlueTusk_Data_Detail_DataSourceRegistry_INCLUDED
