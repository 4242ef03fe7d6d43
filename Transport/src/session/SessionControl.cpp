//
// SessionControl.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/SessionControl.h"
#include "BlueTusk/Session.h"

namespace BlueTusk {

SessionControl::SessionControl(Session& session):
	_session(session)
{
}


SessionControl::~SessionControl()
{
}


bool SessionControl::roleChangeSuspected() const
{
	return false;
}


ServerRole SessionControl::probeRoleAndWal(Lsn& replayed, Lsn& received)
{
	replayed = Lsn();
	received = Lsn();
	return probeRole(true);
}


ServerRole SessionControl::reportedRole() const
{
	const std::string hotStandby = _session.parameterStatus("in_hot_standby");
	const std::string readOnly = _session.parameterStatus("default_transaction_read_only");
	if (hotStandby.empty() || readOnly.empty()) return ServerRole::Unknown;
	if (hotStandby == "on") return ServerRole::Standby;
	if (readOnly == "on") return ServerRole::PrimaryReadOnly;
	return ServerRole::Primary;
}


ServerRole SessionControl::refreshRole()
{
	return probeRole(true);
}


bool SessionControl::roleConfirmedWithin(const Poco::Timespan&) const
{
	return false;
}


bool SessionControl::ranSinceReset() const
{
	return true;
}


bool SessionControl::deferReset()
{
	return false;
}


bool SessionControl::endLease()
{
	if (_session.isFetching()) _session.endFetch();
	return !_session.isBroken();
}


bool SessionControl::isResetPending() const
{
	return false;
}


StatementStatistics StatementCounters::snapshot() const
{
	StatementStatistics s;
	s.prepared = prepared.load(std::memory_order_relaxed);
	s.cacheHits = cacheHits.load(std::memory_order_relaxed);
	s.evictions = evictions.load(std::memory_order_relaxed);
	s.reprepared = reprepared.load(std::memory_order_relaxed);
	return s;
}


void SessionControl::setStatementCounters(std::shared_ptr<StatementCounters>)
{
}

} // namespace BlueTusk
