//
// SubsystemTestSupport.h
//
// What the DataSourceSubsystem suites share: a configuration over fake sessions, and message helpers.
//

#ifndef BlueTusk_Test_SubsystemTestSupport_INCLUDED
#define BlueTusk_Test_SubsystemTestSupport_INCLUDED

#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "FakeRoutingContext.h"
#include "Poco/AutoPtr.h"
#include "Poco/Exception.h"
#include "Poco/Util/MapConfiguration.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

namespace BlueTusk {
namespace Test {

const std::string SECRET = "s3cret-subsystem-pw";
const std::string HOSTS = "Host=127.0.0.1,127.0.0.2,127.0.0.3;Port=5432;Username=app;Password=" + SECRET;

struct Fixture: FakeRoutingContext
{
	Poco::AutoPtr<Poco::Util::MapConfiguration> config = new Poco::Util::MapConfiguration;

	void set(const std::string& key, const std::string& value)
	{
		config->setString(key, value);
	}
};


template <class Exc>
std::string messageOf(DataSourceSubsystem& subsystem, const Poco::Util::AbstractConfiguration& config)
	/// Opens subsystem with config, expecting Exc; returns its message.
{
	try
	{
		subsystem.open(config);
	}
	catch (Exc& exc)
	{
		return exc.message();
	}
	catch (Poco::Exception& exc)
	{
		CPPUNIT_FAIL("wrong exception " + std::string(exc.name()) + ": " + exc.displayText());
	}
	CPPUNIT_FAIL("open() did not throw");
	return "";
}


inline bool startsWith(const std::string& text, const std::string& prefix)
{
	return text.compare(0, prefix.size(), prefix) == 0;
}


inline bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_SubsystemTestSupport_INCLUDED
