//
// NotificationListener.h
//
// Library: BlueTusk/Routing
//
// LISTEN that outlives failovers: a session of its own to a target (default primary) that, when its server
// goes away, reconnects through the router, LISTENs again on the same channels and reports the gap.
//

#ifndef BlueTusk_NotificationListener_INCLUDED
#define BlueTusk_NotificationListener_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/Notification.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include <deque>
#include <set>
#include <string>
#include <vector>

namespace BlueTusk {

class RoutingContext;
class BlueTuskDataSource;


struct BlueTusk_Routing_API ListenerEvent
	/// What NotificationListener::wait() hands out: a notification, or the news that the listener's
	/// session was lost and a new one now listens (notifications sent in between may have been missed:
	/// PostgreSQL keeps none for a disconnected listener; docs, NOTIFY).
{
	enum class Kind
	{
		Notification,  /// `notification` holds one NotificationResponse
		Reconnected    /// the session was lost; `previousEndpoint`, `reason`, `lostAt` and `reconnectedAt` say
		               /// when and where; every channel is listened to again on `endpoint`
	};

	Kind kind = Kind::Notification;
	Notification notification;              /// Kind::Notification only
	BlueTuskHostEndpoint endpoint;          /// the endpoint the listener is connected to now
	BlueTuskHostEndpoint previousEndpoint;  /// Reconnected: the endpoint whose session was lost
	std::string reason;                     /// Reconnected: why it was lost (the exception's text, no secret)
	Poco::Timestamp lostAt;                 /// Reconnected: when the loss was noticed
	Poco::Timestamp reconnectedAt;          /// Reconnected: when the new session had LISTENed again
};


class BlueTusk_Routing_API NotificationListener
	/// Holds one unpooled session (BlueTuskConnection::open through the router) to a target, LISTENs on
	/// the channels given, and hands out what arrives with wait(). When the session breaks (the server shut
	/// down, crashed or was demoted, the network failed) the listener opens a new session through the
	/// router, with the connection string's Failover Timeout and the promotion watch (so a failover to a
	/// promoted standby is followed), LISTENs again on every channel and reports a ListenerEvent of kind
	/// Reconnected before any notification of the new session: the caller should re-read whatever state
	/// the notifications were about, since some may have been missed in the gap.
	///
	/// The target defaults to Primary (NOTIFY and LISTEN need a server that is not in recovery; a
	/// standby refuses LISTEN with SQLSTATE 25006). A dead server is noticed when its socket reports it:
	/// at once for a shutdown or crash (PostgreSQL sends 57P01 / the kernel closes the socket), after
	/// the Keepalive / Tcp User Timeout settings for a host that vanished from the network.
	///
	/// Not thread-safe: one thread at a time (like BlueTuskConnection). Doc: doc/bulk.md.
	///
	/// Example:
	///     NotificationListener listener("Host=db-a,db-b;Username=app;Failover Timeout=30");
	///     listener.listen("orders_placed");
	///     ListenerEvent event;
	///     while (running)
	///         if (listener.wait(Poco::Timespan(1, 0), event))
	///             event.kind == ListenerEvent::Kind::Reconnected ? reloadOrders() : handle(event.notification);
{
public:
	explicit NotificationListener(const std::string& connectionString, TargetSessionAttributes target = TargetSessionAttributes::Primary);
		/// Opens the session now, through RoutingContext::defaultContext(). The connection string's own
		/// Target Session Attributes is replaced by target. Throws as BlueTuskConnection::open().

	NotificationListener(const ConnectionSettings& settings, RoutingContext& connector, TargetSessionAttributes target = TargetSessionAttributes::Primary);
		/// As above, with parsed settings, through connector (its plugins and learned host states).

	NotificationListener(const BlueTuskDataSource& dataSource, TargetSessionAttributes target = TargetSessionAttributes::Primary);
		/// As above with the data source's settings and connector; the session is not one of its leases.

	~NotificationListener();
		/// Closes the session (the server drops its LISTENs with it).

	void listen(const std::string& channel);
		/// LISTEN channel (quoted as an identifier: case and spaces are kept) now, and again after every
		/// reconnect. Listening twice is harmless. Throws BlueTuskUsageException for an empty channel, one
		/// longer than 63 bytes (NAMEDATALEN - 1) or one containing a NUL; BlueTuskServerException when the
		/// server refuses it. When the session is lost just then, the channel is kept and LISTENed at the
		/// reconnect that the next wait() makes.

	void unlisten(const std::string& channel);
		/// UNLISTEN channel now and stops listening to it after reconnects. Throws as listen().

	bool wait(const Poco::Timespan& timeout, ListenerEvent& event);
		/// The next event, waiting up to timeout (no polling of the server: the socket is watched).
		/// Notifications already queued (also those that arrived during listen()) come first, oldest
		/// first; notifications still queued on a lost session are handed out before its Reconnected event.
		/// When the session is lost, wait() reconnects at once: that open is bounded by Failover Timeout
		/// (plus one connect Timeout) and not by timeout, so a wait during a failover returns once the
		/// listener has a new session (event Reconnected) or the open gave up. False when nothing came in
		/// time. Throws the open's exception (HostAttemptsException, BlueTuskAuthenticationException, ...)
		/// or BlueTuskServerException from LISTEN when no new session could be set up; the listener stays
		/// usable and the next wait() tries again (the gap is then reported once it succeeds).

	const std::set<std::string>& channels() const;
		/// The channels listened to.

	bool isConnected() const;
		/// True while the listener holds a session that was usable after its last command.

	BlueTuskHostEndpoint endpoint() const;
		/// The endpoint of the current session (the previous one while reconnecting).

	Poco::UInt64 reconnects() const;
		/// How many times the session was lost and replaced (Reconnected events).

	Poco::UInt64 notificationsDropped() const;
		/// Notifications dropped because a session's queue overflowed (Session::notificationsDropped()),
		/// summed over every session this listener held.

private:
	NotificationListener(const NotificationListener&) = delete;
	NotificationListener& operator = (const NotificationListener&) = delete;

	void connect();
	void lose(const std::string& reason);
	void sendListen(const std::string& command, const std::string& channel);

	ConnectionSettings _settings;
	RoutingContext& _connector;
	mutable BlueTuskConnection _connection;   /// mutable: Session's counters are read through a non-const session()
	std::set<std::string> _channels;
	std::deque<ListenerEvent> _pending;
	BlueTuskHostEndpoint _endpoint;
	bool _lost = false;
	std::string _lostReason;
	Poco::Timestamp _lostAt;
	Poco::UInt64 _reconnects = 0;
	Poco::UInt64 _dropped = 0;
};

} // namespace BlueTusk

#endif // BlueTusk_NotificationListener_INCLUDED
