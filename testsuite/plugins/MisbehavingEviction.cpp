//
// MisbehavingEviction.cpp
//
// A site eviction plugin built only for the test suite, broken on purpose (doc/plugin-calls.md, "Where and how
// policies are called"): "throwing-eviction" throws std::runtime_error from keepOnReturn() and
// selectForEviction(). A data source then falls back to the standard policy and keeps reusing sessions.
// "name-throwing-eviction": its name() throws std::runtime_error("name broke on purpose").
//

#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include <stdexcept>

namespace {

class ThrowingEviction: public BlueTusk::EvictionPolicy
{
public:
	std::string name() const override
	{
		return "throwing-eviction";
	}

	bool keepOnReturn(const BlueTusk::PooledSessionInfo&, const BlueTusk::PoolSizeInfo&, const BlueTusk::ConnectionSettings&,
		Poco::Timestamp) const override
	{
		throw std::runtime_error("keepOnReturn broke on purpose");
	}

	std::vector<std::size_t> selectForEviction(const std::vector<BlueTusk::PooledSessionInfo>&, const BlueTusk::PoolSizeInfo&,
		const BlueTusk::ConnectionSettings&, Poco::Timestamp) const override
	{
		throw std::runtime_error("selectForEviction broke on purpose");
	}
};



class NameThrowingEviction: public ThrowingEviction
{
public:
	std::string name() const override
	{
		throw std::runtime_error("name broke on purpose");
	}
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::EvictionPolicy)
	POCO_EXPORT_INTERFACE(ThrowingEviction, "throwing-eviction")
	POCO_EXPORT_INTERFACE(NameThrowingEviction, "name-throwing-eviction")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
