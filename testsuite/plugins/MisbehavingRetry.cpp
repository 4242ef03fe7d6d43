//
// MisbehavingRetry.cpp
//
// A site retry plugin built only for the test suite, broken on purpose (doc/plugin-calls.md, "Where and how
// policies are called"):
//   "name-throwing-retry"   name() throws std::runtime_error("name broke on purpose"); never retries.
// Only the public headers are used, the way a site would write one.
//

#include "BlueTusk/RetryPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include <stdexcept>

namespace {

class NameThrowingRetry: public BlueTusk::RetryPolicy
{
public:
	std::string name() const override
	{
		throw std::runtime_error("name broke on purpose");
	}

	bool retry(const BlueTusk::RetryContext&, Poco::Timespan&) const override
	{
		return false;
	}

	Poco::Timespan budget() const override
	{
		return Poco::Timespan(1, 0);
	}
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::RetryPolicy)
	POCO_EXPORT_INTERFACE(NameThrowingRetry, "name-throwing-retry")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
