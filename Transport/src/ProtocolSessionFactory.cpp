//
// ProtocolSessionFactory.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/ProtocolSessionFactory.h"
#include "BlueTusk/CancellationWatch.h"

namespace BlueTusk {

ProtocolSessionFactory::ProtocolSessionFactory()
{
}


ProtocolSessionFactory::ProtocolSessionFactory(Resolver::Ptr resolver):
	_dialer(resolver)
{
}


ProtocolSessionFactory::~ProtocolSessionFactory()
{
}


Session::Ptr ProtocolSessionFactory::open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings)
{
	return openSession(endpoint, settings);
}


Session::Ptr ProtocolSessionFactory::openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings, const OpenCancellation& cancellation)
{
	const std::string cancelled = "connection attempt to " + endpoint.toString() + " cancelled";
	if (cancellation.isCancelled()) throw BlueTuskTransportException(cancelled);
	CancellationWatch watch(cancellation);
	Deadline deadline(settings.connectTimeout, &watch);
	try
	{
		return openSession(endpoint, settings, deadline);
	}
	catch (BlueTuskTransportException&)
	{
		throw;
	}
	catch (Poco::Exception&)
	{
		if (watch.isCancelled()) throw BlueTuskTransportException(cancelled);
		throw;
	}
}


std::unique_ptr<ProtocolSession> ProtocolSessionFactory::openSession(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) const
{
	return openSession(endpoint, settings, Deadline(settings.connectTimeout));
}


std::unique_ptr<ProtocolSession> ProtocolSessionFactory::openSession(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings, const Deadline& deadline) const
{
	std::unique_ptr<ProtocolSession> session;
	Dialer::Result result = _dialer.dial(endpoint, deadline,
		[&](Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress& address)
		{
			std::unique_ptr<ProtocolSession> candidate(new ProtocolSession(endpoint));
			if (_noticeHandler) candidate->setNoticeHandler(_noticeHandler);
			candidate->startup(socket, address, settings, deadline);
			session = std::move(candidate);
		});
	session->setAddressAttempts(result.attempts);
	return session;
}


void ProtocolSessionFactory::setNoticeHandler(const NoticeHandler& handler)
{
	_noticeHandler = handler;
}


const Dialer& ProtocolSessionFactory::dialer() const
{
	return _dialer;
}

} // namespace BlueTusk
