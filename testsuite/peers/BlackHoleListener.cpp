//
// BlackHoleListener.cpp
//
// Library: BlueTusk test peers
//

#include "BlackHoleListener.h"
#include "PeerSupport.h"
#include "Poco/Exception.h"

namespace BlueTusk {
namespace Test {

namespace
{
	const int MAX_FILLERS = 16;
	const Poco::Timespan PROBE_TIMEOUT(0, 100000);
}


BlackHoleListener::BlackHoleListener(const std::string& host, Poco::UInt16 port)
{
	_listener.bind(Poco::Net::SocketAddress(host, port), true);
	_listener.listen(0);
	_address = _listener.address();
	for (int i = 0; i < MAX_FILLERS; ++i)
	{
		Poco::Net::StreamSocket filler;
		try
		{
			filler.connect(_address, PROBE_TIMEOUT);
		}
		catch (Poco::TimeoutException&)
		{
			Detail::closeQuietly(filler);
			return; // the queue is full: this probe was not answered
		}
		_fillers.push_back(filler);
	}
	for (auto& filler: _fillers) Detail::closeQuietly(filler);
	Detail::closeQuietly(_listener);
	throw Poco::IllegalStateException("BlackHoleListener: accept queue of " + _address.toString() + " did not fill");
}


BlackHoleListener::~BlackHoleListener()
{
	for (auto& filler: _fillers) Detail::closeQuietly(filler, true);
	Detail::closeQuietly(_listener);
}


Poco::Net::SocketAddress BlackHoleListener::address() const
{
	return _address;
}


std::string BlackHoleListener::host() const
{
	return _address.host().toString();
}


Poco::UInt16 BlackHoleListener::port() const
{
	return _address.port();
}


std::string BlackHoleListener::hostAndPort() const
{
	return _address.toString();
}


BlueTuskHostEndpoint BlackHoleListener::endpoint() const
{
	return BlueTuskHostEndpoint(host(), port());
}


int BlackHoleListener::fillerConnections() const
{
	return static_cast<int>(_fillers.size());
}

} } // namespace BlueTusk::Test
