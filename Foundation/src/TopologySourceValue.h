//
// TopologySourceValue.h
//
// Library: BlueTusk/Foundation
//
// The value of Topology Source (doc/high-availability.md): "<source name>:<location>", and the secrets a
// location may carry (a monitor connection string's password, a URL's user info).
//

#ifndef BlueTusk_Detail_TopologySourceValue_INCLUDED
#define BlueTusk_Detail_TopologySourceValue_INCLUDED

#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

std::string topologySource(const std::string& value, const std::string& source);
	/// value trimmed, after checking its shape: empty (no topology source), or a source name of letters,
	/// digits, '_', '-' and '.', a ':' and a non-empty location. Throws BlueTuskConnectionStringException
	/// naming source (the keyword as written) and what is expected; the message never quotes the location
	/// (it may hold a password).

std::string topologySourceName(const std::string& value);
	/// The source name of a value topologySource() accepted ("patroni"), or "" for none.

std::string topologySourceLocation(const std::string& value);
	/// The location of a value topologySource() accepted (all after the first ':'), or "".

std::vector<std::string> topologySourceSecrets(const std::string& location);
	/// The passwords a location may hold, for the redactor: every "password=<value>" (any letter case,
	/// the value up to ';', a space or the end, quotes removed) and every URL user info's "user:<secret>@".

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_TopologySourceValue_INCLUDED
