//
// HealthMonitor.cpp
//
// Library: BlueTusk/Routing
//
// The connector's background health monitor: per endpoint, a thread that re-probes it while it is down and
// watches its role through idle pooled sessions while it is up (doc/high-availability.md).
//

#include "HealthMonitor.h"
#include "router/AttemptFailure.h"
#include "router/RouterPass.h"
#include "Poco/Clock.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <pthread.h>
#include <thread>

namespace BlueTusk {
namespace Detail {

namespace {

const Poco::Timespan MIN_INTERVAL(0, 10000); // 10 ms: a smaller Health Check Interval is taken as this


bool isDemotion(ServerRole before, ServerRole after)
{
	return before == ServerRole::Primary && (after == ServerRole::Standby || after == ServerRole::PrimaryReadOnly);
}

} // namespace


struct HealthMonitor::Watcher
	/// One watched endpoint: its thread and the data sources that have it. Members under HealthMonitor::_mutex.
{
	BlueTuskHostEndpoint endpoint;
	std::vector<Watch> watches;          /// registration order; the first one's settings open the probes
	bool stop = false;
	std::condition_variable wake;
	std::thread thread;
	OpenCancellation* opening = nullptr; /// the probe's open in progress, or null
	Id openingFor = 0;                   /// whose settings that open uses

	Poco::Timespan interval() const
		/// The smallest Health Check Interval among the watches (at least MIN_INTERVAL).
	{
		Poco::Timespan smallest;
		for (const Watch& watch: watches)
		{
			const Poco::Timespan own = watch.member.settings->healthCheckInterval;
			if (smallest.totalMicroseconds() == 0 || own < smallest) smallest = own;
		}
		return std::max(smallest, MIN_INTERVAL);
	}
};


HealthMonitor::HealthMonitor(HostStateRegistry& states):
	_states(states)
{
}


HealthMonitor::~HealthMonitor()
{
	std::vector<std::shared_ptr<Watcher>> stopped;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		while (!_watchers.empty()) stopLocked(_watchers.begin()->second, stopped);
	}
	for (auto& watcher: stopped)
	{
		if (watcher->thread.joinable()) watcher->thread.join();
	}
}


HealthMonitor::Id HealthMonitor::add(const Member& member)
{
	std::lock_guard<std::mutex> lock(_mutex);
	const Id id = ++_nextId;
	_members[id] = member;
	for (const BlueTuskHostEndpoint& endpoint: member.settings->endpoints) watchLocked(id, member, endpoint);
	return id;
}


void HealthMonitor::setEndpoints(Id id, const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::vector<std::shared_ptr<Watcher>> stopped;
	std::vector<Watch> released; // destroyed after the lock: may hold the last reference to a pool manager
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto member = _members.find(id);
		if (member == _members.end()) return; // removed meanwhile
		for (const BlueTuskHostEndpoint& endpoint: endpoints) watchLocked(id, member->second, endpoint);
		for (auto it = _watchers.begin(); it != _watchers.end();)
		{
			std::shared_ptr<Watcher> watcher = (it++)->second;
			if (std::find(endpoints.begin(), endpoints.end(), watcher->endpoint) != endpoints.end()) continue;
			unwatchLocked(id, watcher, stopped, released);
		}
	}
	joinAll(stopped);
}


void HealthMonitor::watchLocked(Id id, const Member& member, const BlueTuskHostEndpoint& endpoint)
{
	std::shared_ptr<Watcher>& watcher = _watchers[endpoint];
	if (!watcher)
	{
		watcher = std::make_shared<Watcher>();
		watcher->endpoint = endpoint;
	}
	const bool known = std::any_of(watcher->watches.begin(), watcher->watches.end(), [id](const Watch& w) { return w.id == id; });
	if (known) return; // the endpoint written twice in one host list, or already watched
	watcher->watches.push_back(Watch{id, member});
	if (!watcher->thread.joinable())
	{
		_states.watch(endpoint);
		watcher->thread = std::thread(&HealthMonitor::run, this, watcher);
		pthread_setname_np(watcher->thread.native_handle(), "bt-health"); // here: named before add() returns
		if (logger().debug())
			logger().debug("health monitor: watching %s every %s ms", member.settings->redactor().redact(endpoint.toString()),
				std::to_string(watcher->interval().totalMilliseconds()));
	}
	else
	{
		watcher->wake.notify_all(); // the interval may have shrunk
	}
}


void HealthMonitor::unwatchLocked(Id id, std::shared_ptr<Watcher> watcher, std::vector<std::shared_ptr<Watcher>>& stopped,
	std::vector<Watch>& released)
{
	auto own = std::find_if(watcher->watches.begin(), watcher->watches.end(), [id](const Watch& w) { return w.id == id; });
	if (own == watcher->watches.end()) return;
	released.push_back(std::move(*own));
	watcher->watches.erase(own);
	if (watcher->opening && watcher->openingFor == id) watcher->opening->cancel();
	if (watcher->watches.empty()) stopLocked(watcher, stopped);
	else watcher->wake.notify_all(); // the interval may have grown
}


void HealthMonitor::joinAll(std::vector<std::shared_ptr<Watcher>>& stopped)
{
	for (auto& watcher: stopped)
	{
		if (watcher->thread.joinable()) watcher->thread.join();
	}
}


void HealthMonitor::remove(Id id)
{
	std::vector<std::shared_ptr<Watcher>> stopped;
	std::vector<Watch> released; // destroyed after the lock: may hold the last reference to a pool manager
	Member member;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		auto found = _members.find(id);
		if (found != _members.end())
		{
			member = std::move(found->second);
			_members.erase(found);
		}
		for (auto it = _watchers.begin(); it != _watchers.end();)
		{
			std::shared_ptr<Watcher> watcher = (it++)->second;
			unwatchLocked(id, watcher, stopped, released);
		}
	}
	joinAll(stopped);
}


std::size_t HealthMonitor::watchedEndpoints() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _watchers.size();
}


void HealthMonitor::stopLocked(std::shared_ptr<Watcher> watcher, std::vector<std::shared_ptr<Watcher>>& stopped)
{
	watcher->stop = true;
	if (watcher->opening) watcher->opening->cancel();
	watcher->wake.notify_all();
	_states.unwatch(watcher->endpoint);
	_watchers.erase(watcher->endpoint);
	stopped.push_back(std::move(watcher));
}


void HealthMonitor::run(std::shared_ptr<Watcher> watcher)
{
	std::unique_lock<std::mutex> lock(_mutex);
	while (!watcher->stop)
	{
		const Poco::Timespan interval = watcher->interval();
		watcher->wake.wait_for(lock, std::chrono::microseconds(interval.totalMicroseconds()), [&watcher] { return watcher->stop; });
		if (watcher->stop) break;
		std::vector<Watch> watches = watcher->watches;
		if (watches.empty()) continue;
		lock.unlock();
		try
		{
			round(*watcher, watches, interval);
		}
		catch (...)
		{
			logger().error("health monitor: a round failed unexpectedly for %s",
				watches.front().member.settings->redactor().redact(watcher->endpoint.toString()));
		}
		watches.clear(); // outside the lock: may end a data source's pools
		lock.lock();
	}
}


void HealthMonitor::round(Watcher& watcher, const std::vector<Watch>& watches, Poco::Timespan interval)
{
	const HostStateRegistry::Entry state = _states.entry(watcher.endpoint);
	if (state.state == HostCandidate::DOWN)
	{
		// Marked down less than half an interval ago (by a checkout or the last probe): its turn comes next round.
		if (!state.learnedAt.isElapsed(interval.totalMicroseconds() / 2)) return;
		probeDown(watcher, watches);
	}
	else
	{
		watchRole(watcher.endpoint, watches, interval);
	}
}


void HealthMonitor::probeDown(Watcher& watcher, const std::vector<Watch>& watches)
{
	const Watch& chosen = watches.front();
	const ConnectionSettings& settings = *chosen.member.settings;
	const SecretRedactor redactor = settings.redactor();
	const std::string name = redactor.redact(watcher.endpoint.toString());
	OpenCancellation cancellation;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		if (watcher.stop) return;
		watcher.opening = &cancellation;
		watcher.openingFor = chosen.id;
	}
	Session::Ptr session;
	ServerRole role = ServerRole::Unknown;
	std::unique_ptr<Poco::Exception> failure;
	try
	{
		session = chosen.member.factory->openCancellable(watcher.endpoint, settings, cancellation);
		if (session) role = session->control().probeRole(false);
	}
	catch (Poco::Exception& exc)
	{
		failure.reset(exc.clone());
	}
	catch (std::exception& exc)
	{
		failure.reset(new Poco::Exception(exc.what()));
	}
	{
		std::lock_guard<std::mutex> lock(_mutex);
		watcher.opening = nullptr;
		watcher.openingFor = 0;
	}
	if (cancellation.isCancelled())
	{
		if (session) session->close();
		return;
	}
	if (failure || !session)
	{
		if (session) session->close();
		const AttemptFailure classified = failure ? AttemptFailure::classify(*failure, settings) : AttemptFailure();
		if (classified.kind == AttemptFailure::UNAVAILABLE)
		{
			_states.markDown(watcher.endpoint, classified.detail);
			if (logger().debug()) logger().debug("health monitor: %s still down: %s", name, redactor.redact(classified.detail));
		}
		else if (logger().debug())
		{
			logger().debug("health monitor: probing %s failed: %s", name, redactor.redact(classified.fullText));
		}
		return;
	}
	_states.markUp(watcher.endpoint, role);
	for (const Watch& watch: watches)
	{
		if (role != ServerRole::Unknown) watch.member.pools->pool(watcher.endpoint).setLastKnownRole(role);
	}
	logger().information("health monitor: %s is up again (%s)", name, toString(role));
	chosen.member.pools->pool(watcher.endpoint).adopt(std::move(session)); // idle if there is room, else closed
}


void HealthMonitor::watchRole(const BlueTuskHostEndpoint& endpoint, const std::vector<Watch>& watches, Poco::Timespan interval)
{
	for (const Watch& watch: watches)
	{
		EndpointPool& pool = watch.member.pools->pool(endpoint);
		PoolEntryPtr entry = pool.takeIdleForCheck(interval);
		if (!entry) continue;
		const SecretRedactor redactor = watch.member.settings->redactor();
		ServerRole before = pool.lastKnownRole();
		if (before == ServerRole::Unknown) before = entry->session->role();
		ServerRole after = ServerRole::Unknown;
		Poco::Clock roundTrip;
		try
		{
			after = entry->session->control().refreshRole();
		}
		catch (Poco::Exception& exc)
		{
			if (logger().debug())
				logger().debug("health monitor: an idle session to %s failed its role check, closed: %s",
					redactor.redact(endpoint.toString()), redactor.redact(exc.displayText()));
			pool.returnChecked(std::move(entry), true);
			return;
		}
		_states.noteQueryTime(endpoint, static_cast<double>(roundTrip.elapsed()) / 1000.0);   // HostCandidate::lastQueryMs
		if (logger().debug())
			logger().debug("health monitor: %s checked through an idle session: %s", redactor.redact(endpoint.toString()), toString(after));
		const bool changed = after != ServerRole::Unknown && after != before;
		pool.returnChecked(std::move(entry), changed && isDemotion(before, after));
		if (changed) roleFound(endpoint, watches, before, after);
		return; // one check per endpoint per round
	}
}


void HealthMonitor::roleFound(const BlueTuskHostEndpoint& endpoint, const std::vector<Watch>& watches, ServerRole before, ServerRole after)
{
	_states.setRole(endpoint, after);
	if (after != ServerRole::Primary) _states.clearPrimaryTimeline(endpoint);
	const bool demoted = isDemotion(before, after);
	int closed = 0;
	for (const Watch& watch: watches)
	{
		EndpointPool& pool = watch.member.pools->pool(endpoint);
		pool.setLastKnownRole(after);
		if (demoted) closed += pool.closeIdle();
	}
	const std::string name = watches.front().member.settings->redactor().redact(endpoint.toString());
	if (demoted)
		logger().information("health monitor: %s was demoted (%s, was %s): closed %s idle session(s) in %s data source(s)",
			name, toString(after), toString(before), std::to_string(closed), std::to_string(watches.size()));
	else
		logger().information("health monitor: %s changed role (%s, was %s)", name, toString(after), toString(before));
}

} } // namespace BlueTusk::Detail
