//
// NotificationListener.cpp
//
// Library: BlueTusk/Routing
//
// A LISTEN session that follows failovers: lost sessions are replaced through the router and every channel
// is LISTENed again; the gap is reported as a Reconnected event (doc/bulk.md, "A listener that follows
// failovers").
//

#include "BlueTusk/NotificationListener.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/SecretRedactor.h"

namespace BlueTusk {

namespace {

const std::size_t MAX_CHANNEL_BYTES = 63;   // NAMEDATALEN - 1: PostgreSQL truncates longer identifiers


std::string quotedIdentifier(const std::string& name)
	/// name as a double-quoted SQL identifier (PostgreSQL docs 4.1.1): embedded quotes doubled.
{
	std::string result = "\"";
	for (char c: name)
	{
		if (c == '"') result += '"';
		result += c;
	}
	result += '"';
	return result;
}


void checkChannel(const std::string& channel)
{
	if (channel.empty())
		throw BlueTuskUsageException("NotificationListener: the channel name is empty");
	if (channel.size() > MAX_CHANNEL_BYTES)
		throw BlueTuskUsageException("NotificationListener: channel name of " + std::to_string(channel.size()) +
			" bytes; PostgreSQL identifiers have at most 63");
	if (channel.find('\0') != std::string::npos)
		throw BlueTuskUsageException("NotificationListener: the channel name contains a NUL byte");
}


ConnectionSettings withTarget(ConnectionSettings settings, TargetSessionAttributes target)
	/// The listener's own settings: its target, and no Read Your Writes (a data source's tokens are for its
	/// read checkouts; a listener's unpooled open has none and would refuse the keyword).
{
	settings.targetSessionAttributes = target;
	settings.targetSessionPolicy.clear();   // the listener's target, not the data source's site policy
	settings.readYourWrites = false;
	return settings;
}

} // namespace


NotificationListener::NotificationListener(const std::string& connectionString, TargetSessionAttributes target):
	NotificationListener(ConnectionSettings::parse(connectionString), RoutingContext::defaultContext(), target)
{
}


NotificationListener::NotificationListener(const ConnectionSettings& settings, RoutingContext& connector, TargetSessionAttributes target):
	_settings(withTarget(settings, target)),
	_connector(connector)
{
	connect();
}


NotificationListener::NotificationListener(const BlueTuskDataSource& dataSource, TargetSessionAttributes target):
	NotificationListener(dataSource.settings(), dataSource.routingContext(), target)
{
}


NotificationListener::~NotificationListener() = default;


void NotificationListener::connect()
{
	BlueTuskConnection connection = BlueTuskConnection::open(_settings, _connector);
	if (!_channels.empty())
	{
		std::string sql;
		for (const auto& channel: _channels) sql += "LISTEN " + quotedIdentifier(channel) + ";";
		connection.executeSimple(sql);   // one round trip for every channel
	}
	_connection = std::move(connection);
	_endpoint = _connection.connectedEndpoint();
}


void NotificationListener::lose(const std::string& reason)
{
	if (_lost) return;
	// What the lost session had queued was received before the loss: it comes before the gap.
	if (_connection.isOpen())
	{
		Session& session = _connection.session();
		_dropped += session.notificationsDropped();
		for (Notification& notification: session.takeNotifications())
		{
			ListenerEvent event;
			event.notification = std::move(notification);
			event.endpoint = _endpoint;
			_pending.push_back(std::move(event));
		}
		_connection.close();
	}
	_lost = true;
	_lostReason = _settings.redactor().redact(reason);
	_lostAt.update();
}


void NotificationListener::sendListen(const std::string& command, const std::string& channel)
{
	checkChannel(channel);
	if (_lost || !_connection.isOpen()) return;   // done by the reconnect
	try
	{
		_connection.executeSimple(command + " " + quotedIdentifier(channel));
	}
	catch (Poco::Exception& exc)
	{
		if (!_connection.session().isBroken()) throw;   // the server refused the command itself
		lose(exc.displayText());
	}
}


void NotificationListener::listen(const std::string& channel)
{
	sendListen("LISTEN", channel);
	_channels.insert(channel);
}


void NotificationListener::unlisten(const std::string& channel)
{
	sendListen("UNLISTEN", channel);
	_channels.erase(channel);
}


bool NotificationListener::wait(const Poco::Timespan& timeout, ListenerEvent& event)
{
	for (;;)
	{
		if (!_pending.empty())
		{
			event = std::move(_pending.front());
			_pending.pop_front();
			return true;
		}
		if (_lost)
		{
			const BlueTuskHostEndpoint previous = _endpoint;
			connect();   // throws when no acceptable server came within Failover Timeout; _lost stays true
			++_reconnects;
			_lost = false;
			ListenerEvent reconnected;
			reconnected.kind = ListenerEvent::Kind::Reconnected;
			reconnected.endpoint = _endpoint;
			reconnected.previousEndpoint = previous;
			reconnected.reason = _lostReason;
			reconnected.lostAt = _lostAt;
			reconnected.reconnectedAt.update();
			event = std::move(reconnected);
			return true;
		}
		Notification notification;
		try
		{
			if (!_connection.session().waitForNotification(timeout, notification)) return false;
		}
		catch (Poco::Exception& exc)
		{
			if (!_connection.session().isBroken()) throw;
			lose(exc.displayText());
			continue;
		}
		event = ListenerEvent();
		event.notification = std::move(notification);
		event.endpoint = _endpoint;
		return true;
	}
}


const std::set<std::string>& NotificationListener::channels() const
{
	return _channels;
}


bool NotificationListener::isConnected() const
{
	return !_lost && _connection.isOpen();
}


BlueTuskHostEndpoint NotificationListener::endpoint() const
{
	return _endpoint;
}


Poco::UInt64 NotificationListener::reconnects() const
{
	return _reconnects;
}


Poco::UInt64 NotificationListener::notificationsDropped() const
{
	return _dropped + (_connection.isOpen() ? _connection.session().notificationsDropped() : 0);
}

} // namespace BlueTusk
