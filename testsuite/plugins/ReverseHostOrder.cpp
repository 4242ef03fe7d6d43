//
// ReverseHostOrder.cpp
//
// A site host-order plugin built only for the test suite: "reverse" tries the hosts from last to first.
// It uses nothing but the public headers, the way a site would write one (doc/plugins.md).
//

#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

namespace {

class ReverseHostOrder: public BlueTusk::HostOrderPolicy
{
public:
	std::string name() const override
	{
		return "reverse";
	}

	BlueTusk::HostOrderPlan plan(const std::vector<BlueTusk::HostCandidate>& candidates) const override
	{
		BlueTusk::HostOrderPlan plan;
		for (std::size_t i = candidates.size(); i > 0; --i) plan.order.push_back(i - 1);
		plan.concurrency = 1;
		return plan;
	}
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(ReverseHostOrder, "reverse")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
