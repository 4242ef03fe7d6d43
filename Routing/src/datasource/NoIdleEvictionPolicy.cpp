//
// NoIdleEvictionPolicy.cpp
//
// Library: BlueTusk/Routing
//

#include "NoIdleEvictionPolicy.h"

namespace BlueTusk {
namespace Detail {

std::string NoIdleEvictionPolicy::name() const
{
	return "unpooled";
}


bool NoIdleEvictionPolicy::keepOnReturn(const PooledSessionInfo&, const PoolSizeInfo&, const ConnectionSettings&, Poco::Timestamp) const
{
	return false;
}


std::vector<std::size_t> NoIdleEvictionPolicy::selectForEviction(const std::vector<PooledSessionInfo>& idle,
	const PoolSizeInfo&, const ConnectionSettings&, Poco::Timestamp) const
{
	std::vector<std::size_t> all;
	for (std::size_t i = 0; i < idle.size(); ++i) all.push_back(i);
	return all;
}


Poco::Timespan NoIdleEvictionPolicy::lifetimeFor(const ConnectionSettings&) const
{
	return 0;
}

} } // namespace BlueTusk::Detail
