//
// PreferredHostsPolicy.cpp
//
// Sample plugin: BlueTuskPreferredHostsPlugin
//

#include "PreferredHostsPolicy.h"
#include "Poco/StringTokenizer.h"

namespace BlueTusk {
namespace Samples {

PreferredHostsPolicy::PreferredHostsPolicy()
{
}


PreferredHostsPolicy::~PreferredHostsPolicy()
{
}


std::string PreferredHostsPolicy::name() const
{
	return "preferred-hosts";
}


bool PreferredHostsPolicy::matches(const std::string& entry, const BlueTuskHostEndpoint& endpoint)
{
	return entry == endpoint.host() || entry == endpoint.toString();
}


HostOrderPlan PreferredHostsPolicy::plan(const std::vector<HostCandidate>& candidates) const
{
	const std::vector<std::string> preferred = preferredHosts();
	std::vector<bool> taken(candidates.size(), false);
	HostOrderPlan plan;
	for (const auto& entry: preferred)
	{
		for (std::size_t i = 0; i < candidates.size(); ++i)
		{
			if (!taken[i] && matches(entry, candidates[i].endpoint))
			{
				taken[i] = true;
				plan.order.push_back(i);
			}
		}
	}
	for (std::size_t i = 0; i < candidates.size(); ++i)
	{
		if (!taken[i]) plan.order.push_back(i);
	}
	plan.concurrency = 1;
	return plan;
}


void PreferredHostsPolicy::configure(const Poco::Util::AbstractConfiguration& config)
{
	Poco::StringTokenizer tokens(config.getString("preferredHosts", ""), ",",
		Poco::StringTokenizer::TOK_TRIM | Poco::StringTokenizer::TOK_IGNORE_EMPTY);
	std::lock_guard<std::mutex> lock(_mutex);
	_preferred.assign(tokens.begin(), tokens.end());
}


std::vector<std::string> PreferredHostsPolicy::preferredHosts() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _preferred;
}

} } // namespace BlueTusk::Samples
