//
// MonitorPage.cpp
//
// bluetusk-pool-monitor.
//

#include "MonitorPage.h"
#include "Poco/JSON/Object.h"
#include <sstream>

namespace BlueTusk {
namespace Samples {

namespace {

const char* const COUNTERS[] = {"total", "idle", "busy", "pending", "max", "created", "closed", "connect_failures"};


void counterCells(std::ostream& out, const Poco::JSON::Object::Ptr& stats)
{
	for (const char* counter: COUNTERS) out << "<td class=n>" << htmlEscape(stats->get(counter).toString()) << "</td>";
}

} // namespace


std::string htmlEscape(const std::string& text)
{
	std::string escaped;
	for (char c: text)
	{
		switch (c)
		{
		case '&':  escaped += "&amp;"; break;
		case '<':  escaped += "&lt;"; break;
		case '>':  escaped += "&gt;"; break;
		case '"':  escaped += "&quot;"; break;
		case '\'': escaped += "&#39;"; break;
		default:   escaped += c;
		}
	}
	return escaped;
}


std::string renderMonitorPage(const MonitorContext& context)
{
	std::ostringstream out;
	out << "<!DOCTYPE html>\n<html><head><meta charset=utf-8><meta http-equiv=refresh content=5>"
		"<title>BlueTusk pool monitor</title><style>"
		"body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1em}"
		"td,th{border:1px solid #aaa;padding:3px 8px}td.n{text-align:right}th{background:#eee}"
		".primary{color:#060}.standby{color:#036}.down{color:#a00}</style></head><body>\n"
		"<h1>BlueTusk pool monitor</h1>\n"
		"<p>Every data source of the configuration (bluetusk.dataSources.*), one pool per endpoint. "
		"JSON: <a href=\"/stats\">/stats</a>. This page refreshes every 5 seconds.</p>\n";
	for (const auto& name: context.subsystem.names())
	{
		Poco::JSON::Object::Ptr stats = monitorStats(context, name);
		Poco::JSON::Object::Ptr hosts = stats->getObject("hosts");
		Poco::JSON::Object::Ptr learned = stats->getObject("learned");
		out << "<h2>Data source &quot;" << htmlEscape(name) << "&quot;</h2>\n<p><code>"
			<< htmlEscape(stats->getValue<std::string>("connectionString")) << "</code></p>\n"
			<< "<table><tr><th>endpoint</th><th>learned state</th><th>learned role</th>";
		for (const char* counter: COUNTERS) out << "<th>" << counter << "</th>";
		out << "</tr>\n";
		for (const auto& key: hosts->getNames())
		{
			Poco::JSON::Object::Ptr host = hosts->getObject(key);
			Poco::JSON::Object::Ptr state = learned->has(key) ? learned->getObject(key) : Poco::JSON::Object::Ptr(new Poco::JSON::Object);
			const std::string stateText = state->optValue<std::string>("state", "unknown");
			const std::string roleText = state->optValue<std::string>("role", "unknown");
			out << "<tr><td>" << htmlEscape(key) << "</td><td class=" << htmlEscape(stateText) << ">" << htmlEscape(stateText)
				<< (state->has("reason") ? " (" + htmlEscape(state->getValue<std::string>("reason")) + ")" : std::string())
				<< "</td><td class=" << htmlEscape(roleText) << ">" << htmlEscape(roleText) << "</td>";
			counterCells(out, host);
			out << "</tr>\n";
		}
		out << "<tr><th>all endpoints</th><td></td><td></td>";
		counterCells(out, stats->getObject("aggregate"));
		out << "</tr></table>\n";
	}
	out << "<h2>Run a query</h2>\n<form action=\"/query\" method=get>"
		"<input name=sql size=60 value=\"SELECT inet_server_addr(), pg_is_in_recovery()\"> target "
		"<select name=target>";
	for (const auto& target: targetSessionAttributesNames()) out << "<option>" << htmlEscape(target) << "</option>";
	out << "</select> data source <select name=dataSource>";
	for (const auto& name: context.subsystem.names())
	{
		out << "<option" << (name == context.defaultDataSource ? " selected" : "") << ">" << htmlEscape(name) << "</option>";
	}
	out << "</select> <button>run</button></form>\n</body></html>\n";
	return out.str();
}

} } // namespace BlueTusk::Samples
