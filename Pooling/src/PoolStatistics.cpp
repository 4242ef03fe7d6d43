//
// PoolStatistics.cpp
//
// Library: BlueTusk/Pooling
//

#include "BlueTusk/PoolManager.h"

namespace BlueTusk {

PoolStatistics& PoolStatistics::operator += (const PoolStatistics& other)
{
	total += other.total;
	idle += other.idle;
	busy += other.busy;
	connecting += other.connecting;
	pending += other.pending;
	created += other.created;
	closed += other.closed;
	evicted += other.evicted;
	checkoutTimeouts += other.checkoutTimeouts;
	connectFailures += other.connectFailures;
	refusals += other.refusals;
	minSize += other.minSize;
	maxSize += other.maxSize;
	draining = draining || other.draining;
	statements.prepared += other.statements.prepared;
	statements.cacheHits += other.statements.cacheHits;
	statements.evictions += other.statements.evictions;
	statements.reprepared += other.statements.reprepared;
	lastKnownRole = ServerRole::Unknown;
	walPosition = Lsn();
	lagBytes = -1;
	return *this;
}


std::string PoolStatistics::toString() const
{
	return "total=" + std::to_string(total) + " idle=" + std::to_string(idle) + " busy=" + std::to_string(busy) +
		" pending=" + std::to_string(pending) + " created=" + std::to_string(created) +
		" closed=" + std::to_string(closed) + " evicted=" + std::to_string(evicted) +
		" timeouts=" + std::to_string(checkoutTimeouts) + " failures=" + std::to_string(connectFailures) +
		" min=" + std::to_string(minSize) + " max=" + std::to_string(maxSize) +
		(connecting > 0 ? " connecting=" + std::to_string(connecting) : std::string()) +
		(refusals > 0 ? " refused=" + std::to_string(refusals) : std::string()) +
		(statements.prepared + statements.cacheHits > 0 ? " prepared=" + std::to_string(statements.prepared) +
			" cacheHits=" + std::to_string(statements.cacheHits) + " evictions=" + std::to_string(statements.evictions) +
			" reprepared=" + std::to_string(statements.reprepared) : std::string()) +
		(draining ? " draining" : "") +
		(lastKnownRole != ServerRole::Unknown ? " role=" + BlueTusk::toString(lastKnownRole) : std::string()) +
		(walPosition.isValid() ? " wal=" + walPosition.toString() : std::string()) +
		(lagBytes >= 0 ? " lag=" + formatByteSize(static_cast<Poco::UInt64>(lagBytes)) : std::string());
}

} // namespace BlueTusk
