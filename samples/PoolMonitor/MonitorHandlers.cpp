//
// MonitorHandlers.cpp
//
// bluetusk-pool-monitor.
//

#include "MonitorHandlers.h"
#include "MonitorPage.h"
#include "ErrorReport.h"
#include "SampleJson.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Poco/Net/HTMLForm.h"
#include "Poco/Net/HTTPServerRequest.h"
#include "Poco/Net/HTTPServerResponse.h"
#include "Poco/Stopwatch.h"
#include "Poco/Timestamp.h"
#include "Poco/URI.h"

namespace BlueTusk {
namespace Samples {

namespace {

using Poco::Net::HTTPResponse;


void sendJson(Poco::Net::HTTPServerResponse& response, HTTPResponse::HTTPStatus status, const Poco::JSON::Object::Ptr& body)
{
	response.setStatus(status);
	response.setContentType("application/json");
	response.set("Cache-Control", "no-store");
	std::string text = toLine(body) + "\n";
	response.setContentLength(static_cast<std::streamsize>(text.size()));
	response.send() << text;
}


void sendError(Poco::Net::HTTPServerResponse& response, HTTPResponse::HTTPStatus status, const std::string& type, const std::string& message)
{
	ErrorReport report;
	report.type = type;
	report.message = message;
	sendJson(response, status, report.toJson());
}


std::string stateName(HostCandidate::State state)
{
	switch (state)
	{
	case HostCandidate::UP:   return "up";
	case HostCandidate::DOWN: return "down";
	default:                  break;
	}
	return "unknown";
}


class StatsHandler: public Poco::Net::HTTPRequestHandler
	/// GET /stats[?dataSource=name]
{
public:
	explicit StatsHandler(const MonitorContext& context): _context(context)
	{
	}

	void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override
	{
		Poco::Net::HTMLForm form(request);
		const std::string name = form.get("dataSource", _context.defaultDataSource);
		try
		{
			sendJson(response, HTTPResponse::HTTP_OK, monitorStats(_context, name));
		}
		catch (Poco::NotFoundException& exc)
		{
			sendError(response, HTTPResponse::HTTP_NOT_FOUND, "Poco::NotFoundException", exc.message());
		}
	}

private:
	MonitorContext _context;
};


class QueryHandler: public Poco::Net::HTTPRequestHandler
	/// GET /query?sql=SQL[&target=T][&dataSource=name]: one checkout, the statement, the rows.
{
public:
	explicit QueryHandler(const MonitorContext& context): _context(context)
	{
	}

	void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override
	{
		Poco::Net::HTMLForm form(request, request.stream());
		if (!form.has("sql") || form.get("sql").empty())
		{
			sendError(response, HTTPResponse::HTTP_BAD_REQUEST, "Poco::InvalidArgumentException", "the sql parameter is required: /query?sql=SELECT+1");
			return;
		}
		BlueTuskDataSource::Ptr dataSource;
		try
		{
			dataSource = _context.subsystem.dataSource(form.get("dataSource", _context.defaultDataSource));
		}
		catch (Poco::NotFoundException& exc)
		{
			sendError(response, HTTPResponse::HTTP_NOT_FOUND, "Poco::NotFoundException", exc.message());
			return;
		}
		Poco::Stopwatch watch;
		watch.start();
		BlueTuskConnection connection;
		try
		{
			// Without target= (or an empty one) the data source's own target, a site target-session policy included (its
			// settings' targetSessionAttributes reads "any" then); target= takes a standard name or the
			// name of a loaded site policy (BlueTuskDataSource::open(const std::string&)).
			const std::string target = form.get("target", "");
			connection = target.empty() ? dataSource->open() : dataSource->open(target);
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			// A target that is neither a standard name nor a loaded policy's: the caller's mistake.
			sendError(response, HTTPResponse::HTTP_BAD_REQUEST, ErrorReport::typeName(exc), exc.message());
			return;
		}
		catch (Poco::Exception& exc)
		{
			sendJson(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, ErrorReport::from(exc).toJson());
			return;
		}
		const double ms = static_cast<double>(watch.elapsed()) / 1000.0;
		try
		{
			std::vector<QueryResult> results = connection.executeSimple(form.get("sql"));
			Poco::JSON::Object::Ptr body = connectedEvent(connection, connection.role(), ms);
			if (!results.empty()) addResult(*body, results.back());
			connection.close();
			sendJson(response, HTTPResponse::HTTP_OK, body);
		}
		catch (BlueTuskServerException& exc)
		{
			// The caller's own mistake (a bad statement) is a 4xx; the server going away mid-query (57P01
			// shutdown, a FATAL, an availability error) is the service's: 503.
			connection.close();
			const bool unavailable = exc.isAvailabilityError() || !exc.sessionUsable();
			sendJson(response, unavailable ? HTTPResponse::HTTP_SERVICE_UNAVAILABLE : HTTPResponse::HTTP_BAD_REQUEST, ErrorReport::from(exc).toJson());
		}
		catch (Poco::Exception& exc)
		{
			connection.close();
			sendJson(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, ErrorReport::from(exc).toJson());
		}
	}

private:
	MonitorContext _context;
};


class PageHandler: public Poco::Net::HTTPRequestHandler
	/// GET /: the readable page.
{
public:
	explicit PageHandler(const MonitorContext& context): _context(context)
	{
	}

	void handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) override
	{
		std::string html = renderMonitorPage(_context);
		response.setContentType("text/html; charset=utf-8");
		response.set("Cache-Control", "no-store");
		response.setContentLength(static_cast<std::streamsize>(html.size()));
		response.send() << html;
	}

private:
	MonitorContext _context;
};


class MetricsHandler: public Poco::Net::HTTPRequestHandler
	/// GET /metrics: the Prometheus text exposition format of every data source (doc/metrics.md).
{
public:
	explicit MetricsHandler(const MonitorContext& context): _context(context)
	{
	}

	void handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) override
	{
		if (!_context.metrics)
		{
			sendError(response, HTTPResponse::HTTP_NOT_FOUND, "Poco::NotFoundException",
				"metrics are off: set bluetusk.metrics.enabled = true (and build with prometheus-cpp-dev)");
			return;
		}
		const std::string text = _context.metrics();
		response.setContentType("text/plain; version=0.0.4; charset=utf-8");
		response.set("Cache-Control", "no-store");
		response.setContentLength(static_cast<std::streamsize>(text.size()));
		response.send() << text;
	}

private:
	MonitorContext _context;
};


class NotFoundHandler: public Poco::Net::HTTPRequestHandler
{
public:
	void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override
	{
		sendError(response, HTTPResponse::HTTP_NOT_FOUND, "Poco::NotFoundException", "no page " + request.getURI() + " (try /, /stats, /metrics, /query?sql=SELECT+1)");
	}
};

} // namespace


Poco::JSON::Object::Ptr monitorStats(const MonitorContext& context, const std::string& name)
{
	BlueTuskDataSource::Ptr dataSource = context.subsystem.dataSource(name);
	Poco::JSON::Object::Ptr stats = statsEvent(*dataSource);
	Poco::JSON::Object::Ptr body = newObject();
	body->set("event", "stats");
	body->set("dataSource", name);
	body->set("connectionString", dataSource->settings().toString());
	body->set("aggregate", stats->get("aggregate"));
	body->set("hosts", stats->get("hosts"));
	Poco::JSON::Object::Ptr learned = newObject();
	const RoutingContext& routing = dataSource->routingContext();
	Poco::Timestamp now;
	for (const auto& endpoint: dataSource->settings().endpoints)
	{
		const RoutingContext::HostState entry = routing.hostState(endpoint);
		Poco::JSON::Object::Ptr item = newObject();
		item->set("state", stateName(entry.state));
		item->set("role", toString(entry.role));
		if (entry.state != HostCandidate::UNKNOWN) item->set("age_ms", roundedMs(static_cast<double>(now - entry.learnedAt) / 1000.0));
		if (!entry.reason.empty()) item->set("reason", entry.reason);
		learned->set(endpoint.toString(), item);
	}
	body->set("learned", learned);
	return body;
}


MonitorRequestHandlerFactory::MonitorRequestHandlerFactory(const MonitorContext& context):
	_context(context)
{
}


Poco::Net::HTTPRequestHandler* MonitorRequestHandlerFactory::createRequestHandler(const Poco::Net::HTTPServerRequest& request)
{
	const std::string path = Poco::URI(request.getURI()).getPath();
	if (path == "/" || path == "/index.html") return new PageHandler(_context);
	if (path == "/stats") return new StatsHandler(_context);
	if (path == "/query") return new QueryHandler(_context);
	if (path == "/metrics") return new MetricsHandler(_context);
	return new NotFoundHandler;
}

} } // namespace BlueTusk::Samples
