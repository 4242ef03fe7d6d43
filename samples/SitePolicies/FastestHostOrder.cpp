//
// FastestHostOrder.cpp
//
// Sample plugin: BlueTuskFastestHostOrderPlugin (doc/site-plugins.md, "fastest (host order)")
//
// The host-order policy "fastest": tries the endpoint whose sessions opened fastest first. Each
// HostCandidate carries what the routing context measured of its endpoint (smoothedConnectMs, -1 while
// nothing was measured). Endpoints never measured come first, in written order, so that each gets
// measured once; then the measured ones from fastest to slowest. Endpoints within marginMs of the fastest
// keep their written order, so that two equally near servers do not swap on every measurement.
//
// Configuration (bluetusk.dataSources.<name>.policy.*):
//   fastestMarginMs = 5     milliseconds within which endpoints count as equally fast (default 0)
//

#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include "Poco/Exception.h"
#include <algorithm>
#include <atomic>

namespace {

class FastestHostOrder: public BlueTusk::HostOrderPolicy
{
public:
	std::string name() const override
	{
		return "fastest";
	}

	BlueTusk::HostOrderPlan plan(const std::vector<BlueTusk::HostCandidate>& candidates) const override
	{
		// Runs on every opening thread at once: reads only its arguments and the configured margin.
		const double margin = _marginMs.load(std::memory_order_relaxed);
		double fastest = -1;
		for (const auto& candidate: candidates)
		{
			if (candidate.smoothedConnectMs >= 0 && (fastest < 0 || candidate.smoothedConnectMs < fastest))
				fastest = candidate.smoothedConnectMs;
		}
		auto rank = [&](const BlueTusk::HostCandidate& candidate)
		{
			if (candidate.smoothedConnectMs < 0) return -1.0;                 // never measured: first
			if (candidate.smoothedConnectMs <= fastest + margin) return 0.0;  // as fast as the fastest
			return candidate.smoothedConnectMs;
		};
		BlueTusk::HostOrderPlan plan;
		for (std::size_t i = 0; i < candidates.size(); ++i) plan.order.push_back(i);
		std::stable_sort(plan.order.begin(), plan.order.end(), [&](std::size_t a, std::size_t b)
		{
			return rank(candidates[a]) < rank(candidates[b]);
		});
		plan.concurrency = 1;
		return plan;
	}

	void configure(const Poco::Util::AbstractConfiguration& config) override
	{
		const double margin = config.getDouble("fastestMarginMs", 0);
		if (margin < 0) throw Poco::InvalidArgumentException("fastestMarginMs must be 0 or more, not " + config.getString("fastestMarginMs"));
		_marginMs.store(margin, std::memory_order_relaxed);
	}

private:
	std::atomic<double> _marginMs{0};
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(FastestHostOrder, "fastest")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
