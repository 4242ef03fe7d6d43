//
// HostList.cpp
//
// Library: BlueTusk/Foundation
//

#include "HostList.h"
#include "SettingValues.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include <algorithm>
#include <arpa/inet.h>
#include <sys/stat.h>

namespace BlueTusk {
namespace Detail {

namespace {

std::string elementName(std::size_t index, std::size_t count)
	/// "element 2 of 3", or "the host" when there is only one.
{
	if (count == 1) return "the host";
	return "element " + std::to_string(index + 1) + " of " + std::to_string(count);
}


std::string plural(std::size_t count, const std::string& word)
{
	return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}


void checkHostName(const std::string& host, const std::string& text, const std::string& keyword, const std::string& where)
	/// Refuses a host that no resolver could find: longer than a DNS name (253 characters), or with white
	/// space (other characters are left to the resolver, which reports the name unknown). White space is most often a pasted libpq tail
	/// ("Host=127.0.0.1 port=5432" in the Npgsql form, which separates keywords with ';').
{
	if (host.size() > maximumHostNameLength)
		throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " is too long for a host name (at most " +
			std::to_string(maximumHostNameLength) + " characters, as in DNS)");
	for (std::size_t i = 0; i < host.size(); ++i)
	{
		if (!isSpace(host[i])) continue;
		const bool pastedKeyword = host.find('=', i) != std::string::npos;
		throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " is not a valid host name: it holds white space at " +
			position(i) + (pastedKeyword ? "; in this form keywords are separated by ';', not spaces (Host=127.0.0.1;Port=5432, not "
				"Host=127.0.0.1 port=5432)" : "; a host name has letters, digits, '-', '.' and '_'"));
	}
}


HostElement parseHostElement(const std::string& text, const std::string& keyword, const std::string& where)
{
	HostElement element;
	if (text[0] == '/')
	{
		element.host = text;
		return element;
	}
	if (text[0] == '[')
	{
		const std::size_t close = text.find(']');
		if (close == std::string::npos)
			throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has a '[' without ']'");
		element.host = trim(text.substr(1, close - 1));
		if (element.host.empty())
			throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has an empty host inside '[]'");
		if (element.host.find('[') != std::string::npos)
			throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has '[' inside brackets");
		if (close + 1 < text.size())
		{
			if (text[close + 1] != ':')
				throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has unexpected text after ']'; expected ':' and a port");
			element.port = parsePortNumber(text.substr(close + 2), keyword + ": " + where + " " + quoted(text));
		}
		if (element.host[0] != '/') checkHostName(element.host, text, keyword, where);   // "[/tmp/a:b]": a socket directory
		return element;
	}
	const std::size_t colons = static_cast<std::size_t>(std::count(text.begin(), text.end(), ':'));
	if (colons == 1)
	{
		const std::size_t colon = text.find(':');
		element.host = trim(text.substr(0, colon));
		if (element.host.empty())
			throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has an empty host name before ':'");
		element.port = parsePortNumber(text.substr(colon + 1), keyword + ": " + where + " " + quoted(text));
		if (element.host.find_first_of("[]") != std::string::npos)
			throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has '[' or ']' outside brackets around the host; write [host] or [host]:port");
		checkHostName(element.host, text, keyword, where);
		return element;
	}
	element.host = text; // a name, or a bare IPv6 literal (more than one ':', no port)
	if (element.host.find_first_of("[]") != std::string::npos)
		throw BlueTuskConnectionStringException(keyword + ": " + where + " " + quoted(text) + " has '[' or ']' outside brackets around the host; write [host] or [host]:port");
	checkHostName(element.host, text, keyword, where);
	return element;
}

} // namespace


std::vector<HostElement> parseHostList(const std::string& hostList, const std::string& keyword, bool allowEmpty)
{
	if (trim(hostList).empty())
		throw BlueTuskConnectionStringException(keyword + ": the host list is empty; expected one or more hosts separated by ','");
	const std::vector<std::string> items = split(hostList, ',');
	std::vector<HostElement> hosts;
	for (std::size_t i = 0; i < items.size(); ++i)
	{
		const std::string text = trim(items[i]);
		if (text.empty() && allowEmpty)
		{
			hosts.emplace_back();
			continue;
		}
		if (text.empty())
			throw BlueTuskConnectionStringException(keyword + ": " + (items.size() == 1 ? std::string("the host") : elementName(i, items.size())) + " is empty in the host list " + quoted(hostList));
		hosts.push_back(parseHostElement(text, keyword, elementName(i, items.size())));
	}
	return hosts;
}


std::vector<Poco::UInt16> parsePortList(const std::string& portList, const std::string& keyword)
{
	const std::vector<std::string> items = split(portList, ',');
	std::vector<Poco::UInt16> ports;
	for (std::size_t i = 0; i < items.size(); ++i)
	{
		const std::string where = items.size() == 1 ? keyword : keyword + ": " + elementName(i, items.size());
		ports.push_back(parsePortNumber(items[i], where));
	}
	return ports;
}


std::vector<BlueTuskHostEndpoint> resolveEndpoints(const std::vector<HostElement>& hosts, const std::vector<Poco::UInt16>& ports)
{
	if (ports.size() > 1 && ports.size() != hosts.size())
		throw BlueTuskConnectionStringException("Port: " + plural(hosts.size(), "host") + " but " + plural(ports.size(), "port") +
			"; a Port list of more than one port needs one port per host (or give a single shared Port)");
	std::vector<BlueTuskHostEndpoint> endpoints;
	for (std::size_t i = 0; i < hosts.size(); ++i)
	{
		Poco::UInt16 port = 5432;
		if (hosts[i].port != 0) port = hosts[i].port;
		else if (ports.size() > 1) port = ports[i];
		else if (ports.size() == 1) port = ports[0];
		endpoints.emplace_back(hosts[i].host, port, hosts[i].address);
	}
	return endpoints;
}


std::string hostListText(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::vector<std::string> items;
	for (const auto& endpoint: endpoints)
	{
		const std::string& host = endpoint.host();
		const bool bracket = !endpoint.isUnixSocket() && host.find(':') != std::string::npos;
		items.push_back(bracket ? "[" + host + "]" : host);
	}
	return join(items, ",");
}


std::vector<std::string> parseHostAddressList(const std::string& list, const std::string& keyword)
{
	const std::vector<std::string> items = split(list, ',');
	std::vector<std::string> addresses;
	for (std::size_t i = 0; i < items.size(); ++i)
	{
		const std::string address = trim(items[i]);
		unsigned char buffer[sizeof(struct in6_addr)];
		if (!address.empty() && inet_pton(AF_INET, address.c_str(), buffer) != 1 && inet_pton(AF_INET6, address.c_str(), buffer) != 1)
			throw BlueTuskConnectionStringException(keyword + ": " + elementName(i, items.size()) + " " + quoted(address) +
				" is not a numeric IP address; hostaddr takes IPv4 or IPv6 addresses without brackets or port (write host names in Host)");
		addresses.push_back(address);
	}
	return addresses;
}


void applyHostAddresses(std::vector<HostElement>& hosts, const std::vector<std::string>& addresses, const std::string& hostKeyword)
{
	if (hosts.empty())
	{
		for (std::size_t i = 0; i < addresses.size(); ++i)
		{
			if (addresses[i].empty())
				throw BlueTuskConnectionStringException("hostaddr: " + elementName(i, addresses.size()) + " is empty and there is no host for it");
			HostElement element;
			element.host = addresses[i];
			hosts.push_back(element);
		}
		return;
	}
	if (hosts.size() != addresses.size())
		throw BlueTuskConnectionStringException("hostaddr: " + plural(hosts.size(), "host") + " but " + plural(addresses.size(), "hostaddr value") +
			"; give one hostaddr per host (an empty one for a host to reach by its name)");
	for (std::size_t i = 0; i < hosts.size(); ++i)
	{
		HostElement& element = hosts[i];
		if (element.host.empty() && addresses[i].empty())
			throw BlueTuskConnectionStringException(hostKeyword + ": " + elementName(i, hosts.size()) + " is empty and so is its hostaddr");
		if (element.host.empty())
			element.host = addresses[i];
		else if (!addresses[i].empty() && element.host[0] == '/')
			throw BlueTuskConnectionStringException("hostaddr: " + elementName(i, hosts.size()) + " " + quoted(addresses[i]) + " is given for the socket directory " +
				quoted(element.host) + ", but a hostaddr connects over TCP; leave it empty for a socket directory");
		else
			element.address = addresses[i];
	}
}


std::string defaultSocketDirectory()
{
	static const std::vector<std::string> candidates = {"/var/run/postgresql", "/tmp"};
	return defaultSocketDirectory(candidates);
}


std::string defaultSocketDirectory(const std::vector<std::string>& candidates)
{
	for (const std::string& candidate: candidates)
	{
		struct stat status;
		if (::stat(candidate.c_str(), &status) == 0 && S_ISDIR(status.st_mode)) return candidate;
	}
	return candidates.empty() ? std::string() : candidates.front();
}


std::string hostAddressListText(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::vector<std::string> items;
	bool any = false;
	for (const auto& endpoint: endpoints)
	{
		items.push_back(endpoint.address());
		if (!endpoint.address().empty()) any = true;
	}
	return any ? join(items, ",") : std::string();
}


std::string portListText(const std::vector<BlueTuskHostEndpoint>& endpoints)
{
	std::vector<std::string> items;
	bool allEqual = true;
	for (const auto& endpoint: endpoints)
	{
		items.push_back(std::to_string(endpoint.port()));
		if (endpoint.port() != endpoints.front().port()) allEqual = false;
	}
	if (items.empty()) return "5432";
	if (allEqual) return items.front();
	return join(items, ",");
}

} } // namespace BlueTusk::Detail
