//
// PoolTestSupport.cpp
//

#include "PoolTestSupport.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Thread.h"
#include <random>

namespace BlueTusk {
namespace Test {

void FakeWorld::record(int sessionId, const std::string& sql)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_sql[sessionId].push_back(sql);
}


std::vector<std::string> FakeWorld::sqlOf(int sessionId) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _sql.find(sessionId);
	return it == _sql.end() ? std::vector<std::string>() : it->second;
}


FakeSession::FakeSession(std::shared_ptr<FakeWorld> world, const BlueTuskHostEndpoint& endpoint, int id):
	_world(std::move(world)),
	_endpoint(endpoint),
	_id(id)
{
	++_world->live;
}


FakeSession::~FakeSession()
{
	if (!_closed) ++_world->destroyedUnclosed;
	--_world->live;
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
	return _endpoint.toString();
}


ServerRole FakeSession::role() const
{
	return _world->role.load();
}


ServerRole FakeSession::probeRole(bool)
{
	return _world->role.load();
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


void FakeSession::close()
{
	if (!_closed.exchange(true)) ++_world->closed;
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


std::vector<QueryResult> FakeSession::executeSimple(const std::string& sql)
{
	if (_resetPending.exchange(false)) _world->record(_id, "DISCARD ALL");
	_world->record(_id, sql);
	if (sql == "BEGIN") _transaction = TransactionStatus::InTransaction;
	return std::vector<QueryResult>(1);
}


QueryResult FakeSession::execute(const std::string& sql, const std::vector<FieldValue>&)
{
	if (_resetPending.exchange(false)) _world->record(_id, "DISCARD ALL");
	_world->record(_id, sql);
	return QueryResult();
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


FakeSessionFactory::FakeSessionFactory(std::shared_ptr<FakeWorld> world):
	_world(std::move(world))
{
}


Session::Ptr FakeSessionFactory::open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings&)
{
	thread_local std::mt19937 random(std::random_device{}());
	struct InFlight
	{
		FakeWorld& world;
		explicit InFlight(FakeWorld& w): world(w)
		{
			const int now = ++world.opening;
			int peak = world.peakOpening.load();
			while (now > peak && !world.peakOpening.compare_exchange_weak(peak, now)) {}
		}
		~InFlight() { --world.opening; }
	} inFlight(*_world);
	if (int delay = _world->openDelayMicroseconds.load()) Poco::Thread::sleep(delay / 1000 > 0 ? delay / 1000 : 1);
	if (_world->refuseOpens)
	{
		++_world->refusals;
		BlueTuskServerException::Fields fields;
		fields.severity = "FATAL";
		fields.sqlState = "53300";
		fields.message = "too many connections for role \"app\"";
		throw BlueTuskServerException(fields, false);
	}
	bool fail = false;
	int pending = _world->failNextOpens.load();
	while (pending > 0 && !fail)
	{
		if (_world->failNextOpens.compare_exchange_weak(pending, pending - 1)) fail = true;
	}
	if (!fail && _world->openFailurePermille > 0)
		fail = static_cast<int>(random() % 1000) < _world->openFailurePermille;
	if (fail)
	{
		++_world->openFailures;
		throw BlueTuskTransportException("could not connect to " + endpoint.toString() + ": connection refused (injected)");
	}
	++_world->opened;
	return Session::Ptr(new FakeSession(_world, endpoint, _nextId++));
}


ManualClock::ManualClock():
	_now(Poco::Timestamp().epochMicroseconds())
{
}


Poco::Timestamp ManualClock::now() const
{
	return Poco::Timestamp(_now.load());
}


void ManualClock::advance(const Poco::Timespan& span)
{
	_now += span.totalMicroseconds();
}


FakeSession& fake(const PoolEntryPtr& entry)
{
	return dynamic_cast<FakeSession&>(*entry->session);
}


ConnectionSettings poolSettings(int minSize, int maxSize)
{
	ConnectionSettings settings;
	settings.endpoints = {endpointNo(1), endpointNo(2), endpointNo(3)};
	settings.username = "tester";
	settings.minPoolSize = minSize;
	settings.maxPoolSize = maxSize;
	settings.checkoutTimeout = Poco::Timespan(5, 0);
	return settings;
}


BlueTuskHostEndpoint endpointNo(int n)
{
	return BlueTuskHostEndpoint("127.0.0." + std::to_string(n), 5432);
}

} } // namespace BlueTusk::Test
