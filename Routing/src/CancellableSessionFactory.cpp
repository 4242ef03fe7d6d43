//
// CancellableSessionFactory.cpp
//
// Library: BlueTusk/Routing
//

#include "CancellableSessionFactory.h"

namespace BlueTusk {
namespace Detail {

namespace {

thread_local const OpenCancellation* currentCancellation = nullptr;

} // namespace


CancellableSessionFactory::CancellableSessionFactory(SessionFactory::Ptr inner):
	_inner(std::move(inner))
{
}


CancellableSessionFactory::~CancellableSessionFactory()
{
}


Session::Ptr CancellableSessionFactory::open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings)
{
	const OpenCancellation* cancellation = CancellationScope::current();
	if (cancellation) return _inner->openCancellable(endpoint, settings, *cancellation);
	return _inner->open(endpoint, settings);
}


Session::Ptr CancellableSessionFactory::openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
	const OpenCancellation& cancellation)
{
	return _inner->openCancellable(endpoint, settings, cancellation);
}


const SessionFactory::Ptr& CancellableSessionFactory::inner() const
{
	return _inner;
}


CancellationScope::CancellationScope(const OpenCancellation& cancellation):
	_previous(currentCancellation)
{
	currentCancellation = &cancellation;
}


CancellationScope::~CancellationScope()
{
	currentCancellation = _previous;
}


const OpenCancellation* CancellationScope::current()
{
	return currentCancellation;
}

} } // namespace BlueTusk::Detail
