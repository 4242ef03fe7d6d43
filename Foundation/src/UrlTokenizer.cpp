//
// UrlTokenizer.cpp
//
// Library: BlueTusk/Foundation
//

#include "UrlTokenizer.h"
#include "HostList.h"
#include "PercentDecoder.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

namespace {

const char* const schemes[] = {"postgresql://", "postgres://"};


std::size_t schemeLength(const std::string& text, std::size_t start)
	/// The length of the scheme prefix at start, or 0.
{
	for (const char* scheme: schemes)
	{
		const std::string prefix(scheme);
		if (text.size() - start >= prefix.size() && asciiLower(text.substr(start, prefix.size())) == prefix)
			return prefix.size();
	}
	return 0;
}


std::size_t firstNonSpace(const std::string& text)
{
	std::size_t pos = 0;
	while (pos < text.size() && isSpace(text[pos])) ++pos;
	return pos;
}


std::string hostElement(const std::string& text, std::size_t offset)
	/// One element of the URL host list, percent-decoded and rewritten in the Host keyword's syntax.
{
	std::string rawHost;
	std::string rawPort;
	bool hasPort = false;
	std::size_t portOffset = offset;
	if (!text.empty() && text[0] == '[')
	{
		const std::size_t close = text.find(']');
		if (close == std::string::npos)
			throw BlueTuskConnectionStringException("the '[' at " + position(offset) + " in the URL's host list is never closed by ']'");
		rawHost = text.substr(1, close - 1);
		if (rawHost.empty())
			throw BlueTuskConnectionStringException("the IPv6 address between '[' and ']' at " + position(offset) + " in the URL's host list is empty");
		if (close + 1 < text.size())
		{
			if (text[close + 1] != ':')
				throw BlueTuskConnectionStringException("unexpected character after ']' at " + position(offset + close + 1) + "; expected ':' and a port");
			hasPort = true;
			rawPort = text.substr(close + 2);
			portOffset = offset + close + 2;
		}
	}
	else
	{
		const std::size_t colon = text.find(':');
		rawHost = text.substr(0, colon);
		if (colon != std::string::npos)
		{
			hasPort = true;
			rawPort = text.substr(colon + 1);
			portOffset = offset + colon + 1;
		}
	}

	std::string host = percentDecode(rawHost, offset + (text.empty() || text[0] != '[' ? 0 : 1));
	if (host.find_first_of(",[]") != std::string::npos)
		throw BlueTuskConnectionStringException("the host at " + position(offset) + " in the URL decodes to text with ',', '[' or ']', which a host list cannot hold");
	if (hasPort && rawPort.empty()) hasPort = false; // libpq: an empty port ("host:") means the default
	if (host.empty()) host = defaultSocketDirectory(); // libpq: an empty host (":5433") means the local socket
	const bool needsBrackets = !host.empty() && host[0] != '/' && host.find(':') != std::string::npos;
	std::string element = needsBrackets || (hasPort && !host.empty() && host[0] == '/') ? "[" + host + "]" : host;
	if (hasPort) element += ":" + percentDecode(rawPort, portOffset);
	return element;
}


void addQueryParameters(const std::string& text, std::size_t start, KeywordValueList& pairs)
{
	std::size_t pos = start;
	while (pos <= text.size())
	{
		std::size_t end = text.find('&', pos);
		if (end == std::string::npos) end = text.size();
		if (end > pos)
		{
			const std::size_t equals = text.find('=', pos);
			if (equals == std::string::npos || equals > end)
				throw BlueTuskConnectionStringException("the URL query parameter at " + position(pos) + " has no '='");
			// libpq 18 (t/001_uri.pl): spaces around a key or a value are dropped; %20 keeps one
			std::size_t keyStart = pos, keyEnd = equals, valueStart = equals + 1, valueEnd = end;
			while (keyStart < keyEnd && isSpace(text[keyStart])) ++keyStart;
			while (keyEnd > keyStart && isSpace(text[keyEnd - 1])) --keyEnd;
			while (valueStart < valueEnd && isSpace(text[valueStart])) ++valueStart;
			while (valueEnd > valueStart && isSpace(text[valueEnd - 1])) --valueEnd;
			KeywordValue pair;
			pair.keyword = percentDecode(text.substr(keyStart, keyEnd - keyStart), keyStart);
			pair.value = percentDecode(text.substr(valueStart, valueEnd - valueStart), valueStart);
			pair.position = keyStart;
			if (pair.keyword.empty())
				throw BlueTuskConnectionStringException("missing keyword before '=' at " + position(equals));
			pairs.push_back(pair);
		}
		pos = end + 1;
	}
}

} // namespace


bool isConnectionUrl(const std::string& text)
{
	return schemeLength(text, firstNonSpace(text)) > 0;
}


bool looksLikeMistypedUrl(const std::string& text)
{
	const std::size_t start = firstNonSpace(text);
	const std::string head = asciiLower(text.substr(start, 11));
	return !isConnectionUrl(text) && (head.compare(0, 11, "postgresql:") == 0 || head.compare(0, 9, "postgres:") == 0);
}


std::string nearMissUrlScheme(const std::string& text)
{
	if (isConnectionUrl(text)) return std::string();
	static const std::size_t maximumSchemeLength = 32;
	const std::size_t start = firstNonSpace(text);
	std::size_t end = start;
	while (end < text.size() && end - start <= maximumSchemeLength && !isSpace(text[end]) &&
		std::string("=;:@/'\"").find(text[end]) == std::string::npos)
		++end;
	if (end == start || end - start > maximumSchemeLength || text.compare(end, 2, ":/") != 0) return std::string();
	return text.substr(start, end + 2 - start);
}


KeywordValueList tokenizeUrl(const std::string& input)
{
	// Trailing white space is not part of a URL; leading white space was allowed by isConnectionUrl.
	std::size_t endOfUrl = input.size();
	while (endOfUrl > 0 && isSpace(input[endOfUrl - 1])) --endOfUrl;
	const std::string text = input.substr(0, endOfUrl);

	KeywordValueList pairs;
	const std::size_t start = firstNonSpace(text);
	std::size_t pos = start + schemeLength(text, start);

	// user[:password]@ before the first '/'. libpq takes the first '@'; the last one is taken here (as
	// WHATWG URL parsers do), so that a user name with an unencoded '@' ("app@corp.example:secret@host")
	// does not make the password part of the host list, where every message would show it.
	const std::size_t slash = text.find('/', pos);
	const std::size_t at = text.rfind('@', slash == std::string::npos ? std::string::npos : slash);
	if (at != std::string::npos && at >= pos && (slash == std::string::npos || at < slash))
	{
		const std::size_t colon = text.find(':', pos);
		const std::size_t userEnd = (colon != std::string::npos && colon < at) ? colon : at;
		KeywordValue user{"user", percentDecode(text.substr(pos, userEnd - pos), pos), pos};
		if (!user.value.empty()) pairs.push_back(user);
		if (userEnd == colon)
			pairs.push_back(KeywordValue{"password", percentDecode(text.substr(colon + 1, at - colon - 1), colon + 1), colon + 1});
		pos = at + 1;
	}

	// host[:port][,host[:port]...]
	const std::size_t hostEnd = std::min(text.find('/', pos), text.find('?', pos));
	const std::size_t hostListEnd = hostEnd == std::string::npos ? text.size() : hostEnd;
	const std::string onlyHost = text.substr(pos, hostListEnd - pos);
	const std::size_t onlyColon = onlyHost.find(':');
	if (onlyHost.find(',') == std::string::npos && !onlyHost.empty() && onlyColon != std::string::npos &&
		percentDecode(onlyHost.substr(0, onlyColon), pos).empty())
	{
		// One host, empty, with a port ("postgres://:12345/db"): libpq's default host with that port, which a
		// host query parameter may still replace ("?host=/path" keeps the port).
		const std::string port = percentDecode(onlyHost.substr(onlyColon + 1), pos + onlyColon + 1);
		if (!port.empty()) pairs.push_back(KeywordValue{"port", port, pos + onlyColon + 1});
	}
	else if (hostListEnd > pos)
	{
		std::vector<std::string> elements;
		std::size_t elementStart = pos;
		for (const std::string& raw: split(text.substr(pos, hostListEnd - pos), ','))
		{
			elements.push_back(hostElement(raw, elementStart));
			elementStart += raw.size() + 1;
		}
		pairs.push_back(KeywordValue{"host", join(elements, ","), pos});
	}
	pos = hostListEnd;

	// /dbname
	if (pos < text.size() && text[pos] == '/')
	{
		++pos;
		const std::size_t question = text.find('?', pos);
		const std::size_t dbEnd = question == std::string::npos ? text.size() : question;
		const std::string database = percentDecode(text.substr(pos, dbEnd - pos), pos);
		if (!database.empty()) pairs.push_back(KeywordValue{"dbname", database, pos});
		pos = dbEnd;
	}

	// ?param=value&...
	if (pos < text.size() && text[pos] == '?') addQueryParameters(text, pos + 1, pairs);
	return pairs;
}

} } // namespace BlueTusk::Detail
