//
// BlueTuskHostEndpoint.h
//
// Library: BlueTusk/Foundation
//
// One host endpoint of a connection string: the host as written and its port.
//

#ifndef BlueTusk_BlueTuskHostEndpoint_INCLUDED
#define BlueTusk_BlueTuskHostEndpoint_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <cstddef>
#include <functional>
#include <string>

namespace BlueTusk {

class BlueTusk_Foundation_API BlueTuskHostEndpoint
	/// A host as written in the connection string (a name, an IPv4 or IPv6 literal without brackets, or a
	/// Unix-socket directory beginning with '/') and its TCP port (for a socket directory, the port that
	/// names the socket file <dir>/.s.PGSQL.<port>; PostgreSQL docs 34.1.1.2 "Parameter Key Words").
	/// Value semantics: copyable, comparable, ordered, hashable. Immutable, so thread-safe to share.
{
public:
	enum Kind
	{
		HOST_NAME,    /// a name to resolve ("db-a", "localhost")
		IPV4_LITERAL, /// "127.0.0.1"
		IPV6_LITERAL, /// "::1" (stored without brackets)
		UNIX_SOCKET   /// a socket directory ("/var/run/postgresql")
	};

	BlueTuskHostEndpoint();
		/// An empty endpoint (host "", port 5432).

	BlueTuskHostEndpoint(const std::string& host, Poco::UInt16 port = 5432);
		/// Creates the endpoint; the kind is derived from the host text. An IPv6 literal may be given with
		/// or without brackets; it is stored without them.

	BlueTuskHostEndpoint(const std::string& host, Poco::UInt16 port, const std::string& address);
		/// An endpoint whose host is connected to at address (libpq's hostaddr: a numeric IPv4 or IPv6
		/// address, no brackets) instead of by resolving or using host; host keeps serving TLS (SNI,
		/// verify-full) and the password file, as in libpq (PostgreSQL docs 34.1.2, "hostaddr"). An empty
		/// address is the same as the two-argument constructor.

	const std::string& host() const;
		/// The host as written (IPv6 without brackets).

	Poco::UInt16 port() const;
		/// The port, 1..65535.

	const std::string& address() const;
		/// The hostaddr to connect to instead of host, or "" (none).

	Kind kind() const;
		/// The kind of host (a host with an address() keeps its own kind).

	bool isUnixSocket() const;

	std::string unixSocketPath() const;
		/// "<dir>/.s.PGSQL.<port>" for a socket directory, else "".

	std::string toString() const;
		/// The display form: "db-a:5432", "127.0.0.1:5432", "[::1]:5432", "/var/run/postgresql:5432". The
		/// address() is not shown (the Dialer's attempts name it).

	bool operator == (const BlueTuskHostEndpoint& other) const;
	bool operator != (const BlueTuskHostEndpoint& other) const;
	bool operator < (const BlueTuskHostEndpoint& other) const;
		/// Orders by host text, then port, then address. Endpoints that differ only in address() are
		/// different endpoints (different servers, separate pools).

	std::size_t hash() const;

	static Kind kindOf(const std::string& host);
		/// The kind of a host text (brackets are stripped first).

private:
	std::string _host;
	Poco::UInt16 _port;
	Kind _kind;
	std::string _address;
};

} // namespace BlueTusk


namespace std {

template <>
struct hash<BlueTusk::BlueTuskHostEndpoint>
{
	std::size_t operator () (const BlueTusk::BlueTuskHostEndpoint& endpoint) const noexcept
	{
		return endpoint.hash();
	}
};

} // namespace std

#endif // BlueTusk_BlueTuskHostEndpoint_INCLUDED
