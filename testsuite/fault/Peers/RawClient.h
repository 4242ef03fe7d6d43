//
// RawClient.h
//
// A hand-written protocol 3.0 frontend for the peers' self-tests: it reads the fake backend's bytes with
// the peers' own Wire reader, independent of the Transport module.
//

#ifndef BlueTusk_RawClient_INCLUDED
#define BlueTusk_RawClient_INCLUDED

#include "PeerWire.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Timespan.h"
#include <map>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

struct RawResult
	/// Everything received up to ReadyForQuery (or EOF).
{
	std::vector<char> types;                          /// message types in order ('R', 'S', 'K', 'Z', ...)
	std::map<std::string, std::string> parameters;    /// ParameterStatus values
	std::map<char, std::string> error;                /// ErrorResponse fields by code ('C', 'M', 'S')
	std::vector<std::string> columns;
	std::vector<Poco::UInt32> columnTypes;
	std::vector<Wire::TextRow> rows;
	std::vector<std::string> tags;
	Poco::Int32 processId = 0;
	Poco::Int32 secretKey = 0;
	char status = 0;                                  /// ReadyForQuery status, 0 when none arrived
	bool eof = false;                                 /// the server closed the connection
	std::vector<Poco::Int32> authentications;         /// 'R' codes
};

class RawClient
{
public:
	explicit RawClient(const Poco::Net::SocketAddress& address, const Poco::Timespan& timeout = Poco::Timespan(3, 0));
	~RawClient();

	void send(const std::string& bytes);
	bool readMessage(char& type, std::string& body);
		/// False on EOF; throws Poco::TimeoutException when nothing arrives in time.
	std::string readAll();
		/// Every byte until EOF.

	RawResult readUntilReady(const std::string& password = "", const std::string& user = "");
		/// Reads messages until ReadyForQuery, an ErrorResponse or EOF; answers cleartext and MD5 password
		/// requests with password.
	RawResult startup(const std::string& user = "alice", const std::string& database = "app", const std::string& password = "", bool sslRequest = false);
	RawResult query(const std::string& sql);
	void terminate();
	Poco::Net::StreamSocket& socket();

private:
	Poco::Net::StreamSocket _socket;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_RawClient_INCLUDED
