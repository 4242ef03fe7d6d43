//
// MonitorPage.cpp
//
// bluetusk-pool-monitor.
//

#include "MonitorPage.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/JSON/Object.h"
#include <algorithm>
#include <sstream>

namespace BlueTusk {
namespace Samples {

namespace {

const char* const COUNTERS[] = {"total", "idle", "busy", "pending", "max", "created", "closed", "connect_failures"};


void counterCells(std::ostream& out, const Poco::JSON::Object::Ptr& stats)
{
	for (const char* counter: COUNTERS)
		out << "<td class=n data-field=" << counter << ">" << htmlEscape(stats->get(counter).toString()) << "</td>";
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


namespace {

std::string roleOf(const Poco::JSON::Object::Ptr& learned, const Poco::JSON::Object::Ptr& host)
	/// The learned role (host states), else the pool's last known role, else "unknown".
{
	std::string role = learned->optValue<std::string>("role", "unknown");
	if (role == "unknown") role = host->optValue<std::string>("role", "unknown");
	return role;
}


// The page's script: /stats every second into the tables (no reload), and the query form through /query
// (fetch) into #result. A page opened with ?sql=...&target=...&dataSource=... fills the form and runs it.
const char* const SCRIPT = R"JS(
const counters = )JS";

const char* const SCRIPT_REST = R"JS(;
function roleOf(learned, host) {
  let role = (learned && learned.role) || 'unknown';
  if (role === 'unknown' && host && host.role) role = host.role;
  return role;
}
function setCell(cell, text, cls) {
  if (!cell) return;
  cell.textContent = text;
  if (cls !== undefined) cell.className = cls;
}
async function refresh() {
  for (const section of document.querySelectorAll('section[data-source]')) {
    const name = section.dataset.source;
    const answer = await fetch('/stats?dataSource=' + encodeURIComponent(name), {cache: 'no-store'});
    if (!answer.ok) continue;
    const stats = await answer.json();
    for (const row of section.querySelectorAll('tr[data-endpoint]')) {
      const key = row.dataset.endpoint;
      const host = key === '*' ? stats.aggregate : stats.hosts[key];
      if (!host) continue;
      if (key !== '*') {
        const learned = stats.learned[key] || {};
        const state = learned.state || 'unknown';
        setCell(row.querySelector('[data-field=state]'), state + (learned.reason ? ' (' + learned.reason + ')' : ''), state);
        const role = roleOf(learned, host);
        setCell(row.querySelector('[data-field=role]'), role, role.split(' ')[0]);
      }
      for (const counter of counters) setCell(row.querySelector('[data-field=' + counter + ']'), String(host[counter]));
    }
  }
  const updated = document.getElementById('updated');
  updated.dataset.count = String(Number(updated.dataset.count) + 1);
  updated.textContent = 'updated ' + new Date().toLocaleTimeString() + ' (' + updated.dataset.count + ' times)';
}
function showResult(body, status) {
  const result = document.getElementById('result');
  result.replaceChildren();
  result.dataset.status = String(status);
  const line = document.createElement('p');
  if (status !== 200) {
    line.className = 'error';
    line.textContent = 'HTTP ' + status + ': ' + (body.type || '') + ' ' + (body.message || JSON.stringify(body));
    result.append(line);
    return;
  }
  line.textContent = 'from ' + body.endpoint + ' (' + body.role + ') in ' + body.elapsed_ms + ' ms: ' + (body.command_tag || '');
  result.append(line);
  const table = document.createElement('table');
  table.id = 'rows';
  const head = table.insertRow();
  for (const column of body.columns || []) {
    const th = document.createElement('th');
    th.textContent = column;
    head.append(th);
  }
  for (const values of body.rows || []) {
    const tr = table.insertRow();
    tr.className = 'row';
    for (const value of values) tr.insertCell().textContent = value === null ? 'NULL' : String(value);
  }
  result.append(table);
}
document.getElementById('query').addEventListener('submit', async (event) => {
  event.preventDefault();
  const params = new URLSearchParams(new FormData(event.target));
  const answer = await fetch('/query?' + params.toString(), {cache: 'no-store'});
  showResult(await answer.json(), answer.status);
});
const asked = new URLSearchParams(location.search);
if (asked.has('sql')) {
  const form = document.getElementById('query');
  for (const [key, value] of asked) {
    const field = form.elements[key];
    if (!field) continue;
    if (field.tagName === 'SELECT') {
      // Names are matched in any letter case, like /query; one the list lacks is sent as given, so that
      // /query answers it (400 for an unknown target) instead of the form taking its first option.
      let option = [...field.options].find((o) => o.value.toLowerCase() === value.toLowerCase());
      if (!option) field.add(option = new Option(value, value));
      field.value = option.value;
    } else field.value = value;
  }
  form.requestSubmit();
}
refresh();
setInterval(refresh, 1000);
)JS";

} // namespace


std::string renderMonitorPage(const MonitorContext& context)
{
	std::ostringstream out;
	out << "<!DOCTYPE html>\n<html><head><meta charset=utf-8>"
		"<title>BlueTusk pool monitor</title><style>"
		"body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1em}"
		"td,th{border:1px solid #aaa;padding:3px 8px}td.n{text-align:right}th{background:#eee}"
		".primary{color:#060}.standby{color:#036}.down{color:#a00}.error{color:#a00}#updated{color:#666}</style></head><body>\n"
		"<h1>BlueTusk pool monitor</h1>\n"
		"<p>Every data source of the configuration (bluetusk.dataSources.*), one pool per endpoint. "
		"JSON: <a href=\"/stats\">/stats</a>" << (context.metrics ? ", Prometheus: <a href=\"/metrics\">/metrics</a>" : "")
		<< ". The tables follow /stats every second. <span id=updated data-count=0></span></p>\n";
	for (const auto& name: context.subsystem.names())
	{
		Poco::JSON::Object::Ptr stats = monitorStats(context, name);
		Poco::JSON::Object::Ptr hosts = stats->getObject("hosts");
		Poco::JSON::Object::Ptr learned = stats->getObject("learned");
		out << "<section data-source=\"" << htmlEscape(name) << "\"><h2>Data source &quot;" << htmlEscape(name) << "&quot;</h2>\n<p><code>"
			<< htmlEscape(stats->getValue<std::string>("connectionString")) << "</code></p>\n"
			<< "<table><tr><th>endpoint</th><th>learned state</th><th>role</th>";
		for (const char* counter: COUNTERS) out << "<th>" << counter << "</th>";
		out << "</tr>\n";
		for (const auto& key: hosts->getNames())
		{
			Poco::JSON::Object::Ptr host = hosts->getObject(key);
			Poco::JSON::Object::Ptr state = learned->has(key) ? learned->getObject(key) : Poco::JSON::Object::Ptr(new Poco::JSON::Object);
			const std::string stateText = state->optValue<std::string>("state", "unknown");
			const std::string roleText = roleOf(state, host);
			out << "<tr data-endpoint=\"" << htmlEscape(key) << "\"><td>" << htmlEscape(key) << "</td><td data-field=state class="
				<< htmlEscape(stateText) << ">" << htmlEscape(stateText)
				<< (state->has("reason") ? " (" + htmlEscape(state->getValue<std::string>("reason")) + ")" : std::string())
				<< "</td><td data-field=role class=\"" << htmlEscape(roleText.substr(0, roleText.find(' '))) << "\">" << htmlEscape(roleText) << "</td>";
			counterCells(out, host);
			out << "</tr>\n";
		}
		out << "<tr data-endpoint=\"*\"><th>all endpoints</th><td></td><td></td>";
		counterCells(out, stats->getObject("aggregate"));
		out << "</tr></table></section>\n";
	}
	out << "<h2>Run a query</h2>\n<form id=query action=\"/query\" method=get>"
		"<input name=sql size=60 value=\"SELECT inet_server_addr(), pg_is_in_recovery()\"> target "
		"<select name=target><option value=\"\">the data source's own</option>";
	// The standard names, then the loaded site target-session policies (routingContext().policyNames()
	// lists both, sorted).
	std::vector<std::string> targets = targetSessionAttributesNames();
	for (const auto& name: context.subsystem.routingContext().policyNames(PolicyFamily::TargetSession))
		if (std::find(targets.begin(), targets.end(), name) == targets.end()) targets.push_back(name);
	for (const auto& target: targets) out << "<option>" << htmlEscape(target) << "</option>";
	out << "</select> data source <select name=dataSource>";
	for (const auto& name: context.subsystem.names())
	{
		out << "<option" << (name == context.defaultDataSource ? " selected" : "") << ">" << htmlEscape(name) << "</option>";
	}
	out << "</select> <button>run</button></form>\n<div id=result></div>\n<script>" << SCRIPT << "[";
	for (std::size_t i = 0; i < sizeof(COUNTERS) / sizeof(COUNTERS[0]); ++i) out << (i ? "," : "") << '"' << COUNTERS[i] << '"';
	out << "]" << SCRIPT_REST << "</script>\n</body></html>\n";
	return out.str();
}

} } // namespace BlueTusk::Samples
