//
// SessionImpl.cpp
//
// Library: BlueTusk/Data
//

#include "SessionImpl.h"
#include "PocoVersionAdapter.h"
#include "BlueTusk/Data/DataException.h"
#include "StatementImpl.h"
#include "BlueTusk/Session.h"
#include "DataSourceRegistry.h"
#include "Poco/Clock.h"
#include "Poco/Data/Session.h"
#include "Poco/Logger.h"
#include "Poco/String.h"
#include <algorithm>
#include <chrono>
#include <thread>

namespace BlueTusk {
namespace Data {

namespace {

std::string redacted(const std::string& connectionString)
	/// What Poco may print: the canonical string with Password=***.
{
	try
	{
		return ConnectionSettings::parse(connectionString).toString();
	}
	catch (...)
	{
		return "(invalid bluetusk connection string)";
	}
}


Poco::Logger& connectorLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Data");
	return instance;
}


const char* isolationSql(Poco::UInt32 ti)
{
	switch (ti)
	{
	case Poco::Data::Session::TRANSACTION_REPEATABLE_READ: return "REPEATABLE READ";
	case Poco::Data::Session::TRANSACTION_SERIALIZABLE: return "SERIALIZABLE";
	default: return "READ COMMITTED";
	}
}


std::string beginSql(Poco::UInt32 ti)
	/// BEGIN with the isolation level in it: it holds behind a transaction pooler too, where a session-level
	/// SET may land on another server session (doc/poolers.md, "Poco::Data behind a transaction pooler").
{
	if (ti == Poco::Data::Session::TRANSACTION_READ_COMMITTED) return "BEGIN";
	return std::string("BEGIN ISOLATION LEVEL ") + isolationSql(ti);
}

} // namespace


SessionImpl::SessionImpl(const std::string& connectionString, std::size_t loginTimeout):
	Poco::Data::AbstractSessionImpl<SessionImpl>(redacted(connectionString), loginTimeout),
	_connectionString(connectionString),
	_isolation(Poco::Data::Session::TRANSACTION_READ_COMMITTED)
{
	addFeature("autoCommit", &SessionImpl::setAutoCommit, &SessionImpl::isAutoCommit);
	addFeature("binaryExtraction", &SessionImpl::setBinaryExtraction, &SessionImpl::isBinaryExtraction);
	addProperty("endpoint", &SessionImpl::setReadOnly, &SessionImpl::getEndpoint);
	addProperty("role", &SessionImpl::setReadOnly, &SessionImpl::getRole);
	addProperty("connection", &SessionImpl::setReadOnly, &SessionImpl::getConnection);
	addProperty("dataSource", &SessionImpl::setReadOnly, &SessionImpl::getDataSource);
	addProperty("sharedDataSource", &SessionImpl::setReadOnly, &SessionImpl::getSharedDataSource);
	addProperty("connectorName", &SessionImpl::setConnectorName, &SessionImpl::getConnectorName);
	setFeature("bulk", true);
	open();
}


SessionImpl::~SessionImpl()
{
	close();
}


Poco::SharedPtr<Poco::Data::StatementImpl> SessionImpl::createStatementImpl()
{
	return new StatementImpl(*this);
}


void SessionImpl::open(const std::string& connectionString)
{
	if (!connectionString.empty() && connectionString != _connectionString && connectionString != this->connectionString())
		throw Poco::InvalidArgumentException("a bluetusk session reopens with its own connection string; create a new Session for another one");
	if (isConnected()) return;
	try
	{
		if (!_dataSource)
		{
			Detail::DataSourceRegistry::Lookup lookup = Detail::DataSourceRegistry::instance().get(_connectionString, getLoginTimeout());
			_dataSource = lookup.dataSource;
			_target = lookup.target;
			_targetPolicy = lookup.targetPolicy;
			// Read Your Writes (doc/poco-data.md): the same split of targets as BlueTuskDataSource's leases.
			const bool readYourWrites = _dataSource->settings().readYourWrites;
			_writeSession = readYourWrites && (_target == TargetSessionAttributes::Primary || _target == TargetSessionAttributes::ReadWrite ||
				_target == TargetSessionAttributes::PreferPrimary || _target == TargetSessionAttributes::Any);
			_readSession = readYourWrites && _target != TargetSessionAttributes::Primary && _target != TargetSessionAttributes::ReadWrite;
		}
		// The session's own target: sessions of one data source may differ in it (DataSourceRegistry).
		const Lsn token = _readSession ? _dataSource->walPosition() : Lsn();
		_connection = _targetPolicy.empty() ? _dataSource->open(_target) : _dataSource->open(_targetPolicy);
		_seen = token;   // the checkout took a standby only once it had replayed this token
	}
	catch (Poco::Exception& exc)
	{
		throw ConnectionException("bluetusk: " + exc.message(), exc);
	}
	if (_commandTimeout > 0)
	{
		_connection.session().setCommandTimeout(Poco::Timespan(static_cast<long>(_commandTimeout), 0));
	}
	setProperty("handle", &_connection);
	_autoCommit = true;
	_beginOwed = false;
	if (_isolation != Poco::Data::Session::TRANSACTION_READ_COMMITTED)
	{
		const Poco::UInt32 wanted = _isolation;
		_isolation = Poco::Data::Session::TRANSACTION_READ_COMMITTED;
		setTransactionIsolation(wanted);
	}
}


void SessionImpl::close()
{
	if (_connection.isOpen()) _connection.close();   // the pool rolls back and resets
	_beginOwed = false;
}


bool SessionImpl::isConnected() const
{
	return _connection.isOpen();
}


bool SessionImpl::isGood() const
{
	return _connection.isOpen() && !const_cast<BlueTuskConnection&>(_connection).session().isBroken();
}


void SessionImpl::setConnectionTimeout(std::size_t timeout)
{
	_commandTimeout = timeout;
	if (!isConnected()) return;
	_connection.session().setCommandTimeout(Poco::Timespan(static_cast<long>(timeout), 0));
}


std::size_t SessionImpl::getConnectionTimeout() const
{
	return _commandTimeout;
}


void SessionImpl::reset()
{
	if (!isConnected()) return;
	try
	{
		Session& session = _connection.session();
		session.control().reset(true);
		_autoCommit = true;
		_beginOwed = false;
		_isolation = Poco::Data::Session::TRANSACTION_READ_COMMITTED;   // RESET ALL restored the server's default
	}
	catch (Poco::Exception& exc)
	{
		connectorLogger().warning("bluetusk: resetting the session to %s failed (%s); it is closed", _connection.connectedEndpoint().toString(), exc.displayText());
		close();
	}
	catch (...)
	{
		close();
	}
}


void SessionImpl::run(const std::string& sql)
{
	try
	{
		connection().executeSimple(sql);
	}
	catch (Poco::Exception& exc)
	{
		fail(exc, sql);
	}
}


void SessionImpl::begin()
{
	if (isTransaction()) throw Poco::InvalidAccessException("bluetusk: already in a transaction");
	catchUp();
	_beginOwed = false;
	run(beginSql(_isolation));
}


void SessionImpl::commit()
{
	run("COMMIT");
	_beginOwed = !_autoCommit;
	leaveToken();
}


void SessionImpl::rollback()
{
	run("ROLLBACK");
	_beginOwed = !_autoCommit;
}


bool SessionImpl::canTransact() const
{
	return true;
}


bool SessionImpl::isTransaction() const
{
	return _connection.isOpen() && const_cast<BlueTuskConnection&>(_connection).session().transactionStatus() != TransactionStatus::Idle;
}


void SessionImpl::setTransactionIsolation(Poco::UInt32 ti)
{
	if (!hasTransactionIsolation(ti))
		throw Poco::InvalidArgumentException("bluetusk: transaction isolation " + std::to_string(ti) +
			" is not supported; use read committed, repeatable read or serializable (PostgreSQL runs read uncommitted as read committed)");
	if (ti == _isolation) return;
	// Behind a transaction pooler a session-level SET is refused (doc/poolers.md): every BEGIN carries the
	// level instead (beginSql()), and a statement in autoCommit runs at the server's default level.
	const std::string sql = std::string("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL ") + isolationSql(ti);
	if (connection().settings().serverPooling != ServerPooling::Transaction)
	{
		try
		{
			connection().executeSimple(sql);
		}
		catch (BlueTuskUsageException&)
		{
			// Server Pooling=auto found a transaction pooler: nothing was sent, the BEGINs carry the level
		}
		catch (Poco::Exception& exc)
		{
			fail(exc, sql);
		}
	}
	_isolation = ti;
}


Poco::UInt32 SessionImpl::getTransactionIsolation() const
{
	return _isolation;
}


bool SessionImpl::hasTransactionIsolation(Poco::UInt32 ti) const
{
	return ti == Poco::Data::Session::TRANSACTION_READ_COMMITTED || ti == Poco::Data::Session::TRANSACTION_REPEATABLE_READ ||
		ti == Poco::Data::Session::TRANSACTION_SERIALIZABLE;
}


bool SessionImpl::isTransactionIsolation(Poco::UInt32 ti) const
{
	return ti == _isolation;
}


const std::string& SessionImpl::connectorName() const
{
	return _connectorName;
}


void SessionImpl::setAutoCommit(const std::string&, bool value)
{
	if (value == _autoCommit) return;
	if (value)
	{
#if BLUETUSK_POCO_BEGIN_TURNS_AUTOCOMMIT_OFF
		// Poco 1.13's rule (its own connectors and Poco's Data test suite): autoCommit does not change
		// while a transaction is open; commit() or rollback() first.
		if (isTransaction())
			throw Poco::InvalidAccessException("bluetusk: autoCommit cannot be turned on inside a transaction; commit or roll back first");
#endif
		if (isTransaction())
		{
			run("COMMIT");
			leaveToken();
		}
		_beginOwed = false;
	}
	else if (!isTransaction())
	{
#if BLUETUSK_POCO_BEGIN_TURNS_AUTOCOMMIT_OFF
		// Poco::Data::Session::begin() turns autoCommit off right before it calls begin(): owe the BEGIN
		// (the next statement or begin() sends it), as Poco's own connector does since Poco 1.13.
		_beginOwed = true;
#else
		catchUp();
		run(beginSql(_isolation));
#endif
	}
	_autoCommit = value;
}


void SessionImpl::setBinaryExtraction(const std::string&, bool value)
{
	_binaryExtraction = value;
}


bool SessionImpl::isBinaryExtraction(const std::string&) const
{
	return _binaryExtraction;
}


bool SessionImpl::isAutoCommit(const std::string&) const
{
	return _autoCommit;
}


BlueTuskConnection& SessionImpl::connection()
{
	if (!_connection.isOpen()) throw Poco::Data::NotConnectedException(connectionString());
	return _connection;
}


void SessionImpl::beforeStatement()
{
	catchUp();
	if (!_beginOwed) return;
	_beginOwed = false;
	if (!isTransaction()) run(beginSql(_isolation));
}


void SessionImpl::afterStatement()
{
	leaveToken();
}


void SessionImpl::leaveToken()
{
	if (!_writeSession || !_connection.isOpen()) return;
	Session& session = _connection.session();
	if (session.isBroken() || session.transactionStatus() != TransactionStatus::Idle) return;
	if (_connection.role() != ServerRole::Primary) return;
	try
	{
		_connection.walPosition();   // notes the token with the data source (Read Your Writes)
	}
	catch (Poco::Exception& exc)
	{
		// The statement committed; only the token is missing: a reader may then not see it.
		connectorLogger().warning("bluetusk: no read-your-writes token from %s: %s", _connection.connectedEndpoint().toString(), exc.displayText());
	}
}


void SessionImpl::catchUp()
{
	// a reader session keeps its lease (on a standby) for its whole life, so the wait of a
	// data source's checkout happens here, before each statement outside a transaction.
	if (!_readSession || !_connection.isOpen() || isTransaction()) return;
	const Lsn token = _dataSource->walPosition();
	if (token <= _seen) return;
	if (_connection.role() != ServerRole::Standby)
	{
		_seen = token;   // a primary has every commit
		return;
	}
	Session& session = _connection.session();
	const Poco::Timespan::TimeDiff timeout = _dataSource->settings().readYourWritesTimeout.totalMicroseconds();
	Poco::Clock start;
	std::chrono::microseconds pause(200);   // as the data source's wait: 0.2 ms for 20 ms, then doubling to 10 ms
	Lsn replayed, received;
	for (;;)
	{
		ServerRole role = ServerRole::Unknown;
		try
		{
			role = session.control().probeRoleAndWal(replayed, received);
		}
		catch (Poco::Exception& exc)
		{
			fail(exc, "(the read-your-writes wait for " + token.toString() + ")");
		}
		if (role != ServerRole::Standby || replayed >= token)
		{
			_seen = token;
			return;
		}
		const Poco::Clock::ClockDiff elapsed = start.elapsed();
		if (elapsed >= timeout) break;
		std::this_thread::sleep_for(std::min(pause, std::chrono::microseconds(timeout - elapsed)));
		if (start.elapsed() > 20000) pause = std::min(pause * 2, std::chrono::microseconds(10000));
	}
	// Not replayed within Read Your Writes Timeout: move as reconnect() does; the checkout routes with the
	// token (prefer-standby: a standby that has it, else the primary; standby: ConnectionException).
	connectorLogger().information("bluetusk: %s has replayed up to %s, not the token %s, after Read Your Writes Timeout; the session moves",
		_connection.connectedEndpoint().toString(), replayed.toString(), token.toString());
	const bool autoCommit = _autoCommit;
	const bool beginOwed = _beginOwed;
	close();
	open();
	_autoCommit = autoCommit;
	_beginOwed = beginOwed;
}


void SessionImpl::fail(const Poco::Exception& error, const std::string& sql)
{
	if (const auto* server = dynamic_cast<const BlueTuskServerException*>(&error))
	{
		if (!server->sessionUsable()) close();
		throw StatementException(server->message() + " [" + sql + "]", *server);
	}
	if (dynamic_cast<const BlueTuskSessionBrokenException*>(&error))
	{
		close();
		throw ConnectionException("bluetusk: " + error.message(), error);
	}
	if (dynamic_cast<const BlueTuskTypeException*>(&error)) throw Poco::Data::BindingException(error.message(), error);
	if (dynamic_cast<const BlueTuskUsageException*>(&error)) throw Poco::Data::ExecutionException(error.message(), error);
	error.rethrow();
	throw Poco::BugcheckException("unreachable");
}


void SessionImpl::setConnectorName(const std::string&, const Poco::Any& value)
{
	const std::string name = Poco::AnyCast<std::string>(value);
	if (name != "bluetusk" && Poco::icompare(name, std::string("postgresql")) != 0)
		throw Poco::InvalidArgumentException("bluetusk: the property connectorName is \"bluetusk\" or \"postgresql\" (any case), not \"" + name + "\"");
	_connectorName = name;
}


Poco::Any SessionImpl::getConnectorName(const std::string&) const
{
	return _connectorName;
}


void SessionImpl::setReadOnly(const std::string& name, const Poco::Any&)
{
	throw Poco::InvalidAccessException("bluetusk: the property " + name + " is read-only");
}


Poco::Any SessionImpl::getEndpoint(const std::string&) const
{
	if (!_connection.isOpen()) return std::string();
	return _connection.connectedEndpoint().toString();
}


Poco::Any SessionImpl::getRole(const std::string&) const
{
	if (!_connection.isOpen()) return std::string();
	return toString(_connection.role());
}


Poco::Any SessionImpl::getConnection(const std::string&) const
{
	return const_cast<BlueTuskConnection*>(&_connection);
}


Poco::Any SessionImpl::getDataSource(const std::string&) const
{
	return _dataSource.get();
}


Poco::Any SessionImpl::getSharedDataSource(const std::string&) const
{
	return _dataSource;
}

} } // namespace BlueTusk::Data
