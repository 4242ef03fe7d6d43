//
// Deadline.cpp
//
// Library: BlueTusk/Transport
//

#include "Deadline.h"
#include "CancellationWatch.h"

namespace BlueTusk {

Deadline::Deadline():
	_timeout(0)
{
}


Deadline::Deadline(const Poco::Timespan& timeout):
	_timeout(timeout.totalMicroseconds() > 0 ? timeout : Poco::Timespan(0))
{
}


Deadline::Deadline(const Poco::Timespan& timeout, CancellationWatch* watch):
	_timeout(timeout.totalMicroseconds() > 0 ? timeout : Poco::Timespan(0)),
	_watch(watch)
{
}


CancellationWatch* Deadline::watch() const
{
	return _watch;
}


bool Deadline::isCancelled() const
{
	return _watch && _watch->isCancelled();
}


bool Deadline::isUnlimited() const
{
	return _timeout.totalMicroseconds() == 0;
}


bool Deadline::expired() const
{
	return !isUnlimited() && _start.elapsed() >= _timeout.totalMicroseconds();
}


Poco::Timespan Deadline::timeout() const
{
	return _timeout;
}


Poco::Timespan Deadline::remaining() const
{
	if (isUnlimited()) return Poco::Timespan(0);
	return Poco::Timespan(_timeout.totalMicroseconds() - _start.elapsed());
}


Poco::Timespan Deadline::socketTimeout() const
{
	if (isUnlimited()) return Poco::Timespan(0);
	Poco::Timespan left = remaining();
	if (left.totalMicroseconds() < 1000) return Poco::Timespan(1000);
	return left;
}


Poco::Timespan Deadline::elapsed() const
{
	return Poco::Timespan(_start.elapsed());
}

} // namespace BlueTusk
