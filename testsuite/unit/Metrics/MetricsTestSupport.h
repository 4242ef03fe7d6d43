//
// MetricsTestSupport.h
//
// What the Metrics unit tests share: a scrape over HTTP, and reading one sample out of a text exposition.
//

#ifndef BlueTusk_Test_MetricsTestSupport_INCLUDED
#define BlueTusk_Test_MetricsTestSupport_INCLUDED

#include "Poco/Net/HTTPClientSession.h"
#include "Poco/Net/HTTPRequest.h"
#include "Poco/Net/HTTPResponse.h"
#include "Poco/StreamCopier.h"
#include <sstream>
#include <string>

namespace BlueTusk {
namespace Test {

inline std::string scrape(Poco::UInt16 port, int& status)
	/// GET http://127.0.0.1:port/metrics: the body, and the HTTP status in status.
{
	Poco::Net::HTTPClientSession session("127.0.0.1", port);
	session.setTimeout(Poco::Timespan(10, 0));
	Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/metrics", Poco::Net::HTTPMessage::HTTP_1_1);
	session.sendRequest(request);
	Poco::Net::HTTPResponse response;
	std::string body;
	Poco::StreamCopier::copyToString(session.receiveResponse(response), body);
	status = static_cast<int>(response.getStatus());
	return body;
}


inline std::string sample(const std::string& text, const std::string& prefix)
	/// The value of the exposition line that starts with prefix ("name{labels}"), or "missing".
{
	std::istringstream lines(text);
	std::string line;
	while (std::getline(lines, line))
	{
		if (line.compare(0, prefix.size(), prefix) == 0 && line.size() > prefix.size() && line[prefix.size()] == ' ')
			return line.substr(prefix.size() + 1);
	}
	return "missing";
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_MetricsTestSupport_INCLUDED
