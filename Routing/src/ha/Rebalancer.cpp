//
// Rebalancer.cpp
//
// Library: BlueTusk/Routing
//

#include "Rebalancer.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <limits>
#include <map>
#include <vector>

namespace BlueTusk {
namespace Detail {

namespace {

struct Member
	/// One pool of a role group as the pass sees it.
{
	EndpointPool* pool = nullptr;
	ServerRole role = ServerRole::Unknown;
	int total = 0;
	int idle = 0;
	bool down = false;
};

} // namespace


Rebalancer::Rebalancer(std::shared_ptr<const ConnectionSettings> settings, HostStateRegistry& hostStates):
	_settings(std::move(settings)),
	_hostStates(hostStates)
{
}


bool Rebalancer::appliesTo(const std::string& hostOrder)
{
	return hostOrder == "random";
}


void Rebalancer::operator () (PoolManager& manager) const
{
	Poco::Logger& logger = Poco::Logger::get("BlueTusk.Pooling");
	try
	{
		std::vector<Member> members;
		for (EndpointPool* pool: manager.pools())
		{
			const PoolStatistics stats = pool->statistics();
			if (stats.draining) continue;
			Member member;
			member.pool = pool;
			member.role = stats.lastKnownRole;
			const HostCandidate candidate = _hostStates.candidate(pool->endpoint(), 0, _settings->hostRecheck);
			if (member.role == ServerRole::Unknown) member.role = candidate.role;
			member.down = candidate.state == HostCandidate::DOWN;
			member.total = stats.total;
			member.idle = stats.idle;
			members.push_back(member);
		}
		const int movesPerRole = _settings->maxConnecting > 0 ? _settings->maxConnecting : std::numeric_limits<int>::max();
		for (ServerRole role: {ServerRole::Standby, ServerRole::PrimaryReadOnly, ServerRole::Primary})
		{
			for (int move = 0; move < movesPerRole; ++move)
			{
				Member* donor = nullptr;
				Member* receiver = nullptr;
				for (Member& member: members)
				{
					if (member.role == role && member.idle > 0 && (!donor || member.total > donor->total)) donor = &member;
				}
				if (!donor) break;
				for (Member& member: members)
				{
					if (member.down || member.pool == donor->pool) continue;
					if (member.role != role && member.role != ServerRole::Unknown) continue;
					if (!receiver || member.total < receiver->total) receiver = &member;
				}
				if (!receiver || donor->total - receiver->total <= 1) break;
				const PoolStatistics before = receiver->pool->statistics();
				if (!receiver->pool->openIdle())
				{
					// No reservation (full, Max Connecting, a 53300 backoff, waiters) or the open failed; only a
					// failure other than 53300 says the host is down.
					const PoolStatistics after = receiver->pool->statistics();
					if (after.connectFailures > before.connectFailures && after.refusals == before.refusals)
						_hostStates.markDown(receiver->pool->endpoint(), "rebalancing could not open a session");
					receiver->down = true;   // not a receiver again in this pass
					continue;
				}
				const ServerRole found = receiver->pool->lastKnownRole();
				++receiver->total;
				_hostStates.markUp(receiver->pool->endpoint(), found);
				if (found != role)
				{
					receiver->role = found;   // another role: it leaves this group, the donor keeps its sessions
					continue;
				}
				receiver->role = role;
				if (donor->pool->closeIdle(1) == 1)
				{
					--donor->total;
					--donor->idle;
				}
				if (logger.debug())
					logger.debug(_settings->redactor().redact("rebalanced one session from " + donor->pool->endpoint().toString() + " to " +
						receiver->pool->endpoint().toString()));
			}
		}
	}
	catch (Poco::Exception& exc)
	{
		logger.error(_settings->redactor().redact("rebalancing failed: " + exc.displayText()));
	}
	catch (std::exception& exc)
	{
		logger.error(_settings->redactor().redact(std::string("rebalancing failed: ") + exc.what()));
	}
}

} } // namespace BlueTusk::Detail
