//
// ZoneStandby.cpp
//
// Sample plugin: BlueTuskZoneStandbyPlugin (doc/site-plugins.md, "zone-standby (target session)")
//
// The target-session policy "zone-standby": a standby in the application's own zone. The router gives
// classify() the endpoint with the role, so the policy can tell standbys apart:
//   a standby in my zone               Accept
//   a standby in another zone          Fallback (used when no standby of my zone answers)
//   a primary (read-write or not)      Fallback, or Reject with primaryFallback = false
// Without a zone map every standby is in my zone: the policy is then prefer-standby.
//
// Configuration (bluetusk.dataSources.<name>.policy.*):
//   zone = eu-west-1a                                   this application's zone
//   zones = db-a=eu-west-1a, db-b=eu-west-1b, db-c:6432=eu-west-1a
//                                                       each server's zone, by host or host:port as written
//   primaryFallback = false                             never a primary (default true)
//
// Selected with Target Session Attributes=zone-standby (or target_session_attrs, or
// BlueTuskDataSource::open("zone-standby")) once the library is loaded (Plugin Path, bluetusk.plugins).
//

#include "BlueTusk/TargetSessionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include "Poco/Exception.h"
#include "Poco/String.h"
#include "Poco/StringTokenizer.h"
#include <map>

namespace {

class ZoneStandby: public BlueTusk::TargetSessionPolicy
{
public:
	std::string name() const override
	{
		return "zone-standby";
	}

	bool needsRole() const override
	{
		return true;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole role) const override
	{
		// No particular server: the answer for the best one (the pools keep every role not rejected here).
		if (role == BlueTusk::ServerRole::Standby) return BlueTusk::RoleVerdict::Accept;
		return _primaryFallback ? BlueTusk::RoleVerdict::Fallback : BlueTusk::RoleVerdict::Reject;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole role, const BlueTusk::BlueTuskHostEndpoint& endpoint) const override
	{
		if (role != BlueTusk::ServerRole::Standby) return classify(role);
		return inMyZone(endpoint) ? BlueTusk::RoleVerdict::Accept : BlueTusk::RoleVerdict::Fallback;
	}

	void configure(const Poco::Util::AbstractConfiguration& config) override
	{
		// Called once, before any classify(): the members are read-only afterwards, so the concurrent
		// classify() calls need no lock.
		_zone = Poco::trim(config.getString("zone", ""));
		_primaryFallback = config.getBool("primaryFallback", true);
		Poco::StringTokenizer entries(config.getString("zones", ""), ",", Poco::StringTokenizer::TOK_TRIM | Poco::StringTokenizer::TOK_IGNORE_EMPTY);
		for (const auto& entry: entries)
		{
			const std::string::size_type equals = entry.find('=');
			if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size())
				throw Poco::InvalidArgumentException("zones: \"" + entry + "\" is not host=zone");
			_zones[Poco::trim(entry.substr(0, equals))] = Poco::trim(entry.substr(equals + 1));
		}
		if (!_zones.empty() && _zone.empty()) throw Poco::InvalidArgumentException("zones is set but zone (this application's) is not");
	}

private:
	bool inMyZone(const BlueTusk::BlueTuskHostEndpoint& endpoint) const
	{
		if (_zone.empty()) return true;
		auto it = _zones.find(endpoint.toString());   // "db-c:6432" first, then "db-c"
		if (it == _zones.end()) it = _zones.find(endpoint.host());
		return it != _zones.end() && it->second == _zone;
	}

	std::string _zone;
	std::map<std::string, std::string> _zones;
	bool _primaryFallback = true;
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::TargetSessionPolicy)
	POCO_EXPORT_INTERFACE(ZoneStandby, "zone-standby")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
