//
// ProtocolSessionFactory.cpp
//
// Library: BlueTusk/Transport
//

#include "ProtocolSessionFactory.h"
#include "BlueTusk/StartupGate.h"
#include "connect/PeerCredentials.h"
#include "connect/CancellationWatch.h"

namespace BlueTusk {

SessionFactory::Ptr makeStandardSessionFactory()
{
	return std::make_shared<ProtocolSessionFactory>();
}


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
	StartupGate* gate = cancellation.startupGate();
	try
	{
		// A parallel race: wait for this attempt's turn to connect (StartupGate.h).
		if (gate && !gate->awaitConnect(cancellation, deadline)) throw BlueTuskTransportException(cancelled);
		return openSession(endpoint, settings, deadline, &cancellation);
	}
	catch (BlueTuskTransportException&)
	{
		if (gate) gate->leave(cancellation);
		throw;
	}
	catch (Poco::Exception&)
	{
		if (gate) gate->leave(cancellation);
		if (watch.isCancelled()) throw BlueTuskTransportException(cancelled);
		throw;
	}
	catch (...)
	{
		if (gate) gate->leave(cancellation);
		throw;
	}
}


std::unique_ptr<ProtocolSession> ProtocolSessionFactory::openSession(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) const
{
	return openSession(endpoint, settings, Deadline(settings.connectTimeout));
}


std::unique_ptr<ProtocolSession> ProtocolSessionFactory::openSession(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings, const Deadline& deadline,
	const OpenCancellation* race) const
{
	try
	{
		return openUnredacted(endpoint, settings, deadline, race);
	}
	catch (Poco::Exception& exc)
	{
		// the one way out of Transport for a connect failure: its messages pass the settings' redactor
		settings.redactor().rethrow(exc);
	}
}


std::unique_ptr<ProtocolSession> ProtocolSessionFactory::openUnredacted(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
	const Deadline& deadline, const OpenCancellation* race) const
{
	std::unique_ptr<ProtocolSession> session;
	StartupGate* gate = race ? race->startupGate() : nullptr;
	Dialer::Result result = _dialer.dial(endpoint, deadline, Dialer::SocketOptions::from(settings),
		[&](Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress& address)
		{
			// A parallel race: the socket is connected; wait for this attempt's turn before the server
			// starts working for it (StartupGate.h). A later address of the same host keeps the turn.
			if (gate && !gate->enter(*race, deadline))
				throw BlueTuskTransportException("connection attempt to " + endpoint.toString() + " cancelled");
			PeerCredentials::check(socket, settings.requirePeer, endpoint); // libpq's requirepeer: before anything is sent
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
