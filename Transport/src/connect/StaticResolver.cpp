//
// StaticResolver.cpp
//
// Library: BlueTusk/Transport
//

#include "StaticResolver.h"
#include "Poco/Exception.h"
#include "Poco/Net/IPAddress.h"
#include "Poco/Net/NetException.h"

namespace BlueTusk {

StaticResolver::StaticResolver()
{
}


StaticResolver::StaticResolver(Resolver::Ptr fallback):
	_fallback(fallback)
{
}


StaticResolver::~StaticResolver()
{
}


void StaticResolver::add(const std::string& host, const std::vector<std::string>& addresses)
{
	for (const auto& text: addresses)
	{
		Poco::Net::IPAddress ip;
		if (Poco::Net::IPAddress::tryParse(text, ip))
		{
			add(host, Poco::Net::SocketAddress(ip, 0));
			continue;
		}
		try
		{
			// "127.0.0.2:6000" or "[::1]:6000"
			std::string::size_type colon = text.rfind(':');
			if (colon == std::string::npos) throw Poco::InvalidArgumentException(text);
			std::string hostPart = text.substr(0, colon);
			if (hostPart.size() >= 2 && hostPart.front() == '[' && hostPart.back() == ']')
				hostPart = hostPart.substr(1, hostPart.size() - 2);
			if (!Poco::Net::IPAddress::tryParse(hostPart, ip)) throw Poco::InvalidArgumentException(text);
			add(host, Poco::Net::SocketAddress(ip, static_cast<Poco::UInt16>(std::stoul(text.substr(colon + 1)))));
		}
		catch (Poco::Exception&)
		{
			throw Poco::InvalidArgumentException("StaticResolver: not an IP address with optional port", text);
		}
		catch (std::exception&)
		{
			throw Poco::InvalidArgumentException("StaticResolver: not an IP address with optional port", text);
		}
	}
}


void StaticResolver::add(const std::string& host, const Poco::Net::SocketAddress& address)
{
	Poco::FastMutex::ScopedLock lock(_mutex);
	_table[host].push_back(address);
}


void StaticResolver::remove(const std::string& host)
{
	Poco::FastMutex::ScopedLock lock(_mutex);
	_table.erase(host);
}


void StaticResolver::clear()
{
	Poco::FastMutex::ScopedLock lock(_mutex);
	_table.clear();
	_counts.clear();
}


std::vector<Poco::Net::SocketAddress> StaticResolver::resolve(const std::string& host, Poco::UInt16 port)
{
	Resolver::Ptr fallback;
	{
		Poco::FastMutex::ScopedLock lock(_mutex);
		++_counts[host];
		auto it = _table.find(host);
		if (it != _table.end() && !it->second.empty())
		{
			std::vector<Poco::Net::SocketAddress> addresses;
			for (const auto& address: it->second)
				addresses.emplace_back(address.host(), address.port() == 0 ? port : address.port());
			return addresses;
		}
		fallback = _fallback;
	}
	if (fallback) return fallback->resolve(host, port);
	throw Poco::Net::HostNotFoundException(host, "not in the StaticResolver table");
}


int StaticResolver::resolveCount(const std::string& host) const
{
	Poco::FastMutex::ScopedLock lock(_mutex);
	auto it = _counts.find(host);
	return it == _counts.end() ? 0 : it->second;
}

} // namespace BlueTusk
