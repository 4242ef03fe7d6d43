//
// Notifications.cpp
//
// Library: BlueTusk/Transport
//
// LISTEN / NOTIFY on a ProtocolSession: NotificationResponse messages are queued whenever they arrive (also
// in the middle of other commands); waitForNotification() watches the socket for them while idle.
//

#include "ProtocolSession.h"
#include "connect/Dialer.h"
#include "Poco/Clock.h"

namespace BlueTusk {

namespace {

const std::size_t MAX_QUEUED_NOTIFICATIONS = 100000;

} // namespace


void ProtocolSession::queueNotification(const BackendMessage& message)
{
	_notifications.push_back(message.notification());
	if (_notifications.size() > MAX_QUEUED_NOTIFICATIONS)
	{
		_notifications.pop_front();
		++_notificationsDropped;
	}
}


std::vector<Notification> ProtocolSession::takeNotifications()
{
	std::vector<Notification> result(std::make_move_iterator(_notifications.begin()), std::make_move_iterator(_notifications.end()));
	_notifications.clear();
	return result;
}


Poco::UInt64 ProtocolSession::notificationsDropped() const
{
	return _notificationsDropped;
}


bool ProtocolSession::waitForNotification(const Poco::Timespan& timeout, Notification& notification)
{
	if (_notifications.empty())
	{
		ensureUsable();
		Poco::Clock started;
		BackendMessage message;
		while (_notifications.empty())
		{
			const Poco::Timespan left(timeout.totalMicroseconds() - started.elapsed());
			if (left.totalMicroseconds() <= 0) return false;
			try
			{
				// Data may already be buffered (in the reader, or decrypted inside TLS): only then skip the wait.
				if (_reader.buffered() == 0 && _socket.available() == 0 && !_socket.poll(left, Poco::Net::Socket::SELECT_READ))
					return false;
				// The whole message within the timeout, however it trickles in: every read waits only for
				// what is left of it (a partial message stays buffered for the next call).
				while (!_reader.complete())
				{
					const Poco::Timespan remaining(timeout.totalMicroseconds() - started.elapsed());
					if (remaining.totalMicroseconds() <= 0) return false;
					setReceiveTimeout(remaining.totalMicroseconds() > 1000 ? remaining : Poco::Timespan(1000));
					if (!_reader.receiveSome(_socket))
						throw BlueTuskSessionBrokenException("the server closed the connection unexpectedly", AddressAttempt::CLOSED);
				}
				_reader.next(message);
			}
			catch (Poco::TimeoutException&)
			{
				return false;   // a partial message stays buffered for the next read
			}
			catch (BlueTuskProtocolException&)
			{
				markBroken();
				closeSocket();
				throw;
			}
			catch (BlueTuskSessionBrokenException& exc)
			{
				markBroken();
				closeSocket();
				throw BlueTuskSessionBrokenException("connection to " + where() + " lost while waiting for a notification: " + exc.message(), exc.code());
			}
			catch (Poco::Exception& exc)
			{
				markBroken();
				closeSocket();
				throw BlueTuskSessionBrokenException("connection to " + where() + " lost while waiting for a notification: " +
					Dialer::errorText(exc, _address), Dialer::classify(exc));
			}
			if (message.type == 'E')
			{
				// e.g. the server shutting down (57P01) tells an idle session before it closes
				BlueTuskServerException::Fields fields = message.errorFields();
				markBroken();
				closeSocket();
				throw BlueTuskServerException(fields, false);
			}
			if (!handleAsync(message))
			{
				markBroken();
				closeSocket();
				throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " while the session was idle");
			}
		}
	}
	notification = std::move(_notifications.front());
	_notifications.pop_front();
	return true;
}

} // namespace BlueTusk
