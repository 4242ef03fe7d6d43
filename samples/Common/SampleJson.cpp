//
// SampleJson.cpp
//
// BlueTusk samples.
//

#include "SampleJson.h"
#include "TextSafety.h"
#include "Poco/Dynamic/Var.h"
#include <cmath>
#include <sstream>

namespace BlueTusk {
namespace Samples {

Poco::JSON::Object::Ptr newObject()
{
	return new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER);
}


std::string toLine(const Poco::JSON::Object::Ptr& object)
{
	std::ostringstream out;
	object->stringify(out);
	// Poco escapes control characters but copies invalid UTF-8 bytes: strict JSON readers would fail
	return validUtf8(out.str());
}


double roundedMs(double ms)
{
	return std::round(ms * 10.0) / 10.0;
}


Poco::JSON::Object::Ptr statisticsJson(const PoolStatistics& stats, bool withRole)
{
	Poco::JSON::Object::Ptr object = newObject();
	object->set("total", stats.total);
	object->set("idle", stats.idle);
	object->set("busy", stats.busy);
	object->set("pending", stats.pending);
	object->set("max", stats.maxSize);
	object->set("min", stats.minSize);
	object->set("created", stats.created);
	object->set("closed", stats.closed);
	object->set("evicted", stats.evicted);
	object->set("checkout_timeouts", stats.checkoutTimeouts);
	object->set("connect_failures", stats.connectFailures);
	object->set("draining", stats.draining);
	if (withRole) object->set("role", toString(stats.lastKnownRole));
	return object;
}


Poco::JSON::Object::Ptr statsEvent(const BlueTuskDataSource& dataSource)
{
	Poco::JSON::Object::Ptr object = newObject();
	object->set("event", "stats");
	object->set("aggregate", statisticsJson(dataSource.getPoolStatistics(), false));
	Poco::JSON::Object::Ptr hosts = newObject();
	for (const auto& entry: dataSource.getHostPoolStatistics())
	{
		hosts->set(entry.first.toString(), statisticsJson(entry.second, true));
	}
	object->set("hosts", hosts);
	return object;
}


Poco::JSON::Array::Ptr attemptsJson(const HostAttemptList& attempts)
{
	Poco::JSON::Array::Ptr list = new Poco::JSON::Array;
	for (const auto& attempt: attempts)
	{
		Poco::JSON::Object::Ptr item = newObject();
		item->set("endpoint", attempt.endpoint.toString());
		item->set("outcome", HostAttempt::outcomeName(attempt.outcome));
		item->set("message", attempt.detail);
		item->set("elapsed_ms", roundedMs(attempt.elapsedMs));
		if (attempt.reused) item->set("reused", true);
		list->add(item);
	}
	return list;
}


Poco::JSON::Object::Ptr connectedEvent(const BlueTuskConnection& connection, ServerRole role, double elapsedMs)
{
	const BlueTuskHostEndpoint& endpoint = connection.connectedEndpoint();
	Poco::JSON::Object::Ptr object = newObject();
	object->set("event", "connected");
	object->set("endpoint", endpoint.toString());
	object->set("host", endpoint.host());
	object->set("port", static_cast<int>(endpoint.port()));
	object->set("role", toString(role));
	object->set("elapsed_ms", roundedMs(elapsedMs));
	object->set("pooled", connection.isPooled());
	object->set("attempts", attemptsJson(connection.attemptLog()));
	return object;
}


void addResult(Poco::JSON::Object& object, const QueryResult& result)
{
	Poco::JSON::Array::Ptr columns = new Poco::JSON::Array;
	for (const auto& column: result.columns) columns->add(column.name);
	Poco::JSON::Array::Ptr rows = new Poco::JSON::Array;
	for (const auto& row: result.rows)
	{
		Poco::JSON::Array::Ptr values = new Poco::JSON::Array;
		for (const auto& field: row)
		{
			if (field) values->add(*field);
			else values->add(Poco::Dynamic::Var());
		}
		rows->add(values);
	}
	object.set("columns", columns);
	object.set("rows", rows);
	object.set("command_tag", result.commandTag);
}

} } // namespace BlueTusk::Samples
