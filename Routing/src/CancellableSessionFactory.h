//
// CancellableSessionFactory.h
//
// Library: BlueTusk/Routing
//
// The SessionFactory the router gives its pools: it forwards to the connector's factory and lets a racing
// attempt be cancelled (EndpointPool::openReserved() has no cancellation parameter, so the racing thread
// names its OpenCancellation in a thread-local slot for the duration of the call).
//

#ifndef BlueTusk_Detail_CancellableSessionFactory_INCLUDED
#define BlueTusk_Detail_CancellableSessionFactory_INCLUDED

#include "BlueTusk/Session.h"

namespace BlueTusk {
namespace Detail {

class CancellableSessionFactory: public SessionFactory
	/// Forwards open() to the wrapped factory: to openCancellable() when the calling thread runs inside a
	/// CancellationScope, to open() otherwise. Thread-safe.
{
public:
	explicit CancellableSessionFactory(SessionFactory::Ptr inner);
	~CancellableSessionFactory();

	Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) override;
	Session::Ptr openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
		const OpenCancellation& cancellation) override;

	const SessionFactory::Ptr& inner() const;

private:
	SessionFactory::Ptr _inner;
};


class CancellationScope
	/// While alive, opens through a CancellableSessionFactory on this thread use cancellation.
{
public:
	explicit CancellationScope(const OpenCancellation& cancellation);
	~CancellationScope();

	static const OpenCancellation* current();

private:
	CancellationScope(const CancellationScope&) = delete;
	CancellationScope& operator = (const CancellationScope&) = delete;

	const OpenCancellation* _previous;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_CancellableSessionFactory_INCLUDED
