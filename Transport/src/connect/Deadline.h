//
// Deadline.h
//
// Library: BlueTusk/Transport
//
// One point in (monotonic) time by which a whole multi-step operation must be done.
//

#ifndef BlueTusk_Deadline_INCLUDED
#define BlueTusk_Deadline_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Clock.h"
#include "Poco/Timespan.h"

namespace BlueTusk {

class CancellationWatch;


class BlueTusk_Transport_API Deadline
	/// The single deadline of one host connection attempt (doc/transport.md: resolving, every address,
	/// TLS, startup, authentication and the role probe share Timeout). Measured on the monotonic
	/// Poco::Clock. A zero timeout means "no deadline". Value type; immutable after construction, so
	/// thread-safe to share. It may carry the CancellationWatch of a cancellable open, with which the
	/// Dialer and ProtocolSession register the sockets they open.
{
public:
	Deadline();
		/// No deadline (unlimited).

	explicit Deadline(const Poco::Timespan& timeout);
		/// Expires timeout after now; a zero (or negative) timeout means unlimited.

	Deadline(const Poco::Timespan& timeout, CancellationWatch* watch);
		/// As above, for an open that watch may cancel (the watch must outlive the deadline's use).

	bool isUnlimited() const;

	bool expired() const;
		/// True when a limited deadline has passed.

	Poco::Timespan timeout() const;
		/// The timeout it was created with (0 for unlimited).

	Poco::Timespan remaining() const;
		/// Time left; may be zero or negative when expired. Poco::Timespan(0) for an unlimited deadline
		/// (check isUnlimited()).

	Poco::Timespan socketTimeout() const;
		/// The value to give a socket timeout now: Poco::Timespan(0) ("no timeout") when unlimited,
		/// otherwise the time left but at least 1 ms (so an expired deadline fails at once).

	Poco::Timespan elapsed() const;
		/// Time since the deadline was created.

	CancellationWatch* watch() const;
		/// The cancellation watch, or null.

	bool isCancelled() const;
		/// True when a watch is attached and the open was cancelled.

private:
	Poco::Clock _start;
	Poco::Timespan _timeout;
	CancellationWatch* _watch = nullptr;
};

} // namespace BlueTusk

#endif // BlueTusk_Deadline_INCLUDED
