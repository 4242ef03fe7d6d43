//
// TopologySource.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/TopologySource.h"
#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace BlueTusk {

bool TopologyMember::operator == (const TopologyMember& other) const
{
	return endpoint == other.endpoint && name == other.name && role == other.role && state == other.state &&
		timeline == other.timeline && lagBytes == other.lagBytes;
}


bool TopologyMember::operator != (const TopologyMember& other) const
{
	return !(*this == other);
}


std::vector<BlueTuskHostEndpoint> TopologySnapshot::endpoints() const
{
	std::vector<BlueTuskHostEndpoint> result;
	for (const TopologyMember& member: members)
	{
		if (std::find(result.begin(), result.end(), member.endpoint) == result.end()) result.push_back(member.endpoint);
	}
	return result;
}


struct TopologySource::Impl
{
	std::mutex mutex;
	std::condition_variable wake;
	bool closed = false;
};


TopologySource::TopologySource():
	_impl(std::make_unique<Impl>())
{
}


TopologySource::~TopologySource()
{
}


bool TopologySource::waitForChange(const Poco::Timespan& timeout)
{
	std::unique_lock<std::mutex> lock(_impl->mutex);
	_impl->wake.wait_for(lock, std::chrono::microseconds(timeout.totalMicroseconds()), [this] { return _impl->closed; });
	return false;
}


void TopologySource::close()
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	_impl->closed = true;
	_impl->wake.notify_all();
}


bool TopologySource::closed() const
{
	std::lock_guard<std::mutex> lock(_impl->mutex);
	return _impl->closed;
}

} // namespace BlueTusk
