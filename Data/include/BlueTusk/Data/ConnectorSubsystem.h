//
// ConnectorSubsystem.h
//
// Library: BlueTusk/Data
//
// A Poco::Util subsystem that registers the "bluetusk" Poco::Data connector from configuration.
//

#ifndef BlueTusk_Data_ConnectorSubsystem_INCLUDED
#define BlueTusk_Data_ConnectorSubsystem_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Util/AbstractConfiguration.h"
#include "Poco/Util/Subsystem.h"

namespace BlueTusk {
namespace Data {

class BlueTusk_Data_API ConnectorSubsystem: public Poco::Util::Subsystem
	/// Add it to a Poco::Util::Application (addSubsystem(new BlueTusk::Data::ConnectorSubsystem)) and
	/// Poco::Data::Session("bluetusk", ...) works from main() on:
	///
	///     bluetusk.data.connector = true    # register the connector (the default); false leaves it out
	///
	/// initialize() registers it, uninitialize() unregisters it and drains the data sources its sessions
	/// shared. Logging: Poco::Logger "BlueTusk.Data". Not thread-safe (the application initializes it).
{
public:
	ConnectorSubsystem();

	const char* name() const;
		/// "BlueTusk.Data".

	void open(const Poco::Util::AbstractConfiguration& config);
		/// What initialize() does with the application's configuration.

	void close();
		/// What uninitialize() does.

	bool isRegistered() const;
		/// True between open() with the connector enabled and close().

protected:
	void initialize(Poco::Util::Application& app);
	void uninitialize();

private:
	bool _registered = false;
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_ConnectorSubsystem_INCLUDED
