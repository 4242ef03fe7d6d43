//
// FakeSession.cpp
//

#include "FakeSession.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <algorithm>

namespace BlueTusk {
namespace Test {

FakeSession::FakeSession(FakeWorld::Ptr world, const BlueTuskHostEndpoint& endpoint, int id):
	SessionControl(static_cast<Session&>(*this)),
	_world(std::move(world)),
	_endpoint(endpoint),
	_key(endpoint.toString()),
	_id(id)
{
	++_world->alive;
}


FakeSession::~FakeSession()
{
	if (!_closed)
	{
		++_world->destroyedUnclosed;
		_world->disconnect(_key);
	}
	--_world->alive;
}


bool FakeSession::beginUse()
{
	if (_inUse.exchange(true))
	{
		++_world->doubleUse;
		return false;
	}
	return true;
}


void FakeSession::endUse()
{
	_inUse = false;
}


const BlueTuskHostEndpoint& FakeSession::endpoint() const
{
	return _endpoint;
}


std::string FakeSession::connectedAddress() const
{
	return _key;
}


ServerRole FakeSession::role() const
{
	return _world->roleFollowsServer ? _world->roleOf(_key) : _role.load();
}


ServerRole FakeSession::probeRole(bool force)
{
	if (_closed) throw BlueTuskSessionBrokenException("session closed");
	if (force || _world->roleFollowsServer || _role == ServerRole::Unknown)
	{
		const FakeHost host = _world->probe(_key);
		if (host.failure != FakeHost::NONE)
		{
			// The server went away while the session sat idle.
			_broken = true;
			throw BlueTuskSessionBrokenException("server closed the connection unexpectedly");
		}
		_role = host.role;
	}
	return _role;
}


bool FakeSession::isBroken() const
{
	return _broken || _closed;
}


TransactionStatus FakeSession::transactionStatus() const
{
	return _transaction;
}


void FakeSession::reset(bool discardAll)
{
	if (_failReset.exchange(false))
	{
		_broken = true;
		throw BlueTuskSessionBrokenException("fake session " + std::to_string(_id) + ": connection lost during reset");
	}
	if (isBroken()) throw BlueTuskSessionBrokenException("session broken");
	if (_transaction != TransactionStatus::Idle)
	{
		_world->record(_id, "ROLLBACK");
		_transaction = TransactionStatus::Idle;
	}
	if (discardAll)
	{
		_resetPending = false;
		_world->record(_id, "DISCARD ALL");
	}
}


bool FakeSession::deferReset()
{
	if (!_world->deferResets || _broken || _transaction != TransactionStatus::Idle) return false;
	_resetPending = true;
	return true;
}


bool FakeSession::isResetPending() const
{
	return _resetPending;
}


void FakeSession::close()
{
	if (_closed.exchange(true)) return;
	++_world->closed;
	_world->disconnect(_key);
}


QueryResult FakeSession::answer(const std::string& sql)
{
	if (_resetPending.exchange(false)) _world->record(_id, "DISCARD ALL");
	_world->record(_id, sql);
	QueryResult result;
	result.commandTag = "SELECT 1";
	ColumnDescription column;
	column.name = "endpoint";
	result.columns.push_back(column);
	result.rows.append(Row{FieldValue(_key)});
	return result;
}


std::vector<QueryResult> FakeSession::executeSimple(const std::string& sql)
{
	QueryResult result = answer(sql);
	if (sql == "BEGIN") _transaction = TransactionStatus::InTransaction;
	return {result};
}


QueryResult FakeSession::execute(const std::string& sql, const std::vector<FieldValue>&)
{
	return answer(sql);
}


void FakeSession::cancel()
{
}


std::string FakeSession::parameterStatus(const std::string&) const
{
	return std::string();
}


Poco::Timestamp FakeSession::createdAt() const
{
	return _createdAt;
}


namespace {

bool waitOrCancel(int ms, const OpenCancellation* cancellation)
	/// Sleeps ms in slices of 5 ms (at most); false when cancelled first.
{
	Poco::Clock start;
	const Poco::Clock::ClockDiff total = static_cast<Poco::Clock::ClockDiff>(ms) * 1000;
	while (start.elapsed() < total)
	{
		if (cancellation && cancellation->isCancelled()) return false;
		const long left = static_cast<long>((total - start.elapsed()) / 1000);
		Poco::Thread::sleep(std::max(1L, std::min(5L, left)));
	}
	return !(cancellation && cancellation->isCancelled());
}


class Opening
	/// Counts an open in the factory (FakeWorld::opening, peakOpening) for its lifetime.
{
public:
	explicit Opening(FakeWorld& world): _world(world)
	{
		const int now = ++_world.opening;
		int peak = _world.peakOpening.load();
		while (now > peak && !_world.peakOpening.compare_exchange_weak(peak, now)) {}
	}

	~Opening()
	{
		--_world.opening;
	}

private:
	FakeWorld& _world;
};


[[noreturn]] void throwServerError(const std::string& sqlState, const std::string& message)
{
	BlueTuskServerException::Fields fields;
	fields.severity = "FATAL";
	fields.sqlState = sqlState;
	fields.message = message;
	throw BlueTuskServerException(fields, false);
}

} // namespace


FakeSessionFactory::FakeSessionFactory(FakeWorld::Ptr world):
	_world(std::move(world))
{
}


Session::Ptr FakeSessionFactory::open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings)
{
	return openFake(endpoint, settings, nullptr);
}


Session::Ptr FakeSessionFactory::openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
	const OpenCancellation& cancellation)
{
	return openFake(endpoint, settings, &cancellation);
}


Session::Ptr FakeSessionFactory::openFake(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
	const OpenCancellation* cancellation)
{
	const std::string key = endpoint.toString();
	Opening opening(*_world);
	const FakeHost script = _world->attempt(key);
	AddressAttempt attempt;
	attempt.address = key;
	int delay = script.delayMs;
	if (script.failure == FakeHost::BLACK_HOLE) delay = static_cast<int>(settings.connectTimeout.totalMilliseconds());
	if (const int extra = _world->openDelayMicroseconds.load()) delay += std::max(1, extra / 1000);
	Poco::Clock start;
	if (!waitOrCancel(delay, cancellation))
	{
		++_world->cancelled;
		throw BlueTuskTransportException("connection attempt to " + key + " cancelled");
	}
	attempt.elapsedMs = static_cast<double>(start.elapsed()) / 1000.0;
	if (_world->refuseOpens)
	{
		++_world->refusals;
		throwServerError("53300", "too many connections for role \"app\"");
	}
	if (_world->takeInjectedFailure())
	{
		++_world->openFailures;
		throw BlueTuskTransportException("could not connect to " + key + ": connection refused (injected)");
	}
	switch (script.failure)
	{
	case FakeHost::NONE:
		break;
	case FakeHost::REFUSED:
		attempt.outcome = AddressAttempt::REFUSED;
		attempt.errorText = "Connection refused";
		throw BlueTuskTransportException(key, AddressAttemptList{attempt});
	case FakeHost::BLACK_HOLE:
		attempt.outcome = AddressAttempt::TIMED_OUT;
		attempt.errorText = "no answer within " + std::to_string(delay) + " ms";
		throw BlueTuskTransportException(key, AddressAttemptList{attempt});
	case FakeHost::EARLY_CLOSE:
		attempt.outcome = AddressAttempt::CLOSED;
		attempt.errorText = "server closed the connection unexpectedly";
		throw BlueTuskTransportException(key, AddressAttemptList{attempt});
	case FakeHost::SQLSTATE:
		throwServerError(script.sqlState, script.message);
	case FakeHost::AUTH_SIGNATURE:
		throw BlueTuskAuthenticationException("the SCRAM server signature from " + key + " did not verify");
	}
	auto session = std::make_unique<FakeSession>(_world, endpoint, _world->nextSessionId());
	const ServerRole role = _world->connect(key);
	// Like ProtocolSessionFactory with a target: PostgreSQL 14+ reports the role at startup.
	if (settings.targetSessionAttributes != TargetSessionAttributes::Any) session->learnRole(role);
	return session;
}

} } // namespace BlueTusk::Test
