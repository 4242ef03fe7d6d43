//
// PeerWire.h
//
// Library: BlueTusk test peers
//
// Just enough of the PostgreSQL protocol 3.0 message format (PostgreSQL docs 55.7 "Message Formats") for
// the fake backend to build backend messages and read frontend messages, and for peer self-tests to read
// backend messages by hand. Independent of the Transport module's own codec on purpose: a bug there must
// not hide in the peer.
//

#ifndef BlueTusk_PeerWire_INCLUDED
#define BlueTusk_PeerWire_INCLUDED

#include "Poco/Types.h"
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace BlueTusk {
namespace Test {
namespace Wire {

constexpr Poco::Int32 PROTOCOL_3_0 = 196608;      /// StartupMessage protocol version 3.0
constexpr Poco::Int32 SSL_REQUEST_CODE = 80877103;
constexpr Poco::Int32 GSSENC_REQUEST_CODE = 80877104;
constexpr Poco::Int32 CANCEL_REQUEST_CODE = 80877102;

constexpr Poco::UInt32 OID_BOOL = 16;
constexpr Poco::UInt32 OID_INT4 = 23;
constexpr Poco::UInt32 OID_TEXT = 25;


class MessageWriter
	/// Builds one message: a type byte (none when type is 0, as for StartupMessage and SSLRequest), the
	/// Int32 length including itself, then the body appended with the typed writers.
{
public:
	explicit MessageWriter(char type = 0);
	MessageWriter& byte(char value);
	MessageWriter& int16(Poco::Int16 value);
	MessageWriter& int32(Poco::Int32 value);
	MessageWriter& cstring(const std::string& value);   /// value and a terminating NUL
	MessageWriter& bytes(const std::string& value);     /// raw bytes, no terminator
	std::string finish() const;                          /// the complete message bytes

private:
	char _type;
	std::string _body;
};


class MessageReader
	/// Reads the fields of one message body in order. Every reader throws std::runtime_error when the body
	/// is too short or a string lacks its NUL.
{
public:
	explicit MessageReader(std::string body);
	char byte();
	Poco::Int16 int16();
	Poco::Int32 int32();
	std::string cstring();
	std::string bytes(std::size_t count);
	bool atEnd() const;
	std::size_t remaining() const;

private:
	void need(std::size_t count) const;

	std::string _body;
	std::size_t _pos = 0;
};


struct ErrorFields
	/// The fields of an ErrorResponse or NoticeResponse (PostgreSQL docs 55.8).
{
	std::string severity = "FATAL";  /// S and V
	std::string sqlState;            /// C
	std::string message;             /// M
	std::string detail;              /// D (omitted when empty)
	std::string hint;                /// H (omitted when empty)
};

using TextRow = std::vector<std::optional<std::string>>;

// Backend messages.
std::string authentication(Poco::Int32 code, const std::string& extra = "");
	/// 'R': 0 Ok, 3 cleartext, 5 MD5 (extra: salt), 10 SASL (extra: mechanisms), 11 SASL continue, 12 final.
std::string parameterStatus(const std::string& name, const std::string& value);
std::string backendKeyData(Poco::Int32 processId, Poco::Int32 secretKey);
std::string readyForQuery(char status);
std::string errorResponse(const ErrorFields& fields, char type = 'E');
std::string rowDescription(const std::vector<std::pair<std::string, Poco::UInt32>>& columns);
	/// 'T': each column's name and type OID, text format.
std::string dataRow(const TextRow& values);
std::string commandComplete(const std::string& tag);
std::string emptyQueryResponse();
std::string parameterDescription(const std::vector<Poco::UInt32>& types);
std::string noData();
std::string simple(char type);
	/// A message with no body: '1' ParseComplete, '2' BindComplete, '3' CloseComplete.

// Frontend messages (used by peer self-tests and raw clients).
std::string startupMessage(const std::vector<std::pair<std::string, std::string>>& parameters);
std::string sslRequest();
std::string query(const std::string& sql);
std::string terminate();

} } } // namespace BlueTusk::Test::Wire

#endif // BlueTusk_PeerWire_INCLUDED
