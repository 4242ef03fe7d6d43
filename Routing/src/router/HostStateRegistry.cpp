//
// HostStateRegistry.cpp
//
// Library: BlueTusk/Routing
//

#include "HostStateRegistry.h"

namespace BlueTusk {

HostStateRegistry::HostStateRegistry()
{
}


HostStateRegistry::~HostStateRegistry()
{
}


void HostStateRegistry::markDown(const BlueTuskHostEndpoint& endpoint, const std::string& reason)
{
	std::lock_guard<std::mutex> lock(_mutex);
	Entry& entry = _entries[endpoint];
	if (entry.state != HostCandidate::DOWN) _downEntries.fetch_add(1, std::memory_order_relaxed);
	entry.state = HostCandidate::DOWN;
	entry.learnedAt.update();
	entry.reason = reason;
	_generation.fetch_add(1, std::memory_order_release);
}


void HostStateRegistry::markUp(const BlueTuskHostEndpoint& endpoint, ServerRole role)
{
	std::lock_guard<std::mutex> lock(_mutex);
	Entry& entry = _entries[endpoint];
	if (entry.state == HostCandidate::DOWN) _downEntries.fetch_sub(1, std::memory_order_relaxed);
	entry.state = HostCandidate::UP;
	entry.learnedAt.update();
	entry.reason.clear();
	if (role != ServerRole::Unknown)
	{
		entry.role = role;
		entry.roleLearnedAt = entry.learnedAt;
	}
	_generation.fetch_add(1, std::memory_order_release);
}


void HostStateRegistry::noteConnectTime(const BlueTuskHostEndpoint& endpoint, double milliseconds)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_connectTimes[endpoint].add(milliseconds);
}


void HostStateRegistry::noteQueryTime(const BlueTuskHostEndpoint& endpoint, double milliseconds)
{
	if (milliseconds < 0) return;
	std::lock_guard<std::mutex> lock(_mutex);
	_queryTimes[endpoint].add(milliseconds);
}


double HostStateRegistry::smoothed(double previous, unsigned count, double milliseconds)
{
	return count == 0 ? milliseconds : previous * 7 / 8 + milliseconds / 8;
}


void HostStateRegistry::setRole(const BlueTuskHostEndpoint& endpoint, ServerRole role)
{
	markUp(endpoint, role);
}


void HostStateRegistry::notePrimaryTimeline(const BlueTuskHostEndpoint& endpoint, Poco::UInt32 timeline)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (timeline == 0) _primaryTimelines.erase(endpoint);
	else _primaryTimelines[endpoint] = timeline;
	bool differ = false;
	for (const auto& recorded: _primaryTimelines)
		differ = differ || recorded.second != _primaryTimelines.begin()->second;
	_timelinesDiffer.store(differ, std::memory_order_release);
}


void HostStateRegistry::clearPrimaryTimeline(const BlueTuskHostEndpoint& endpoint)
{
	notePrimaryTimeline(endpoint, 0);
}


Poco::UInt32 HostStateRegistry::primaryTimeline(const BlueTuskHostEndpoint& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _primaryTimelines.find(endpoint);
	return it == _primaryTimelines.end() ? 0 : it->second;
}


Poco::UInt32 HostStateRegistry::newestOtherPrimaryTimeline(const BlueTuskHostEndpoint& endpoint,
	const std::vector<BlueTuskHostEndpoint>& endpoints, BlueTuskHostEndpoint* holder) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	Poco::UInt32 newest = 0;
	for (const auto& other: endpoints)
	{
		if (other == endpoint) continue;
		auto it = _primaryTimelines.find(other);
		if (it != _primaryTimelines.end() && it->second > newest)
		{
			newest = it->second;
			if (holder) *holder = other;
		}
	}
	return newest;
}


bool HostStateRegistry::isDeposed(const BlueTuskHostEndpoint& endpoint, const std::vector<BlueTuskHostEndpoint>& endpoints) const
{
	if (!_timelinesDiffer.load(std::memory_order_acquire)) return false;
	const Poco::UInt32 own = primaryTimeline(endpoint);
	return own != 0 && newestOtherPrimaryTimeline(endpoint, endpoints) > own;
}


HostStateRegistry::Entry HostStateRegistry::entry(const BlueTuskHostEndpoint& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _entries.find(endpoint);
	return it == _entries.end() ? Entry() : it->second;
}


HostCandidate HostStateRegistry::candidate(const BlueTuskHostEndpoint& endpoint, std::size_t position, Poco::Timespan recheck) const
{
	HostCandidate candidate;
	candidate.endpoint = endpoint;
	candidate.position = position;
	Entry learned;
	bool watched = false;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto it = _entries.find(endpoint);
		if (it != _entries.end()) learned = it->second;
		watched = !_watched.empty() && _watched.count(endpoint) > 0;
		auto copy = [&endpoint](const std::map<BlueTuskHostEndpoint, ConnectTimes>& measured, double& last, double& smoothed,
			Poco::Timestamp& at, unsigned& count)
		{
			auto times = measured.find(endpoint);
			if (times == measured.end()) return;
			last = times->second.lastMs;
			smoothed = times->second.smoothedMs;
			at = times->second.measuredAt;
			count = times->second.count;
		};
		copy(_connectTimes, candidate.lastConnectMs, candidate.smoothedConnectMs, candidate.connectMeasuredAt, candidate.connectsMeasured);
		copy(_queryTimes, candidate.lastQueryMs, candidate.smoothedQueryMs, candidate.queryMeasuredAt, candidate.queriesMeasured);
	}
	// A DOWN endpoint the health monitor watches stays DOWN until the monitor finds it answering (unless
	// Host Recheck Seconds=0: no learned state is ever trusted).
	if ((learned.state == HostCandidate::DOWN && watched && recheck.totalMicroseconds() > 0) ||
		(learned.state != HostCandidate::UNKNOWN && !learned.learnedAt.isElapsed(recheck.totalMicroseconds())))
	{
		candidate.state = learned.state;
	}
	if (learned.role != ServerRole::Unknown && !learned.roleLearnedAt.isElapsed(recheck.totalMicroseconds()))
	{
		candidate.role = learned.role;
	}
	return candidate;
}


void HostStateRegistry::forget(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::lock_guard<std::mutex> lock(_mutex);
	for (const auto& endpoint: endpoints)
	{
		auto it = _entries.find(endpoint);
		if (it == _entries.end()) continue;
		if (it->second.state == HostCandidate::DOWN) _downEntries.fetch_sub(1, std::memory_order_relaxed);
		_entries.erase(it);
	}
	_generation.fetch_add(1, std::memory_order_release);
}


void HostStateRegistry::forgetAll()
{
	std::lock_guard<std::mutex> lock(_mutex);
	_entries.clear();
	_downEntries.store(0, std::memory_order_relaxed);
	_generation.fetch_add(1, std::memory_order_release);
}


bool HostStateRegistry::mayHaveDown() const
{
	return _downEntries.load(std::memory_order_relaxed) > 0;
}


std::uint32_t HostStateRegistry::generation() const
{
	return _generation.load(std::memory_order_acquire);
}


Poco::Int64 HostStateRegistry::downSinceMs(const BlueTuskHostEndpoint& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _entries.find(endpoint);
	if (it == _entries.end() || it->second.state != HostCandidate::DOWN) return 0;
	if (_watched.count(endpoint)) return WATCHED_DOWN;
	return it->second.learnedAt.epochMicroseconds() / 1000;
}


void HostStateRegistry::watch(const BlueTuskHostEndpoint& endpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	++_watched[endpoint];
	_generation.fetch_add(1, std::memory_order_release);
}


void HostStateRegistry::unwatch(const BlueTuskHostEndpoint& endpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _watched.find(endpoint);
	if (it == _watched.end()) return;
	if (--it->second <= 0) _watched.erase(it);
	_generation.fetch_add(1, std::memory_order_release);
}


bool HostStateRegistry::isWatched(const BlueTuskHostEndpoint& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _watched.count(endpoint) > 0;
}

} // namespace BlueTusk
