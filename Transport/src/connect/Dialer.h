//
// Dialer.h
//
// Library: BlueTusk/Transport
//
// Connecting to one host endpoint: resolve once, try each address in order under one deadline, and
// record what happened to each address.
//

#ifndef BlueTusk_Dialer_INCLUDED
#define BlueTusk_Dialer_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/ConnectionSettings.h"
#include "Deadline.h"
#include "Resolver.h"
#include "Poco/Exception.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include <functional>
#include <vector>

namespace BlueTusk {

class BlueTusk_Transport_API Dialer
	/// Opens the socket of one physical connection to one BlueTuskHostEndpoint (doc/transport.md):
	///   1. The addresses: an endpoint with an address() (libpq's hostaddr) is connected there and not
	///      resolved; a host name is resolved once with the Resolver (resolver order, both families);
	///      an IP literal is used as is; a socket directory gives the Unix-domain socket
	///      "<dir>/.s.PGSQL.<port>".
	///   2. Each address is tried in order, all under ONE Deadline. For each, the TCP (or Unix) connect runs,
	///      then the optional Setup (TLS, startup, authentication, probe) on the connected socket. The
	///      connect of address i (of n) may use at most the time left divided by (n - i), as Npgsql does,
	///      so a black-holed address cannot use up the time of the addresses after it; the Setup may use
	///      all the time left.
	///   3. Each address gives one AddressAttempt (address, outcome, error text, elapsed ms). A failure of
	///      network class (see isRetryable()) moves on to the next address; once the deadline has run out
	///      the remaining addresses are recorded as NOT_ATTEMPTED.
	///   4. The first address whose connect and Setup succeed wins. When every address failed,
	///      BlueTuskTransportException(endpoint.toString(), attempts) is thrown; its message names the
	///      endpoint and each address with its outcome, attempts() gives them as data.
	/// A Setup exception that is not retryable (BlueTuskServerException, BlueTuskAuthenticationException,
	/// any other non-network error) closes the socket and propagates unchanged at once: a server error or
	/// an authentication failure is not retried on other addresses.
	///
	/// Thread-safety: a Dialer is immutable after construction; dial() may run on many threads at once
	/// (the resolver must be thread-safe).
{
public:
	using Setup = std::function<void(Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress& address)>;
		/// Runs on a freshly connected socket before the address counts as connected. It may replace the
		/// socket (e.g. with a Poco::Net::SecureStreamSocket after the TLS upgrade) or reconnect it with
		/// connect() (sslmode allow/prefer retries); it must honour the deadline it captured (socket
		/// timeouts no longer than Deadline::socketTimeout()). Throw to fail the address.

	struct SocketOptions
		/// TCP options set on every TCP socket a dial opens (doc/high-availability.md, hung servers); none are
		/// set on Unix-domain sockets. Zero leaves an option at the operating system's default.
	{
		Poco::Timespan keepalive;      /// idle time before the first keepalive probe (TCP_KEEPIDLE, whole
		                               /// seconds), and between probes unless keepaliveInterval is set
		Poco::Timespan keepaliveInterval; /// time between probes (TCP_KEEPINTVL, whole seconds)
		int keepaliveCount = 0;        /// unanswered probes before the kernel drops the connection (TCP_KEEPCNT)
		ConnectionSettings::Keepalives keepalives = ConnectionSettings::Keepalives::Unset;
			/// libpq's keepalives switch: Off sets no keepalive option at all, On turns SO_KEEPALIVE on
			/// even without the three above (the system's timing), Unset turns it on when one of them is set
		Poco::Timespan tcpUserTimeout; /// TCP_USER_TIMEOUT in whole milliseconds

		static SocketOptions from(const ConnectionSettings& settings);
			/// Keepalive, Keepalives, Keepalives Interval, Keepalives Count and Tcp User Timeout of settings.

		bool keepalivesOn() const;
			/// Whether SO_KEEPALIVE is to be turned on (see keepalives).

		bool empty() const;
			/// True when no option is to be set.
	};

	struct Result
		/// A connected socket and how it was reached.
	{
		Poco::Net::StreamSocket socket;   /// connected (and set up); blocking
		Poco::Net::SocketAddress address; /// the address that worked
		AddressAttemptList attempts;      /// every address tried, in order; the last one is CONNECTED
	};

	Dialer();
		/// Uses Resolver::defaultResolver().

	explicit Dialer(Resolver::Ptr resolver);
		/// Uses resolver for host names (a null pointer means Resolver::defaultResolver()).

	~Dialer();

	const Resolver::Ptr& resolver() const;

	std::vector<Poco::Net::SocketAddress> addressesOf(const BlueTuskHostEndpoint& endpoint) const;
		/// The addresses to try for endpoint, in order (resolving a host name once). Throws
		/// BlueTuskTransportException (one attempt with the host name as address, outcome OTHER and the
		/// resolver's error text) when a name cannot be resolved.

	Result dial(const BlueTuskHostEndpoint& endpoint, const Deadline& deadline, const Setup& setup = Setup()) const;
		/// Resolves endpoint and tries each address in order under deadline, as described above.
		/// Throws BlueTuskTransportException when every address failed (or resolving failed), or whatever
		/// non-retryable exception setup threw. When deadline carries a CancellationWatch that fires, no
		/// further address is tried and BlueTuskTransportException "connection attempt to <endpoint>
		/// cancelled" is thrown (sockets opened here are registered with the watch).

	Result dial(const BlueTuskHostEndpoint& endpoint, const Deadline& deadline, const SocketOptions& options, const Setup& setup = Setup()) const;
		/// As dial(endpoint, deadline, setup), with options applied to each TCP socket right after its
		/// connect (so they cover TLS, startup and authentication) and again to the socket Setup leaves
		/// (Setup may have reconnected it, e.g. for sslmode allow/prefer). Throws as dial() does; a
		/// setsockopt failure fails the address like a network error (Poco::Net::NetException, errno as code).

	Result dial(const BlueTuskHostEndpoint& endpoint, const Poco::Timespan& timeout) const;
		/// dial(endpoint, Deadline(timeout)) without setup: TCP / Unix-socket connect only.

	static Poco::Net::StreamSocket connect(const Poco::Net::SocketAddress& address, const Deadline& deadline);
		/// Connects one address (TCP or Unix-domain) within the deadline, TCP_NODELAY on for TCP, and
		/// returns the blocking socket. Throws the Poco::Net exception of the failure
		/// (ConnectionRefusedException, Poco::TimeoutException, NetException with the errno as code, ...).

	static void applyOptions(Poco::Net::StreamSocket& socket, const SocketOptions& options);
		/// Sets options on a connected TCP socket with setsockopt on its file descriptor; does nothing for
		/// a Unix-domain socket or empty options. Throws Poco::Net::NetException (errno as code) when the
		/// kernel refuses an option. Thread-safety: as the socket's.

	static AddressAttempt::Outcome classify(const Poco::Exception& exc);
		/// The outcome an exception means: ConnectionRefused / ENOENT -> REFUSED, Timeout / ETIMEDOUT ->
		/// TIMED_OUT, EHOSTUNREACH / ENETUNREACH -> UNREACHABLE, ConnectionReset / EPIPE -> RESET,
		/// SSLException -> TLS_FAILURE, BlueTuskSessionBrokenException -> its code() when that is an
		/// Outcome (else CLOSED), BlueTuskProtocolException -> PROTOCOL_ERROR, BlueTuskServerException ->
		/// SERVER_ERROR, anything else OTHER.

	static bool isRetryable(const Poco::Exception& exc);
		/// True when a Setup failure should move on to the next address: network errors (Poco::IOException
		/// family incl. TLS errors), Poco::TimeoutException, BlueTuskSessionBrokenException and
		/// BlueTuskProtocolException. False for BlueTuskServerException, BlueTuskAuthenticationException
		/// and everything else.

	static std::string errorText(const Poco::Exception& exc, const Poco::Net::SocketAddress& address);
		/// A short error text for an AddressAttempt ("Connection refused", "no answer within 2000 ms",
		/// "server closed the connection unexpectedly"), without repeating the address.

	static std::string describe(const Poco::Net::SocketAddress& address);
		/// "127.0.0.1:5432", "[::1]:5432" or the socket path "/tmp/.s.PGSQL.5432".

private:
	Resolver::Ptr _resolver;
};

} // namespace BlueTusk

#endif // BlueTusk_Dialer_INCLUDED
