//
// PatroniTopologySource.cpp
//
// Library: BlueTusk/Plugins/Topology
//

#include "PatroniTopologySource.h"
#include "PatroniClusterDocument.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Net/Context.h"
#include "Poco/Error.h"
#include "Poco/Net/HTTPBasicCredentials.h"
#include "Poco/Net/HTTPRequest.h"
#include "Poco/Net/HTTPResponse.h"
#include "Poco/Net/SecureStreamSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/SocketStream.h"
#include "Poco/Net/SSLManager.h"
#include <algorithm>
#include "Poco/Timestamp.h"
#include <istream>
#include <memory>

namespace BlueTusk {

namespace {

constexpr std::size_t MAX_ANSWER = 4 * 1024 * 1024; // a /cluster document is a few hundred bytes a member


std::string trimmed(const std::string& text)
{
	const std::string::size_type first = text.find_first_not_of(" \t\r\n");
	if (first == std::string::npos) return std::string();
	return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}


std::string withoutUserInfo(const std::string& url)
	/// url with any "user:secret@" after the scheme removed (for messages about a URL that did not parse).
{
	const std::string::size_type scheme = url.find("://");
	const std::string::size_type start = scheme == std::string::npos ? 0 : scheme + 3;
	const std::string::size_type at = url.find('@', start);
	const std::string::size_type slash = url.find('/', start);
	if (at == std::string::npos || (slash != std::string::npos && slash < at)) return url;
	return url.substr(0, start) + url.substr(at + 1);
}


std::string readBody(std::istream& in)
{
	std::string body;
	char buffer[8192];
	while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0)
	{
		body.append(buffer, static_cast<std::size_t>(in.gcount()));
		if (body.size() > MAX_ANSWER) throw BlueTuskException("the answer is larger than 4 MB");
	}
	return body;
}

} // namespace


PatroniTopologySource::PatroniTopologySource()
{
}


PatroniTopologySource::~PatroniTopologySource()
{
}


std::string PatroniTopologySource::name() const
{
	return "patroni";
}


const std::vector<PatroniTopologySource::Location>& PatroniTopologySource::locations() const
{
	return _locations;
}


void PatroniTopologySource::configure(const std::string& location, const ConnectionSettings& seed)
{
	const std::string expected = "; expected patroni:http://<host>:<port>[,http://<host>:<port>...] (Patroni's REST API)";
	std::vector<Location> locations;
	std::string::size_type begin = 0;
	bool secure = false;
	for (;;)
	{
		const std::string::size_type comma = location.find(',', begin);
		const std::string item = trimmed(location.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
		if (item.empty()) throw BlueTuskConnectionStringException("Topology Source: an empty URL in the patroni list" + expected);
		Location parsed;
		try
		{
			parsed.uri = Poco::URI(item);
		}
		catch (const Poco::Exception&)
		{
			throw BlueTuskConnectionStringException("Topology Source: " + withoutUserInfo(item) + " is not a URL" + expected);
		}
		const std::string scheme = parsed.uri.getScheme();
		if (scheme != "http" && scheme != "https")
			throw BlueTuskConnectionStringException("Topology Source: " + withoutUserInfo(item) + " is not an http or https URL" + expected);
		if (parsed.uri.getHost().empty())
			throw BlueTuskConnectionStringException("Topology Source: " + withoutUserInfo(item) + " names no host" + expected);
		if (!parsed.uri.getRawQuery().empty() || !parsed.uri.getFragment().empty())
			throw BlueTuskConnectionStringException("Topology Source: " + withoutUserInfo(item) + " must be a base URL, without query or fragment" + expected);
		secure = secure || scheme == "https";
		parsed.display = scheme + "://" + parsed.uri.getHost() + ":" + std::to_string(parsed.uri.getPort());
		const std::string userInfo = parsed.uri.getUserInfo();
		if (!userInfo.empty())
		{
			const std::string::size_type colon = userInfo.find(':');
			parsed.user = userInfo.substr(0, colon);
			if (colon != std::string::npos) parsed.password = userInfo.substr(colon + 1);
		}
		locations.push_back(parsed);
		if (comma == std::string::npos) break;
		begin = comma + 1;
	}
	_locations = locations;
	_rootCertificate = seed.rootCertificate;
	if (secure) Poco::Net::initializeSSL();
}


TopologySnapshot PatroniTopologySource::read(const Poco::Timespan& timeout)
{
	const Poco::Timestamp deadline = Poco::Timestamp() + timeout.totalMicroseconds();
	std::string failures;
	bool anyReached = false;
	for (const Location& location: _locations)
	{
		{
			std::lock_guard<std::mutex> lock(_mutex);
			if (_closing) throw BlueTuskException("patroni topology source closed");
		}
		const Poco::Timespan remaining(deadline - Poco::Timestamp());
		if (!failures.empty()) failures += "; ";
		if (remaining.totalMilliseconds() <= 0)
		{
			failures += location.display + "/cluster: not tried (no time left)";
			continue;
		}
		bool reached = false;
		try
		{
			return readOne(location, remaining, reached);
		}
		catch (const Poco::Exception& exc)
		{
			failures += exc.message();
			anyReached = anyReached || reached;
		}
	}
	const std::string message = "no Patroni REST API gave the cluster's members: " + failures;
	if (anyReached) throw BlueTuskException(message);
	throw BlueTuskTransportException(message);
}


Poco::Net::StreamSocket PatroniTopologySource::connect(const Location& location, const Poco::Timestamp& deadline)
{
	// A non-blocking connect watched in short slices: close() ends even a black-holed connect at once.
	const Poco::Net::SocketAddress address(location.uri.getHost(), location.uri.getPort());
	Poco::Net::StreamSocket socket(address.family());
	socket.connectNB(address);
	for (;;)
	{
		{
			std::lock_guard<std::mutex> lock(_mutex);
			if (_closing) throw BlueTuskException("closed");
		}
		const Poco::Timespan remaining(deadline - Poco::Timestamp());
		if (remaining.totalMilliseconds() <= 0) throw BlueTuskException("connect timed out");
		if (socket.poll(std::min(remaining, Poco::Timespan(0, 50000)), Poco::Net::Socket::SELECT_WRITE | Poco::Net::Socket::SELECT_ERROR)) break;
	}
	const int error = socket.impl()->socketError();
	if (error != 0) throw BlueTuskException("connect failed: " + Poco::Error::getMessage(error));
	socket.setBlocking(true);
	return socket;
}


TopologySnapshot PatroniTopologySource::readOne(const Location& location, const Poco::Timespan& timeout, bool& reached)
{
	const std::string url = location.display + "/cluster";
	const Poco::Timestamp deadline = Poco::Timestamp() + timeout.totalMicroseconds();
	std::string path = location.uri.getPath();
	while (!path.empty() && path.back() == '/') path.pop_back();
	std::string body;
	Poco::Net::HTTPResponse response;
	try
	{
		Poco::Net::StreamSocket socket = connect(location, deadline);
		if (location.uri.getScheme() == "https")
		{
			Poco::Net::Context::Ptr context = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", _rootCertificate,
				Poco::Net::Context::VERIFY_RELAXED, 9, _rootCertificate.empty());
			socket.setReceiveTimeout(Poco::Timespan(deadline - Poco::Timestamp()));
			socket = Poco::Net::SecureStreamSocket::attach(socket, location.uri.getHost(), context);
		}
		{
			std::lock_guard<std::mutex> lock(_mutex);
			if (_closing) throw BlueTuskException("closed");
			_active = socket;
		}
		struct Forget
		{
			PatroniTopologySource& self;
			~Forget()
			{
				std::lock_guard<std::mutex> lock(self._mutex);
				self._active = Poco::Net::StreamSocket();
			}
		} forget{*this};
		const Poco::Timespan left(std::max<Poco::Timestamp::TimeDiff>(1000, deadline - Poco::Timestamp()));
		socket.setSendTimeout(left);
		socket.setReceiveTimeout(left);
		// HTTP/1.0 with Connection: close: the body ends with the connection, never chunked.
		Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path + "/cluster", Poco::Net::HTTPMessage::HTTP_1_0);
		request.setHost(location.uri.getHost(), location.uri.getPort());
		request.set("Accept", "application/json");
		request.set("Connection", "close");
		if (!location.user.empty()) Poco::Net::HTTPBasicCredentials(location.user, location.password).authenticate(request);
		Poco::Net::SocketStream stream(socket);
		request.write(stream);
		stream.flush();
		response.read(stream);
		reached = true;
		body = readBody(stream);
	}
	catch (const BlueTuskException& exc)
	{
		throw BlueTuskException(url + ": " + exc.message());
	}
	catch (const Poco::Exception& exc)
	{
		// Poco's texts name the host and port at most, never the URL's user info.
		throw BlueTuskException(url + ": " + exc.displayText());
	}
	if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK)
	{
		throw BlueTuskException(url + ": HTTP " + std::to_string(static_cast<int>(response.getStatus())) + " " + response.getReason() +
			(response.getStatus() == Poco::Net::HTTPResponse::HTTP_UNAUTHORIZED ? " (check the user and password of the URL)" : ""));
	}
	TopologySnapshot snapshot = parsePatroniCluster(body, url);
	snapshot.readAt = Poco::Timestamp();
	return snapshot;
}


void PatroniTopologySource::close()
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_closing = true;
		try
		{
			if (_active.impl()->initialized()) _active.shutdown();   // a read in progress returns at once
		}
		catch (...)
		{
		}
	}
	TopologySource::close();
}

} // namespace BlueTusk
