//
// Notification.h
//
// Library: BlueTusk/Transport
//
// One asynchronous notification (NOTIFY) received by a session that LISTENs.
//

#ifndef BlueTusk_Notification_INCLUDED
#define BlueTusk_Notification_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {

struct BlueTusk_Transport_API Notification
	/// A NotificationResponse (PostgreSQL docs 55.2.7 and the NOTIFY command): the channel, the payload
	/// (empty when none was given) and the process id of the notifying backend.
{
	std::string channel;
	std::string payload;
	Poco::Int32 processId = 0;
};

} // namespace BlueTusk

#endif // BlueTusk_Notification_INCLUDED
