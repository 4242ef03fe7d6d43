//
// PatroniClusterDocument.cpp
//
// Library: BlueTusk/Plugins/Topology
//

#include "PatroniClusterDocument.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Dynamic/Var.h"
#include "Poco/Exception.h"
#include "Poco/JSON/Array.h"
#include "Poco/JSON/Object.h"
#include "Poco/JSON/Parser.h"
#include <limits>

namespace BlueTusk {

namespace {

std::string text(const Poco::JSON::Object& object, const std::string& key)
{
	if (!object.has(key) || object.isNull(key)) return std::string();
	return object.get(key).convert<std::string>();
}


bool integer(const Poco::JSON::Object& object, const std::string& key, Poco::Int64& value)
	/// A number, or a string holding one ("unknown" is not).
{
	if (!object.has(key) || object.isNull(key)) return false;
	const Poco::Dynamic::Var var = object.get(key);
	try
	{
		if (var.isString())
		{
			const std::string s = var.extract<std::string>();
			if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
		}
		value = var.convert<Poco::Int64>();
		return true;
	}
	catch (const Poco::Exception&)
	{
		return false;
	}
}

} // namespace


ServerRole patroniRole(const std::string& role, const std::string& state)
{
	if (state != "running" && state != "streaming") return ServerRole::Unknown;
	if (role == "leader" || role == "master" || role == "primary") return ServerRole::Primary;
	if (role == "replica" || role == "sync_standby" || role == "standby_leader") return ServerRole::Standby;
	return ServerRole::Unknown;
}


TopologySnapshot parsePatroniCluster(const std::string& body, const std::string& url)
{
	Poco::Dynamic::Var document;
	try
	{
		Poco::JSON::Parser parser;
		document = parser.parse(body);
	}
	catch (const Poco::Exception& exc)
	{
		throw BlueTuskException(url + ": the answer is not JSON (" + exc.displayText() + ")");
	}
	Poco::JSON::Object::Ptr root;
	try
	{
		root = document.extract<Poco::JSON::Object::Ptr>();
	}
	catch (const Poco::Exception&)
	{
		throw BlueTuskException(url + ": the answer is not a JSON object with a \"members\" array");
	}
	Poco::JSON::Array::Ptr members = root && root->has("members") ? root->getArray("members") : nullptr;
	if (!members) throw BlueTuskException(url + ": the answer has no \"members\" array (is this a Patroni REST API?)");

	TopologySnapshot snapshot;
	std::size_t skipped = 0;
	for (std::size_t i = 0; i < members->size(); ++i)
	{
		Poco::JSON::Object::Ptr member = members->getObject(static_cast<unsigned>(i));
		if (!member) throw BlueTuskException(url + ": member " + std::to_string(i + 1) + " of \"members\" is not an object");
		const std::string host = text(*member, "host");
		Poco::Int64 port = 0;
		if (host.empty() || !integer(*member, "port", port) || port <= 0 || port > 65535)
		{
			++skipped;   // not registered yet (no connection address): nothing to connect to
			continue;
		}
		TopologyMember entry;
		entry.endpoint = BlueTuskHostEndpoint(host, static_cast<Poco::UInt16>(port));
		entry.name = text(*member, "name");
		entry.state = text(*member, "state");
		entry.role = patroniRole(text(*member, "role"), entry.state);
		Poco::Int64 timeline = 0;
		if (integer(*member, "timeline", timeline) && timeline > 0 && timeline <= std::numeric_limits<Poco::UInt32>::max())
			entry.timeline = static_cast<Poco::UInt32>(timeline);
		Poco::Int64 lag = -1;
		if (integer(*member, "lag", lag) && lag >= 0) entry.lagBytes = lag;
		snapshot.members.push_back(entry);
	}
	if (snapshot.members.empty())
	{
		throw BlueTuskException(url + ": the answer lists no usable member (" + std::to_string(members->size()) + " members, " +
			std::to_string(skipped) + " without host and port)");
	}
	return snapshot;
}

} // namespace BlueTusk
