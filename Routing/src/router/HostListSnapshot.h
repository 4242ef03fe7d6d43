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
#include "Poco/Timestamp.h"
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
	std::map<BlueTuskHostEndpoint, ServerRole> roleHints; /// the topology source's roles, one per member it
	                                                      /// listed (Unknown: listed but not usable now);
	                                                      /// hints only: the router orders candidates by them,
	                                                      /// the role refresh still confirms every session.
	                                                      /// Empty without a source, or while reads fail
	Poco::Timestamp readAt;                               /// when the hints were read

	bool hint(const BlueTuskHostEndpoint& endpoint, ServerRole& role) const
		/// Whether the source said something of endpoint; role receives its hint (maybe Unknown).
	{
		auto it = roleHints.find(endpoint);
		if (it == roleHints.end()) return false;
		role = it->second;
		return true;
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
