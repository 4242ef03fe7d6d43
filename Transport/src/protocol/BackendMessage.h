//
// BackendMessage.h
//
// Library: BlueTusk/Transport
//
// One backend (server-to-client) message and the decoding of its fields.
//

#ifndef BlueTusk_BackendMessage_INCLUDED
#define BlueTusk_BackendMessage_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Notification.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/Types.h"
#include <string>
#include <utility>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Transport_API BackendMessage
	/// A framed backend message (PostgreSQL docs 55.7): its type byte and its body (without type and
	/// length). Decoding functions below throw BlueTuskProtocolException naming the message type when the
	/// body is malformed (too short, missing NUL, trailing bytes, negative counts).
{
	char type = 0;
	std::string body;

	BackendMessage();
	BackendMessage(char type, const std::string& body);

	std::string typeName() const;
		/// typeName(type).

	static std::string typeName(char type);
		/// "ErrorResponse", "DataRow", ..., or "message type 'x'" / "message type 0x07" for unknown ones.

	BlueTuskServerException::Fields errorFields() const;
		/// ErrorResponse 'E' / NoticeResponse 'N' fields: severity (V, else S), SQLSTATE (C), message (M),
		/// detail (D), hint (H), position (P), schema (s), table (t), column (c), constraint (n).

	std::pair<std::string, std::string> parameterStatus() const;
		/// ParameterStatus 'S': name and value.

	std::pair<Poco::Int32, Poco::Int32> backendKeyData() const;
		/// BackendKeyData 'K' of protocol 3.0: process id and the 4-byte secret key.

	std::pair<Poco::Int32, std::string> backendKey() const;
		/// BackendKeyData 'K' of any protocol 3 version: process id and the secret key's bytes (4 in 3.0,
		/// up to 256 in 3.2; PostgreSQL docs 54.7 "BackendKeyData"). The caller checks the length.

	std::pair<Poco::Int32, std::vector<std::string>> negotiateProtocolVersion() const;
		/// NegotiateProtocolVersion 'v': the newest version of the requested major the server supports,
		/// whole as in the StartupMessage (3 << 16 | minor: 196608 for 3.0), and the protocol options (_pq_.*)
		/// of the StartupMessage it does not recognize.

	char readyForQuery() const;
		/// ReadyForQuery 'Z': 'I', 'T' or 'E' (anything else is a protocol error).

	std::vector<ColumnDescription> rowDescription() const;
		/// RowDescription 'T'.

	Row dataRow(std::size_t expectedColumns) const;
		/// DataRow 'D'; NULL (length -1) as std::nullopt. The column count must equal expectedColumns.

	std::vector<Poco::UInt32> parameterDescription() const;
		/// ParameterDescription 't': the type OID of each parameter.

	Notification notification() const;
		/// NotificationResponse 'A': the sender's process id, the channel and the payload.

	std::string commandComplete() const;
		/// CommandComplete 'C': the command tag.

	Poco::Int32 authenticationCode() const;
		/// Authentication 'R': the Int32 request code (0 ok, 3 cleartext, 5 MD5, 10 SASL, 11 SASL
		/// continue, 12 SASL final).

	std::string authenticationData() const;
		/// Authentication 'R': the bytes after the code (MD5 salt, SASL data).

	std::vector<std::string> saslMechanisms() const;
		/// AuthenticationSASL (code 10): the mechanism names.

private:
	[[noreturn]] void malformed(const std::string& what) const;
};

} // namespace BlueTusk

#endif // BlueTusk_BackendMessage_INCLUDED
