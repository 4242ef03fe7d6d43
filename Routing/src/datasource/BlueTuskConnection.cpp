//
// BlueTuskConnection.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/RoutingContext.h"
#include "ConnectionState.h"
#include "router/Freshness.h"
#include "UnpooledOpen.h"
#include "BlueTusk/Session.h"
#include "Poco/Exception.h"
#include "Poco/Logger.h"
#include <memory>

namespace BlueTusk {

BlueTuskConnection BlueTuskConnection::open(const std::string& connectionString)
{
	return open(ConnectionSettings::parse(connectionString), RoutingContext::defaultContext());
}


BlueTuskConnection BlueTuskConnection::open(const std::string& connectionString, RoutingContext& connector)
{
	return open(ConnectionSettings::parse(connectionString), connector);
}


BlueTuskConnection BlueTuskConnection::open(const ConnectionSettings& settings, RoutingContext& connector)
{
	return BlueTuskConnection(Detail::openUnpooled(settings, connector));
}


BlueTuskConnection::BlueTuskConnection()
{
}


BlueTuskConnection::BlueTuskConnection(std::unique_ptr<Detail::ConnectionState> state):
	_entry(std::move(state->entry)),
	_owner(std::move(state->owner)),
	_settings(state->settings.get()),
	_attempts(&state->attempts),
	_state(std::move(state))
{
	_pooled = _state->pooled;
	_hostStates = _state->hostStates;
}


BlueTuskConnection::BlueTuskConnection(PoolEntryPtr entry, std::shared_ptr<void> owner, const ConnectionSettings& settings,
	const HostAttemptList& attempts, HostStateRegistry* hostStates):
	_entry(std::move(entry)),
	_owner(std::move(owner)),
	_settings(&settings),
	_attempts(&attempts),
	_hostStates(hostStates),
	_pooled(true)
{
}


BlueTuskConnection::BlueTuskConnection(BlueTuskConnection&& other) noexcept:
	_entry(std::move(other._entry)),
	_owner(std::move(other._owner)),
	_settings(other._settings),
	_attempts(other._attempts),
	_state(std::move(other._state)),
	_hostStates(other._hostStates),
	_pooled(other._pooled),
	_freshness(other._freshness),
	_writeLease(other._writeLease)
{
	other._settings = nullptr;
	other._attempts = nullptr;
	other._pooled = false;
	other._freshness = nullptr;
	other._writeLease = false;
}


BlueTuskConnection& BlueTuskConnection::operator = (BlueTuskConnection&& other) noexcept
{
	if (this != &other)
	{
		close();
		_entry = std::move(other._entry);
		_owner = std::move(other._owner);
		_settings = other._settings;
		_attempts = other._attempts;
		_state = std::move(other._state);
		_hostStates = other._hostStates;
		_pooled = other._pooled;
		_freshness = other._freshness;
		_writeLease = other._writeLease;
		other._settings = nullptr;
		other._attempts = nullptr;
		other._pooled = false;
		other._freshness = nullptr;
		other._writeLease = false;
	}
	return *this;
}


BlueTuskConnection::~BlueTuskConnection()
{
	close();
}


bool BlueTuskConnection::isOpen() const
{
	return _entry != nullptr;
}


bool BlueTuskConnection::isPooled() const
{
	return _pooled;
}


void BlueTuskConnection::checkOpen() const
{
	if (!isOpen()) throw Poco::InvalidAccessException("BlueTuskConnection is not open");
}


const BlueTuskHostEndpoint& BlueTuskConnection::connectedEndpoint() const
{
	checkOpen();
	// The owning pool's endpoint (the pool outlives the lease).
	return _entry->pool->endpoint();
}


ServerRole BlueTuskConnection::role() const
{
	checkOpen();
	Session& session = *_entry->session;
	ServerRole role = session.role();
	if (role == ServerRole::Unknown && !session.isBroken())
	{
		try
		{
			role = session.control().probeRole(false);
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
	return *_entry->session;
}


namespace {

[[noreturn]] void rethrowNamingServer(const BlueTuskException& exc, const BlueTuskHostEndpoint& endpoint, const ConnectionSettings* settings)
	/// A query-path error names the server it came from (doc/reliability.md) and passes the settings'
	/// redactor like every other message.
{
	std::unique_ptr<Poco::Exception> copy(exc.clone());
	if (auto* own = dynamic_cast<BlueTuskException*>(copy.get())) own->addContext("server " + endpoint.toString());
	if (settings) settings->redactor().rethrow(*copy);
	copy->rethrow();
	throw Poco::BugcheckException("Poco::Exception::rethrow() returned"); // not reached
}

void boundOwnRoundTrips(Session& session, const ConnectionSettings* settings)
	/// Before BlueTusk's own statements on a returning lease (the Read Your Writes token, the ROLLBACK of
	/// the wrong-node re-probe): the command timeout becomes the shorter of Timeout and the lease's (0:
	/// none), so a frozen server costs that at most; SessionControl::endLease() puts the connection string's
	/// back when the lease returns (doc/reliability.md, finding 17).
{
	if (!settings || settings->connectTimeout.totalMicroseconds() <= 0) return;
	const Poco::Timespan current = session.commandTimeout();
	if (current.totalMicroseconds() == 0 || settings->connectTimeout < current) session.setCommandTimeout(settings->connectTimeout);
}

} // namespace


std::vector<QueryResult> BlueTuskConnection::executeSimple(const std::string& sql)
{
	Session& target = session();
	try
	{
		return target.executeSimple(sql);
	}
	catch (BlueTuskException& exc)
	{
		rethrowNamingServer(exc, connectedEndpoint(), _settings);
	}
}


QueryResult BlueTuskConnection::execute(const std::string& sql, const std::vector<FieldValue>& parameters)
{
	Session& target = session();
	try
	{
		return target.execute(sql, parameters);
	}
	catch (BlueTuskException& exc)
	{
		rethrowNamingServer(exc, connectedEndpoint(), _settings);
	}
}


QueryResult BlueTuskConnection::query(const std::string& sql, const Parameters& parameters)
{
	return session().query(sql, parameters);
}


PreparedStatement BlueTuskConnection::prepare(const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes)
{
	return session().prepare(sql, parameterTypes);
}


QueryResult BlueTuskConnection::execute(const PreparedStatement& statement, const Parameters& parameters)
{
	return session().execute(statement, parameters);
}


Lsn BlueTuskConnection::walPosition()
{
	// The insert position covers every commit of this session, also asynchronous ones (synchronous_commit
	// off), which the write and flush positions may not yet; its page-header form is corrected
	// (Lsn::recordEnd()), else a quiet standby would not reach it until more WAL came (measured: 20 s).
	const std::vector<QueryResult> results = executeSimple(
		"SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END, "
		"current_setting('wal_block_size'), current_setting('wal_segment_size')");
	Lsn position;
	if (results.size() != 1 || results[0].rows.size() != 1 || results[0].rows[0].size() != 3 || !results[0].rows[0][0] ||
		!Lsn::tryParse(*results[0].rows[0][0], position))
	{
		throw BlueTuskProtocolException("unexpected answer to the WAL position query (server " + connectedEndpoint().toString() + ")");
	}
	Poco::UInt64 blockSize = 0, segmentSize = 0;
	try
	{
		const auto& row = results[0].rows[0];
		if (row[1]) blockSize = parseByteSize(*row[1], "wal_block_size");
		if (row[2]) segmentSize = parseByteSize(*row[2], "wal_segment_size");
	}
	catch (Poco::Exception&)
	{
		// a server that writes them otherwise: no correction
	}
	position = Lsn::recordEnd(position, blockSize, segmentSize);
	if (_freshness) _freshness->noteToken(position);
	return position;
}


void BlueTuskConnection::close()
{
	if (_entry && _freshness && _writeLease)
	{
		// Read Your Writes: a write lease on a read-write primary leaves its token with the data source.
		Session& session = *_entry->session;
		const ServerRole role = session.role() != ServerRole::Unknown ? session.role() : session.control().reportedRole();
		if (!session.isBroken() && role == ServerRole::Primary && session.transactionStatus() == TransactionStatus::Idle)
		{
			try
			{
				boundOwnRoundTrips(session, _settings);
				// An unread fetch's rest is not wanted: end its portal rather than read it all in ahead of
				// the token's query (ensureUsable() would keep it for a next fetch() that never comes).
				if (session.isFetching()) session.endFetch();
				walPosition();
			}
			catch (Poco::Exception& exc)
			{
				Poco::Logger& logger = Poco::Logger::get("BlueTusk.Routing");
				if (logger.debug()) logger.debug("no read-your-writes token from %s: %s", connectedEndpoint().toString(), _settings->redactor().redact(exc.displayText()));
			}
		}
		_writeLease = false;
	}
	if (_entry)
	{
		// Back to the owning pool, which discards a broken session (doc/pooling.md).
		EndpointPool* pool = _entry->pool;
		bool broken = !_entry->session || _entry->session->isBroken();
		if (!broken && _entry->session->control().roleChangeSuspected()) broken = !relearnRole();
		if (pool)
		{
			pool->release(std::move(_entry), broken);
		}
		else
		{
			if (_entry->session) _entry->session->close();
			_entry.reset();
		}
	}
	// An unpooled connection's manager goes now; _owner stays until destruction (settings(), attemptLog()).
	if (_state) _state->manager.reset();
}


bool BlueTuskConnection::relearnRole()
{
	// A wrong-node answer (SQLSTATE 25006 on a session believed primary): ask the server what it is now
	// and make that the endpoint's learned role, so the next write checkout goes elsewhere without trying
	// it (doc/high-availability.md, "Wrong-node answers"). One round trip, only after such an answer.
	Session& session = *_entry->session;
	try
	{
		boundOwnRoundTrips(session, _settings);
		if (session.transactionStatus() != TransactionStatus::Idle) session.executeSimple("ROLLBACK");
		const ServerRole role = session.control().probeRole(true);
		if (_entry->pool) _entry->pool->setLastKnownRole(role);
		if (_hostStates && _entry->pool) _hostStates->setRole(_entry->pool->endpoint(), role);
		return !session.isBroken();
	}
	catch (Poco::Exception&)
	{
		return false;   // the pool discards it
	}
}


const HostAttemptList& BlueTuskConnection::attemptLog() const
{
	static const HostAttemptList empty;
	return _attempts ? *_attempts : empty;
}


const ConnectionSettings& BlueTuskConnection::settings() const
{
	if (!_settings) throw Poco::InvalidAccessException("BlueTuskConnection is not open");
	return *_settings;
}

} // namespace BlueTusk
