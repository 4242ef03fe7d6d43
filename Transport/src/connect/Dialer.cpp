//
// Dialer.cpp
//
// Library: BlueTusk/Transport
//

#include "Dialer.h"
#include "BlueTusk/BlueTuskException.h"
#include "CancellationWatch.h"
#include "protocol/SigpipeGuard.h"
#include "Poco/Clock.h"
#include "Poco/Error.h"
#include "Poco/Logger.h"
#include "Poco/NumberFormatter.h"
#include "Poco/Net/IPAddress.h"
#include "Poco/Net/NetException.h"
#include "Poco/Net/SSLException.h"
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace BlueTusk {

namespace {

double millisecondsSince(const Poco::Clock& start)
{
	return static_cast<double>(start.elapsed()) / 1000.0;
}


void closeQuietly(Poco::Net::StreamSocket& socket, const Deadline& deadline)
{
	if (deadline.watch()) deadline.watch()->remove(socket);
	try
	{
		Detail::SigpipeGuard guard; // a TLS socket writes close_notify
		socket.close();
	}
	catch (...)
	{
	}
}


std::string removeAll(std::string text, const std::string& what)
{
	if (what.empty()) return text;
	for (std::string::size_type pos = text.find(what); pos != std::string::npos; pos = text.find(what))
	{
		std::string::size_type begin = pos;
		if (begin >= 2 && text.compare(begin - 2, 2, ": ") == 0) begin -= 2;
		text.erase(begin, pos + what.size() - begin);
	}
	return text;
}

} // namespace


Dialer::Dialer():
	_resolver(Resolver::defaultResolver())
{
}


Dialer::Dialer(Resolver::Ptr resolver):
	_resolver(resolver ? resolver : Resolver::defaultResolver())
{
}


Dialer::~Dialer()
{
}


const Resolver::Ptr& Dialer::resolver() const
{
	return _resolver;
}


std::vector<Poco::Net::SocketAddress> Dialer::addressesOf(const BlueTuskHostEndpoint& endpoint) const
{
	std::vector<Poco::Net::SocketAddress> addresses;
	if (!endpoint.address().empty())
	{
		// libpq's hostaddr: connect to this address, the host name serves TLS and the password file only
		addresses.emplace_back(Poco::Net::IPAddress(endpoint.address()), endpoint.port());
		return addresses;
	}
	switch (endpoint.kind())
	{
	case BlueTuskHostEndpoint::UNIX_SOCKET:
		addresses.emplace_back(Poco::Net::SocketAddress::UNIX_LOCAL, endpoint.unixSocketPath());
		break;
	case BlueTuskHostEndpoint::IPV4_LITERAL:
	case BlueTuskHostEndpoint::IPV6_LITERAL:
		addresses.emplace_back(Poco::Net::IPAddress(endpoint.host()), endpoint.port());
		break;
	case BlueTuskHostEndpoint::HOST_NAME:
		try
		{
			addresses = _resolver->resolve(endpoint.host(), endpoint.port());
			if (addresses.empty()) throw Poco::Net::NoAddressFoundException(endpoint.host());
		}
		catch (Poco::Exception& exc)
		{
			AddressAttempt attempt;
			attempt.address = endpoint.host();
			attempt.outcome = AddressAttempt::OTHER;
			// libpq's words: 'could not translate host name "db-a" to address: Name or service not known'
			// (the resolver's exceptions carry "<host>: <gai_strerror text>")
			std::string reason = exc.message();
			if (reason.compare(0, endpoint.host().size() + 2, endpoint.host() + ": ") == 0) reason.erase(0, endpoint.host().size() + 2);
			else if (reason == endpoint.host() || reason.empty()) reason = exc.displayText();
			attempt.errorText = "could not translate host name \"" + endpoint.host() + "\" to address: " + reason;
			throw BlueTuskTransportException(endpoint.toString(), AddressAttemptList{attempt});
		}
		break;
	}
	return addresses;
}


Dialer::SocketOptions Dialer::SocketOptions::from(const ConnectionSettings& settings)
{
	SocketOptions options;
	options.keepalive = settings.keepalive;
	options.keepaliveInterval = settings.keepaliveInterval;
	options.keepaliveCount = settings.keepaliveCount;
	options.keepalives = settings.keepalives;
	options.tcpUserTimeout = settings.tcpUserTimeout;
	return options;
}


bool Dialer::SocketOptions::keepalivesOn() const
{
	if (keepalives == ConnectionSettings::Keepalives::Off) return false;
	if (keepalives == ConnectionSettings::Keepalives::On) return true;
	return keepalive.totalSeconds() > 0 || keepaliveInterval.totalSeconds() > 0 || keepaliveCount > 0;
}


bool Dialer::SocketOptions::empty() const
{
	return !keepalivesOn() && tcpUserTimeout.totalMilliseconds() <= 0;
}


Dialer::Result Dialer::dial(const BlueTuskHostEndpoint& endpoint, const Deadline& deadline, const Setup& setup) const
{
	return dial(endpoint, deadline, SocketOptions(), setup);
}


Dialer::Result Dialer::dial(const BlueTuskHostEndpoint& endpoint, const Deadline& deadline, const SocketOptions& options, const Setup& setup) const
{
	static Poco::Logger& logger = Poco::Logger::get("BlueTusk.Transport");
	const std::vector<Poco::Net::SocketAddress> addresses = addressesOf(endpoint);
	AddressAttemptList attempts;
	for (std::size_t index = 0; index < addresses.size(); ++index)
	{
		const Poco::Net::SocketAddress& address = addresses[index];
		if (deadline.isCancelled()) break;
		AddressAttempt attempt;
		attempt.address = describe(address);
		if (deadline.expired())
		{
			attempt.outcome = AddressAttempt::NOT_ATTEMPTED;
			attempt.errorText = "the connect timeout of " + Poco::NumberFormatter::format(deadline.timeout().totalMilliseconds()) + " ms had run out";
			attempts.push_back(attempt);
			continue;
		}
		Poco::Clock started;
		Poco::Net::StreamSocket socket;
		try
		{
			// The TCP connect gets a fair share of the time left (as Npgsql), so one black-holed address
			// cannot use up the deadline of the addresses after it; the last address gets all of it.
			const std::size_t left = addresses.size() - index;
			if (deadline.isUnlimited() || left == 1)
				socket = connect(address, deadline);
			else
				socket = connect(address, Deadline(Poco::Timespan(deadline.remaining().totalMicroseconds() / static_cast<Poco::Timespan::TimeDiff>(left)), deadline.watch()));
			applyOptions(socket, options);
			if (setup)
			{
				setup(socket, address);
				applyOptions(socket, options); // Setup may have reconnected (sslmode allow/prefer)
			}
			attempt.outcome = AddressAttempt::CONNECTED;
			attempt.elapsedMs = millisecondsSince(started);
			attempts.push_back(attempt);
			Result result;
			result.socket = socket;
			result.address = address;
			result.attempts.swap(attempts);
			return result;
		}
		catch (Poco::Exception& exc)
		{
			closeQuietly(socket, deadline);
			if (deadline.isCancelled()) break;
			if (!isRetryable(exc)) throw;
			attempt.outcome = classify(exc);
			attempt.errorText = errorText(exc, address);
			attempt.elapsedMs = millisecondsSince(started);
			if (logger.debug()) logger.debug("%s: %s", endpoint.toString(), attempt.toString());
			attempts.push_back(attempt);
		}
	}
	if (deadline.isCancelled())
		throw BlueTuskTransportException("connection attempt to " + endpoint.toString() + " cancelled");
	throw BlueTuskTransportException(endpoint.toString(), attempts);
}


Dialer::Result Dialer::dial(const BlueTuskHostEndpoint& endpoint, const Poco::Timespan& timeout) const
{
	return dial(endpoint, Deadline(timeout));
}


Poco::Net::StreamSocket Dialer::connect(const Poco::Net::SocketAddress& address, const Deadline& deadline)
{
	if (deadline.expired()) throw Poco::TimeoutException("the connect timeout had run out before connecting");
	if (deadline.isCancelled()) throw Poco::Net::NetException("connection attempt cancelled");
	Poco::Net::StreamSocket socket(address.family());
	CancellationWatch* watch = deadline.watch();
	if (watch) watch->add(socket);
	try
	{
		if (deadline.isUnlimited())
			socket.connect(address);
		else
			socket.connect(address, deadline.socketTimeout());
		if (address.family() != Poco::Net::SocketAddress::UNIX_LOCAL)
			socket.setNoDelay(true);
	}
	catch (...)
	{
		closeQuietly(socket, deadline);
		throw;
	}
	return socket;
}


void Dialer::applyOptions(Poco::Net::StreamSocket& socket, const SocketOptions& options)
{
	if (options.empty() || socket.address().family() == Poco::Net::SocketAddress::UNIX_LOCAL) return;
	const poco_socket_t fd = socket.impl()->sockfd();
	auto set = [fd](int level, int name, int value, const char* what)
	{
		if (::setsockopt(fd, level, name, &value, sizeof(value)) != 0)
		{
			const int error = errno;
			throw Poco::Net::NetException(std::string("cannot set ") + what + " to " + std::to_string(value) + ": " + Poco::Error::getMessage(error), error);
		}
	};
	if (options.keepalivesOn())
	{
		const int idle = static_cast<int>(options.keepalive.totalSeconds());
		const int interval = options.keepaliveInterval.totalSeconds() > 0 ? static_cast<int>(options.keepaliveInterval.totalSeconds()) : idle;
		set(SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE");
		if (idle > 0) set(IPPROTO_TCP, TCP_KEEPIDLE, idle, "TCP_KEEPIDLE");
		if (interval > 0) set(IPPROTO_TCP, TCP_KEEPINTVL, interval, "TCP_KEEPINTVL");
		if (options.keepaliveCount > 0) set(IPPROTO_TCP, TCP_KEEPCNT, options.keepaliveCount, "TCP_KEEPCNT");
	}
	const Poco::Timespan::TimeDiff userTimeout = options.tcpUserTimeout.totalMilliseconds();
	if (userTimeout > 0)
		set(IPPROTO_TCP, TCP_USER_TIMEOUT, static_cast<int>(userTimeout), "TCP_USER_TIMEOUT");
}


AddressAttempt::Outcome Dialer::classify(const Poco::Exception& exc)
{
	if (dynamic_cast<const Poco::TimeoutException*>(&exc)) return AddressAttempt::TIMED_OUT;
	if (dynamic_cast<const Poco::Net::ConnectionRefusedException*>(&exc)) return AddressAttempt::REFUSED;
	if (dynamic_cast<const Poco::Net::ConnectionResetException*>(&exc)) return AddressAttempt::RESET;
	if (dynamic_cast<const Poco::Net::SSLException*>(&exc)) return AddressAttempt::TLS_FAILURE;
	if (dynamic_cast<const BlueTuskSessionBrokenException*>(&exc))
	{
		int code = exc.code();
		if (code > AddressAttempt::CONNECTED && code <= AddressAttempt::OTHER) return static_cast<AddressAttempt::Outcome>(code);
		return AddressAttempt::CLOSED;
	}
	if (dynamic_cast<const BlueTuskProtocolException*>(&exc)) return AddressAttempt::PROTOCOL_ERROR;
	if (dynamic_cast<const BlueTuskServerException*>(&exc)) return AddressAttempt::SERVER_ERROR;
	if (dynamic_cast<const Poco::Net::NetException*>(&exc) || dynamic_cast<const Poco::IOException*>(&exc))
	{
		switch (exc.code())
		{
		case ECONNREFUSED:
		case ENOENT:
			return AddressAttempt::REFUSED;
		case ETIMEDOUT:
		case EAGAIN:
			return AddressAttempt::TIMED_OUT;
		case EHOSTUNREACH:
		case ENETUNREACH:
		case EHOSTDOWN:
		case ENETDOWN:
		case EADDRNOTAVAIL:
			return AddressAttempt::UNREACHABLE;
		case ECONNRESET:
		case EPIPE:
		case ECONNABORTED:
			return AddressAttempt::RESET;
		default:
			break;
		}
	}
	return AddressAttempt::OTHER;
}


bool Dialer::isRetryable(const Poco::Exception& exc)
{
	return dynamic_cast<const Poco::IOException*>(&exc)
		|| dynamic_cast<const Poco::TimeoutException*>(&exc)
		|| dynamic_cast<const BlueTuskSessionBrokenException*>(&exc)
		|| dynamic_cast<const BlueTuskProtocolException*>(&exc);
}


std::string Dialer::errorText(const Poco::Exception& exc, const Poco::Net::SocketAddress& address)
{
	const std::string where = describe(address);
	// Socket errors carry the errno as code (Poco::Net::SocketImpl::error); give the system's text for it.
	const bool net = dynamic_cast<const Poco::IOException*>(&exc) && !dynamic_cast<const Poco::Net::SSLException*>(&exc) &&
		!dynamic_cast<const BlueTuskException*>(&exc);
	if (net && exc.code() > 0)
		return Poco::Error::getMessage(exc.code());
	if (dynamic_cast<const Poco::Net::ConnectionRefusedException*>(&exc))
		return Poco::Error::getMessage(ECONNREFUSED);
	if (dynamic_cast<const Poco::Net::ConnectionResetException*>(&exc))
		return Poco::Error::getMessage(ECONNRESET);
	if (dynamic_cast<const Poco::TimeoutException*>(&exc))
	{
		std::string text = removeAll(exc.message(), where);
		return text.empty() ? std::string("timed out") : text;
	}
	// TLS: the outcome says "TLS failure" already; the message is the cause ("server certificate verification
	// failed: ...", "root certificate file ... does not exist"), without Poco's name for the exception
	if (dynamic_cast<const BlueTuskException*>(&exc) || dynamic_cast<const Poco::Net::SSLException*>(&exc))
	{
		std::string text = removeAll(exc.message(), where);
		return text.empty() ? std::string(exc.name()) : text;
	}
	std::string text = removeAll(exc.message(), where);
	if (text.empty()) return exc.name();
	return std::string(exc.name()) + ": " + text;
}


std::string Dialer::describe(const Poco::Net::SocketAddress& address)
{
	if (address.family() == Poco::Net::SocketAddress::UNIX_LOCAL) return address.toString();
	if (address.family() == Poco::Net::SocketAddress::IPv6) return "[" + address.host().toString() + "]:" + std::to_string(address.port());
	return address.host().toString() + ":" + std::to_string(address.port());
}

} // namespace BlueTusk
