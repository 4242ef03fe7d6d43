//
// ProtocolSessionFactory.h
//
// Library: BlueTusk/Transport
//
// The real SessionFactory: Dialer + TLS + startup + authentication (+ role probe) under one deadline.
//

#ifndef BlueTusk_ProtocolSessionFactory_INCLUDED
#define BlueTusk_ProtocolSessionFactory_INCLUDED

#include "BlueTusk/Foundation.h"
#include "connect/Deadline.h"
#include "connect/Dialer.h"
#include "ProtocolSession.h"
#include "connect/Resolver.h"
#include "BlueTusk/Session.h"
#include <memory>

namespace BlueTusk {

class BlueTusk_Transport_API ProtocolSessionFactory: public SessionFactory
	/// Opens ProtocolSessions (PostgreSQL protocol 3.0) to one endpoint (doc/transport.md):
	/// one Deadline of settings.connectTimeout (0: none) covers resolving, every address, TLS, startup,
	/// authentication and, when settings.targetSessionAttributes is not Any, the role probe. The Dialer
	/// tries each address in order; on one address a network-class failure (refused, timeout, reset,
	/// closed before the session was ready, TLS failure, protocol error) moves on to the next address,
	/// while an ErrorResponse (BlueTuskServerException, sessionUsable() false) or an authentication
	/// failure (BlueTuskAuthenticationException) propagates at once.
	///
	/// Thread-safety: open() may be called from many threads at once. Configure (setNoticeHandler) before
	/// sharing the factory.
{
public:
	using Ptr = std::shared_ptr<ProtocolSessionFactory>;

	ProtocolSessionFactory();
		/// Uses the system resolver.

	explicit ProtocolSessionFactory(Resolver::Ptr resolver);
		/// Uses resolver for host names (tests: a StaticResolver). Null means the system resolver.

	~ProtocolSessionFactory();

	Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings);
		/// openSession(endpoint, settings) as a Session.
		/// Throws BlueTuskTransportException (every address failed; per-address diagnostics),
		/// BlueTuskAuthenticationException, BlueTuskServerException (e.g. 57P03 during startup) or
		/// BlueTuskProtocolException.

	Session::Ptr openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings, const OpenCancellation& cancellation);
		/// As open(), but once cancellation.cancel() is called the open gives up within a few
		/// milliseconds (a CancellationWatch shuts its sockets down; no thread or socket outlives the
		/// call) and throws BlueTuskTransportException "connection attempt to <endpoint> cancelled".
		/// A session that completed before the cancellation was seen is returned normally. When
		/// cancellation carries a StartupGate (a parallel race), the attempt waits there between its TCP
		/// connect and its first protocol byte, and leaves it when the open fails; a session that
		/// completed stays inside until the caller calls StartupGate::leave() or close().

	std::unique_ptr<ProtocolSession> openSession(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) const;
		/// As open(), with the concrete type (TLS state, authentication method, parameter statuses).

	std::unique_ptr<ProtocolSession> openSession(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings, const Deadline& deadline,
		const OpenCancellation* race = nullptr) const;
		/// As above with a deadline supplied by the caller (settings.connectTimeout is then ignored). With
		/// race and its StartupGate, each connected socket waits for its turn at the gate before the
		/// startup (false from the gate: BlueTuskTransportException "... cancelled"). Every exception
		/// leaving here (and so open() and openCancellable()) has passed settings.redactor().

	void setNoticeHandler(const NoticeHandler& handler);
		/// The notice handler given to every session opened afterwards (empty: Poco::Logger).

	const Dialer& dialer() const;

private:
	std::unique_ptr<ProtocolSession> openUnredacted(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
		const Deadline& deadline, const OpenCancellation* race) const;

	Dialer _dialer;
	NoticeHandler _noticeHandler;
};

} // namespace BlueTusk

#endif // BlueTusk_ProtocolSessionFactory_INCLUDED
