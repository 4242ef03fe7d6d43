//
// HostListSnapshot.h
//
// Library: BlueTusk/Routing
//
// The host list a checkout routes over: the written endpoints, or a data source's topology members with
// their role hints (doc/high-availability.md, "Topology sources"). Immutable once published.
//

#ifndef BlueTusk_Detail_HostListSnapshot_INCLUDED
#define BlueTusk_Detail_HostListSnapshot_INCLUDED

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include <map>
#include <memory>
#include <vector>

namespace BlueTusk {
namespace Detail {

struct HostListSnapshot
	/// One version of a data source's host list. Shared read-only by every checkout that took it; a
	/// topology change publishes a new one (never modifies this one), so a route holds a consistent list.
{
	std::vector<BlueTuskHostEndpoint> endpoints;          /// in order, without duplicates of a member
	std::map<BlueTuskHostEndpoint, ServerRole> roleHints; /// the topology source's roles (hints only: the
	                                                      /// router orders candidates by them, the role
	                                                      /// refresh still confirms every session); empty
	                                                      /// without a source or when it knew none

	ServerRole hint(const BlueTuskHostEndpoint& endpoint) const
		/// The hinted role of endpoint, ServerRole::Unknown when none.
	{
		auto it = roleHints.find(endpoint);
		return it == roleHints.end() ? ServerRole::Unknown : it->second;
	}

	bool contains(const BlueTuskHostEndpoint& endpoint) const
	{
		for (const BlueTuskHostEndpoint& e: endpoints)
		{
			if (e == endpoint) return true;
		}
		return false;
	}
};

using HostListPtr = std::shared_ptr<const HostListSnapshot>;

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_HostListSnapshot_INCLUDED
