//
// BlueTuskConnection.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/Connector.h"
#include "ConnectionState.h"
#include "UnpooledOpen.h"
#include "Poco/Exception.h"

namespace BlueTusk {

BlueTuskConnection BlueTuskConnection::open(const std::string& connectionString)
{
	return open(ConnectionSettings::parse(connectionString), Connector::defaultConnector());
}


BlueTuskConnection BlueTuskConnection::open(const std::string& connectionString, Connector& connector)
{
	return open(ConnectionSettings::parse(connectionString), connector);
}


BlueTuskConnection BlueTuskConnection::open(const ConnectionSettings& settings, Connector& connector)
{
	return BlueTuskConnection(Detail::openUnpooled(settings, connector));
}


BlueTuskConnection::BlueTuskConnection()
{
}


BlueTuskConnection::BlueTuskConnection(std::unique_ptr<Detail::ConnectionState> state):
	_state(std::move(state))
{
}


BlueTuskConnection::BlueTuskConnection(BlueTuskConnection&& other) noexcept:
	_state(std::move(other._state))
{
}


BlueTuskConnection& BlueTuskConnection::operator = (BlueTuskConnection&& other) noexcept
{
	if (this != &other)
	{
		close();
		_state = std::move(other._state);
	}
	return *this;
}


BlueTuskConnection::~BlueTuskConnection()
{
	close();
}


bool BlueTuskConnection::isOpen() const
{
	return _state && _state->entry;
}


bool BlueTuskConnection::isPooled() const
{
	return _state && _state->pooled;
}


void BlueTuskConnection::checkOpen() const
{
	if (!isOpen()) throw Poco::InvalidAccessException("BlueTuskConnection is not open");
}


const BlueTuskHostEndpoint& BlueTuskConnection::connectedEndpoint() const
{
	checkOpen();
	// The owning pool's endpoint (what open() used to copy into the state; the pool outlives the lease).
	return _state->entry->pool ? _state->entry->pool->endpoint() : _state->endpoint;
}


ServerRole BlueTuskConnection::role() const
{
	checkOpen();
	Session& session = *_state->entry->session;
	ServerRole role = session.role();
	if (role == ServerRole::Unknown && !session.isBroken())
	{
		try
		{
			role = session.probeRole(false);
		}
		catch (Poco::Exception&)
		{
		}
	}
	return role;
}


Session& BlueTuskConnection::session()
{
	checkOpen();
	return *_state->entry->session;
}


std::vector<QueryResult> BlueTuskConnection::executeSimple(const std::string& sql)
{
	return session().executeSimple(sql);
}


QueryResult BlueTuskConnection::execute(const std::string& sql, const std::vector<FieldValue>& parameters)
{
	return session().execute(sql, parameters);
}


void BlueTuskConnection::close()
{
	if (_state)
	{
		_state->release();
		_state->manager.reset();
		_state->owner.reset();
	}
}


const HostAttemptList& BlueTuskConnection::attemptLog() const
{
	static const HostAttemptList empty;
	if (!_state) return empty;
	return _state->sharedAttempts ? *_state->sharedAttempts : _state->attempts;
}


const ConnectionSettings& BlueTuskConnection::settings() const
{
	if (!_state || !_state->settings) throw Poco::InvalidAccessException("BlueTuskConnection is not open");
	return *_state->settings;
}

} // namespace BlueTusk
