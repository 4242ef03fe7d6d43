//
// PatroniTopologySource.h
//
// Library: BlueTusk/Plugins/Topology
//
// The "patroni" topology source (doc/high-availability.md, "Topology sources"): the members of a Patroni
// cluster, read from its REST API (GET /cluster).
//

#ifndef BlueTusk_PatroniTopologySource_INCLUDED
#define BlueTusk_PatroniTopologySource_INCLUDED

#include "BlueTusk/TopologySource.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Timestamp.h"
#include "Poco/URI.h"
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {

class PatroniTopologySource: public TopologySource
	/// Topology Source=patroni:<url>[,<url>...]: one or more base URLs of Patroni REST APIs
	/// ("http://10.0.0.1:8008", "https://user:secret@db-a:8008"; any member's API describes the whole
	/// cluster). read() asks GET <url>/cluster of each URL in turn, within one deadline; the first answer
	/// that maps to at least one member wins (PatroniClusterDocument.h gives the mapping). https runs over
	/// Poco::Net::SecureStreamSocket (certificate chain verified against Root Certificate when set, else
	/// the system's CAs); user:password@ in a URL is sent as HTTP basic authentication. Messages name a URL
	/// without its user info: the password never appears.
	///
	/// Thread-safety: as TopologySource (close() may interrupt a read from another thread).
{
public:
	PatroniTopologySource();
	~PatroniTopologySource() override;

	std::string name() const override;
		/// "patroni".

	void configure(const std::string& location, const ConnectionSettings& seed) override;
		/// Parses the comma-separated URLs (scheme http or https, a host, no query). Throws
		/// BlueTuskConnectionStringException naming "Topology Source" and the URL (without user info) that
		/// is malformed. Keeps seed's Root Certificate for https.

	TopologySnapshot read(const Poco::Timespan& timeout) override;
		/// The members from the first URL that answers with a usable /cluster document within timeout.
		/// Throws BlueTuskTransportException when no URL could be reached (the message lists each URL and
		/// why), BlueTuskException when the answers could not be used (HTTP status, not JSON, no members
		/// array: naming the URL).

	void close() override;
		/// Shuts down the socket of a read in progress, so that it returns at once.

	struct Location
		/// One configured URL.
	{
		Poco::URI uri;          /// the base URL as given (user info included)
		std::string display;    /// scheme://host:port, for messages (never the user info)
		std::string user;       /// basic authentication, when the URL has user info
		std::string password;
	};

	const std::vector<Location>& locations() const;
		/// The URLs configure() parsed.

private:
	TopologySnapshot readOne(const Location& location, const Poco::Timespan& timeout, bool& reached);
		/// GET <location>/cluster (HTTP/1.0, Connection: close) within timeout; reached tells whether the API
		/// answered at all. Throws BlueTuskException naming the URL.

	Poco::Net::StreamSocket connect(const Location& location, const Poco::Timestamp& deadline);
		/// A connected socket to location, by a non-blocking connect checked every 50 ms for close().

	std::vector<Location> _locations;
	std::string _rootCertificate;
	std::mutex _mutex;
	Poco::Net::StreamSocket _active;                  /// the socket of a read in progress (guarded by _mutex)
	bool _closing = false;                            /// guarded by _mutex
};

} // namespace BlueTusk

#endif // BlueTusk_PatroniTopologySource_INCLUDED
