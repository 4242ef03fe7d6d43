//
// TopologyWatcher.cpp
//
// Library: BlueTusk/Routing
//

#include "TopologyWatcher.h"
#include "router/RouterPass.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <chrono>
#include <exception>

namespace BlueTusk {
namespace Detail {

namespace {

std::string describe(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::string text;
	for (const BlueTuskHostEndpoint& endpoint: endpoints)
	{
		if (!text.empty()) text += ", ";
		text += endpoint.toString();
	}
	return text.empty() ? std::string("none") : text;
}

std::string nameOf(const TopologySource& source)
	// The source's name, asked once: a plugin's name() that throws must not end the watcher's thread.
{
	try
	{
		return source.name();
	}
	catch (...)
	{
		return "(a topology source whose name() failed)";
	}
}

} // namespace


const Poco::Timespan TopologyWatcher::CLOSE_BOUND(1, 0);


struct TopologyWatcher::Shared
{
	std::mutex mutex;
	std::condition_variable finishedChanged;
	bool finished = false;    /// the thread ended (guarded by mutex)
	bool abandoned = false;   /// stop() stopped waiting: the thread must not touch the watcher (guarded by mutex)
};


namespace {

template <class Call>
bool callSource(TopologyWatcher::Shared& shared, std::unique_lock<std::mutex>& held, Call call)
	/// call() into the source without the shared mutex; false when stop() abandoned the thread meanwhile
	/// (then the watcher may be gone). What call() throws is thrown again when not abandoned.
{
	held.unlock();
	std::exception_ptr error;
	try
	{
		call();
	}
	catch (...)
	{
		error = std::current_exception();
	}
	held.lock();
	if (shared.abandoned) return false;
	if (error) std::rethrow_exception(error);
	return true;
}

} // namespace


TopologyWatcher::TopologyWatcher(TopologySource::Ptr source, const ConnectionSettings& settings,
	std::shared_ptr<PoolManager> pools, Publish publish):
	_source(std::move(source)),
	_name(nameOf(*_source)),
	_description(describePolicy("topology", [this]() { return _name; }, _source.get())),
	_settings(settings),
	_pools(std::move(pools)),
	_publish(std::move(publish)),
	_shared(std::make_shared<Shared>())
{
	auto seed = std::make_shared<HostListSnapshot>();
	for (const BlueTuskHostEndpoint& endpoint: settings.endpoints)
	{
		if (!seed->contains(endpoint)) seed->endpoints.push_back(endpoint);
	}
	_seed = seed;
	_hosts = _seed;
}


TopologyWatcher::~TopologyWatcher()
{
	stop();
}


void TopologyWatcher::start()
{
	std::shared_ptr<Shared> shared = _shared;
	TopologySource::Ptr source = _source;   // the thread's own: an abandoned call still has its source
	_thread = std::thread([this, shared, source]
	{
		std::unique_lock<std::mutex> held(shared->mutex);
		run(shared, held, *source);
		shared->finished = true;
		held.unlock();
		shared->finishedChanged.notify_all();
	});
}


void TopologyWatcher::stop()
{
	if (_stopped) return;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_stopped = true;
		_wake.notify_all();
	}
	try
	{
		_source->close();
	}
	catch (...)
	{
		// a close() that throws: the thread is waited for (and abandoned) all the same
	}
	if (!_thread.joinable()) return;
	std::unique_lock<std::mutex> lock(_shared->mutex);
	if (_shared->finishedChanged.wait_for(lock, std::chrono::microseconds(CLOSE_BOUND.totalMicroseconds()), [this] { return _shared->finished; }))
	{
		lock.unlock();
		_thread.join();
		return;
	}
	_shared->abandoned = true;
	lock.unlock();
	_thread.detach();
	logger().warning("%s did not return from read() or waitForChange() within %s ms of close(); the data source "
		"ends without waiting for it (its thread runs on until the call returns, then ends)", _description, std::to_string(CLOSE_BOUND.totalMilliseconds()));
}


HostListPtr TopologyWatcher::hosts() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _hosts;
}


TopologySnapshot TopologyWatcher::snapshot() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _snapshot;
}


Poco::UInt64 TopologyWatcher::readCount() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _reads;
}


Poco::Timespan TopologyWatcher::readTimeout(const ConnectionSettings& settings)
{
	const Poco::Timespan most(5, 0);
	const Poco::Timespan timeout = settings.connectTimeout;
	return timeout.totalMicroseconds() > 0 && timeout < most ? timeout : most;
}


void TopologyWatcher::run(const std::shared_ptr<Shared>& shared, std::unique_lock<std::mutex>& held, TopologySource& source)
{
	for (;;)
	{
		if (!readOnce(shared, held, source)) return;   // abandoned: this may be gone
		if (_stopped) return;
		// Until the next interval, or at once after a push (a source that signals changes); close() ends
		// the wait. A source whose wait fails is read again after an interval's sleep.
		const Poco::Timespan refresh = _settings.topologyRefresh;
		try
		{
			if (!callSource(*shared, held, [&source, refresh] { source.waitForChange(refresh); })) return;
			_waitFailing = false;
		}
		catch (...)
		{
			if (!_waitFailing) logger().information("topology source %s cannot wait for a change; it is read every %s s instead",
				_name, std::to_string(_settings.topologyRefresh.totalSeconds()));
			_waitFailing = true;
			std::unique_lock<std::mutex> lock(_mutex);
			_wake.wait_for(lock, std::chrono::microseconds(_settings.topologyRefresh.totalMicroseconds()), [this] { return _stopped.load(); });
		}
		if (_stopped) return;
	}
}


bool TopologyWatcher::readOnce(const std::shared_ptr<Shared>& shared, std::unique_lock<std::mutex>& held, TopologySource& source)
{
	const SecretRedactor redactor = _settings.redactor();
	const Poco::Timespan timeout = readTimeout(_settings);
	HostListPtr next;
	TopologySnapshot snapshot;
	bool read = false;
	try
	{
		if (!callSource(*shared, held, [&source, &snapshot, timeout] { snapshot = source.read(timeout); })) return false;
		if (snapshot.members.empty()) throw BlueTuskException("topology source " + _name + " returned no member");
		next = membersList(snapshot);
		read = true;
		if (_failing) logger().information("topology source %s answers again", _name);
		_failing = false;
		_everRead = true;
	}
	catch (const Poco::Exception& exc)
	{
		if (_stopped)
		{
			storeRead(nullptr, nullptr);
			return true;
		}
		const std::string text = redactor.redact(exc.displayText());
		if (!_failing) logger().warning("topology source %s cannot be read (the host list stays %s): %s", _name,
			std::string(_everRead ? "the last members read and the written hosts" : "the written hosts"), text);
		else if (logger().debug()) logger().debug("topology source %s cannot be read: %s", _name, text);
		_failing = true;
		next = fallbackList();
	}
	catch (const std::exception& exc)
	{
		if (!_failing) logger().warning("topology source %s failed: %s", _name, redactor.redact(exc.what()));
		_failing = true;
		next = fallbackList();
	}
	catch (...)
	{
		// A plugin may throw anything; on this thread an escaping exception would end the process.
		if (!_failing) logger().warning("topology source %s failed with an exception that is neither a Poco::Exception nor a "
			"std::exception (the host list stays the written hosts or the last members read)", _name);
		_failing = true;
		next = fallbackList();
	}
	if (_stopped) storeRead(nullptr, nullptr);
	else publish(next, read ? &snapshot : nullptr);
	return true;
}


void TopologyWatcher::storeRead(TopologySnapshot* snapshot, const HostListPtr& hosts)
{
	// The host list and the read it comes from change together: whoever sees one sees the other.
	std::lock_guard<std::mutex> lock(_mutex);
	if (hosts) _hosts = hosts;
	if (snapshot) _snapshot = std::move(*snapshot);
	++_reads;
}


HostListPtr TopologyWatcher::membersList(const TopologySnapshot& snapshot) const
{
	auto list = std::make_shared<HostListSnapshot>();
	for (const TopologyMember& member: snapshot.members)
	{
		if (list->contains(member.endpoint)) continue;
		list->endpoints.push_back(member.endpoint);
		list->roleHints[member.endpoint] = member.role;
	}
	list->readAt = Poco::Timestamp();
	return list;
}


HostListPtr TopologyWatcher::fallbackList() const
{
	TopologySnapshot last = snapshot();
	if (last.members.empty()) return _seed;
	auto list = std::make_shared<HostListSnapshot>();
	// The last members read, without their role hints (they may be stale), then the written hosts.
	for (const TopologyMember& member: last.members)
	{
		if (!list->contains(member.endpoint)) list->endpoints.push_back(member.endpoint);
	}
	for (const BlueTuskHostEndpoint& endpoint: _seed->endpoints)
	{
		if (!list->contains(endpoint)) list->endpoints.push_back(endpoint);
	}
	return list;
}


void TopologyWatcher::publish(const HostListPtr& next, TopologySnapshot* read)
{
	HostListPtr current = hosts();
	if (current->endpoints == next->endpoints && current->roleHints == next->roleHints)
	{
		storeRead(read, nullptr);
		return;
	}
	std::vector<BlueTuskHostEndpoint> added;
	std::vector<BlueTuskHostEndpoint> removed;
	for (const BlueTuskHostEndpoint& endpoint: next->endpoints)
	{
		if (!current->contains(endpoint)) added.push_back(endpoint);
	}
	for (const BlueTuskHostEndpoint& endpoint: current->endpoints)
	{
		if (!next->contains(endpoint)) removed.push_back(endpoint);
	}
	// New members' pools exist (and take sessions again) before any checkout can see them.
	for (const BlueTuskHostEndpoint& endpoint: added)
	{
		EndpointPool& pool = _pools->pool(endpoint);
		if (_drained.erase(endpoint)) pool.resume();
	}
	storeRead(read, next);
	// Dropped members: nothing new from them; idle sessions close now, leased ones when they return.
	for (const BlueTuskHostEndpoint& endpoint: removed)
	{
		_pools->pool(endpoint).drain();
		_drained.insert(endpoint);
	}
	if (!added.empty() || !removed.empty())
	{
		logger().information("topology source %s: host list now %s (added: %s; dropped: %s)", _name,
			describe(next->endpoints), describe(added), describe(removed));
	}
	if (_publish) _publish(next);
}

} } // namespace BlueTusk::Detail
