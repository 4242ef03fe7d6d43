//
// AutoFailoverTopologySource.cpp
//
// Library: BlueTusk/Plugins/Topology
//

#include "AutoFailoverTopologySource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/NumberParser.h"
#include <algorithm>

namespace BlueTusk {

namespace {

const char* const stateChannel = "state";
const Poco::Timespan listenerConnectTimeout(2, 0);  /// bounds a reconnect of the listener, hence close()
const Poco::Timespan waitSlice(0, 100000);


bool isPrimaryState(const std::string& state)
{
	return state == "primary" || state == "wait_primary" || state == "single";
}


bool isStandbyState(const std::string& state)
{
	return state == "secondary" || state == "catchingup";
}


std::string text(const FieldValue& field)
{
	return field ? *field : std::string();
}


Poco::Int64 number(const FieldValue& field, Poco::Int64 otherwise)
{
	Poco::Int64 value = otherwise;
	if (field && Poco::NumberParser::tryParse64(*field, value)) return value;
	return otherwise;
}

} // namespace


AutoFailoverTopologySource::AutoFailoverTopologySource() = default;


AutoFailoverTopologySource::~AutoFailoverTopologySource()
{
	closeSessions();
}


std::string AutoFailoverTopologySource::name() const
{
	return "pg_auto_failover";
}


void AutoFailoverTopologySource::configure(const std::string& location, const ConnectionSettings& seed)
{
	if (location.find_first_not_of(" \t") == std::string::npos)
		throw BlueTuskConnectionStringException("Topology Source: pg_auto_failover needs the monitor's connection string after ':'");
	try
	{
		_settings = ConnectionSettings::parse(location);
	}
	catch (const BlueTuskConnectionStringException& exc)
	{
		throw BlueTuskConnectionStringException("Topology Source: the pg_auto_failover monitor's connection string is not valid: " + exc.message());
	}
	if (_settings.password.empty() && _settings.username == seed.username) _settings.password = seed.password;
	_settings.targetSessionAttributes = TargetSessionAttributes::Any;
}


ServerRole AutoFailoverTopologySource::roleOf(const std::string& reportedState, const std::string& goalState)
{
	if (isPrimaryState(reportedState)) return isPrimaryState(goalState) ? ServerRole::Primary : ServerRole::Unknown;
	if (isStandbyState(reportedState)) return ServerRole::Standby;
	return ServerRole::Unknown;
}


TopologyMember AutoFailoverTopologySource::member(const AutoFailoverNode& node)
{
	TopologyMember member;
	member.endpoint = BlueTuskHostEndpoint(node.host, static_cast<Poco::UInt16>(node.port));
	member.name = node.name;
	member.role = roleOf(node.reportedState, node.goalState);
	member.state = node.reportedState;
	if (!node.goalState.empty() && node.goalState != node.reportedState) member.state += " -> " + node.goalState;
	if (node.health == 0) member.state += ", unhealthy";
	member.timeline = node.timeline;
	member.lagBytes = node.lagBytes;
	return member;
}


const std::string& AutoFailoverTopologySource::query()
{
	static const std::string sql =
		"SELECT n.nodename, n.nodehost, n.nodeport, n.reportedstate, n.goalstate, n.health, n.reportedtli, "
		"GREATEST(pg_wal_lsn_diff(p.lsn, n.reportedlsn), 0)::bigint "
		"FROM pgautofailover.node n LEFT JOIN LATERAL ("
		"SELECT max(q.reportedlsn) AS lsn FROM pgautofailover.node q WHERE q.formationid = n.formationid "
		"AND q.groupid = n.groupid AND q.reportedstate IN ('primary', 'wait_primary', 'single') "
		"AND q.goalstate IN ('primary', 'wait_primary', 'single')) p ON true "
		"ORDER BY (n.reportedstate IN ('primary', 'wait_primary', 'single') "
		"AND n.goalstate IN ('primary', 'wait_primary', 'single')) DESC, n.nodeid";
	return sql;
}


std::string AutoFailoverTopologySource::monitorName() const
{
	std::string endpoints;
	for (const auto& endpoint: _settings.endpoints) endpoints += (endpoints.empty() ? "" : ",") + endpoint.toString();
	return "pg_auto_failover monitor " + (endpoints.empty() ? std::string("(default host)") : endpoints);
}


ConnectionSettings AutoFailoverTopologySource::boundedSettings(const Poco::Timespan& timeout) const
{
	ConnectionSettings settings = _settings;
	if (timeout > 0)
	{
		settings.connectTimeout = std::min(settings.connectTimeout, timeout);
		settings.commandTimeout = settings.commandTimeout > 0 ? std::min(settings.commandTimeout, timeout) : timeout;
	}
	settings.failoverTimeout = 0;
	return settings;
}


TopologySnapshot AutoFailoverTopologySource::read(const Poco::Timespan& timeout)
{
	std::lock_guard<std::mutex> lock(_ioMutex);
	if (closed()) throw BlueTuskException(monitorName() + ": the topology source is closed");
	std::vector<QueryResult> results;
	try
	{
		if (!_connection.isOpen()) _connection = BlueTuskConnection::open(boundedSettings(timeout), RoutingContext::defaultContext());
		results = _connection.executeSimple(query());
	}
	catch (BlueTuskException& exc)
	{
		_connection.close();
		exc.addContext(monitorName());   // keeps the exception's type (BlueTuskTransportException, ...)
		throw;
	}
	TopologySnapshot snapshot;
	if (!results.empty())
	{
		for (const Row& row: results.front().rows)
		{
			if (row.size() < 8) break;
			AutoFailoverNode node;
			node.name = text(row[0]);
			node.host = text(row[1]);
			node.port = static_cast<int>(number(row[2], 0));
			node.reportedState = text(row[3]);
			node.goalState = text(row[4]);
			node.health = static_cast<int>(number(row[5], -1));
			node.timeline = static_cast<Poco::UInt32>(number(row[6], 0));
			node.lagBytes = number(row[7], -1);
			if (node.host.empty() || node.port <= 0 || node.port > 65535) continue;
			snapshot.members.push_back(member(node));
		}
	}
	if (snapshot.members.empty())
		throw BlueTuskException(monitorName() + ": pgautofailover.node lists no node with a host and port");
	snapshot.readAt.update();
	if (closed()) closeSessions();
	return snapshot;
}


bool AutoFailoverTopologySource::waitForChange(const Poco::Timespan& timeout)
{
	std::unique_lock<std::mutex> lock(_ioMutex);
	if (closed()) return false;
	if (!_listener)
	{
		try
		{
			ConnectionSettings settings = boundedSettings(timeout > 0 ? timeout : listenerConnectTimeout);
			settings.connectTimeout = std::min(settings.connectTimeout, listenerConnectTimeout);
			settings.commandTimeout = 0;   // the listener's session waits; LISTEN itself is one short command
			auto listener = std::make_unique<NotificationListener>(settings, RoutingContext::defaultContext(), TargetSessionAttributes::Any);
			listener->listen(stateChannel);
			_listener = std::move(listener);
		}
		catch (const Poco::Exception&)
		{
			// No push from a monitor that cannot be reached: wait like a polling source; read() reports why.
			lock.unlock();
			return TopologySource::waitForChange(timeout);
		}
	}
	Poco::Timestamp started;
	ListenerEvent event;
	while (!closed())
	{
		const Poco::Timespan left = timeout - Poco::Timespan(started.elapsed());
		if (left <= 0) return false;
		bool arrived = false;
		try
		{
			arrived = _listener->wait(std::min(left, waitSlice), event);
		}
		catch (const Poco::Exception&)
		{
			_listener.reset();   // opened afresh on the next call; a change may have been missed
			return true;
		}
		if (arrived)
		{
			while (_listener->wait(0, event)) {} // the rest of a burst: one read covers them
			return true;
		}
	}
	closeSessions();
	return false;
}


void AutoFailoverTopologySource::close()
{
	TopologySource::close();
	std::unique_lock<std::mutex> lock(_ioMutex, std::try_to_lock);
	if (lock.owns_lock()) closeSessions();   // else the running call closes them as it returns
}


void AutoFailoverTopologySource::closeSessions()
{
	_listener.reset();
	_connection.close();
}

} // namespace BlueTusk
