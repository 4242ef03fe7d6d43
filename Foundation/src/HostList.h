//
// HostList.h
//
// Library: BlueTusk/Foundation
//
// The Host and Port keyword rules of doc/connection-strings.md: from the host list and the port list to the
// ordered endpoints.
//

#ifndef BlueTusk_Detail_HostList_INCLUDED
#define BlueTusk_Detail_HostList_INCLUDED

#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "Poco/Types.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

struct HostElement
	/// One element of a Host list: the host (brackets removed) and its own port, if written.
{
	std::string host;
	Poco::UInt16 port = 0; /// 0: no own port
	std::string address;   /// the hostaddr to connect to instead, or ""
};

const std::size_t maximumHostNameLength = 253;
	/// The longest host name or IP address a Host element may have (a DNS name's limit); socket
	/// directories are not bounded by it.

std::vector<HostElement> parseHostList(const std::string& hostList, const std::string& keyword, bool allowEmpty = false);
	/// Splits at ',' and reads each trimmed element: "name", "name:port", "[v6]", "[v6]:port" (brackets
	/// may enclose any host, e.g. "[/tmp/a:b]:5433"), a bare IPv6 literal (more than one ':', no port),
	/// or a socket directory (begins with '/'; a ':' in it is part of the path; no port).
	/// Throws BlueTuskConnectionStringException naming keyword for an empty list or element, an unclosed
	/// '[', text after ']', '[' or ']' elsewhere in a host that is not a socket directory, and an own
	/// port that is empty, not a number or outside 1..65535. With allowEmpty an empty element (not an empty
	/// list) gives a HostElement with an empty host instead (a hostaddr may fill it in).

std::vector<std::string> parseHostAddressList(const std::string& list, const std::string& keyword);
	/// libpq's hostaddr: ','-separated numeric IPv4 or IPv6 addresses (no brackets, no port), each trimmed;
	/// an empty element means "resolve the host". Throws BlueTuskConnectionStringException naming keyword
	/// for an element that is not a numeric address.

void applyHostAddresses(std::vector<HostElement>& hosts, const std::vector<std::string>& addresses, const std::string& hostKeyword);
	/// libpq's pairing of host and hostaddr (PostgreSQL docs 34.1.2, "hostaddr"): without hosts, each
	/// address becomes a host; otherwise the lists must have the same length, a host with an address keeps
	/// it (connect there, use the host name for TLS and the password file), and an empty host takes its
	/// address as host. Throws BlueTuskConnectionStringException for different lengths, a host and an
	/// address both empty, an address given for a socket directory, and (naming hostKeyword) an empty host
	/// element without an address.

std::string defaultSocketDirectory();
	/// The Unix-socket directory used when no host is given: the first of /var/run/postgresql (Debian's
	/// libpq default) and /tmp (upstream PostgreSQL's) that exists as a directory, else
	/// /var/run/postgresql. Checked on each call (thread-safe).

std::string defaultSocketDirectory(const std::vector<std::string>& candidates);
	/// The first of candidates that is an existing directory, else the first candidate ("" for none).

std::vector<Poco::UInt16> parsePortList(const std::string& portList, const std::string& keyword);
	/// Splits at ',' and reads each trimmed element as a port 1..65535. Throws
	/// BlueTuskConnectionStringException naming keyword for an empty element, a non-number or a value
	/// out of range.

std::vector<BlueTuskHostEndpoint> resolveEndpoints(const std::vector<HostElement>& hosts, const std::vector<Poco::UInt16>& ports);
	/// The port of each host: its own port if written; else the matching element of a positional
	/// ports list (more than one element); else the single shared port; else 5432. A list of more than
	/// one port must have one port per host, else BlueTuskConnectionStringException
	/// "Port: 3 hosts but 2 ports ...".

std::string hostListText(const std::vector<BlueTuskHostEndpoint>& endpoints);
	/// The hosts of endpoints in Host list syntax without ports (socket directories as written, hosts
	/// containing ':' in brackets), for ConnectionSettings::toString().

std::string hostAddressListText(const std::vector<BlueTuskHostEndpoint>& endpoints);
	/// The endpoints' addresses joined with "," (empty elements for endpoints without one), or "" when no
	/// endpoint has an address.

std::string portListText(const std::vector<BlueTuskHostEndpoint>& endpoints);
	/// The ports of endpoints: one port when all are equal, else the positional list.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_HostList_INCLUDED
