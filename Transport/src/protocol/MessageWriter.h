//
// MessageWriter.h
//
// Library: BlueTusk/Transport
//
// Encoding of frontend (client-to-server) messages of the PostgreSQL protocol 3.0.
//

#ifndef BlueTusk_MessageWriter_INCLUDED
#define BlueTusk_MessageWriter_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/Parameter.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Types.h"
#include <string>
#include <utility>
#include <vector>

namespace BlueTusk {

class BlueTusk_Transport_API MessageWriter
	/// Appends frontend messages (PostgreSQL docs 55.7 "Message Formats") to an output buffer, which
	/// send() writes to a socket in one go (so Parse/Bind/Describe/Execute/Sync cost one write). Integers
	/// are big-endian; strings are NUL-terminated. Every message method can be unit-tested through
	/// buffer() without a socket.
	///
	/// The buffer may hold a password message: clear() and send() overwrite it with zeros before
	/// releasing it. Not thread-safe.
{
public:
	MessageWriter();
	~MessageWriter();

	// Low level: one message at a time

	void begin(char type);
		/// Starts a message; type 0 starts an untyped one (StartupMessage, SSLRequest, CancelRequest).
	void putInt8(Poco::UInt8 value);
	void putInt16(Poco::Int16 value);
	void putInt32(Poco::Int32 value);
	void putCString(const std::string& text);
		/// Appends text and a NUL. Throws BlueTuskProtocolException when text contains a NUL.
	void putBytes(const std::string& bytes);
	void putBytes(const char* data, std::size_t size);
	void end();
		/// Fills in the length of the message begun last.

	// Whole messages

	void startupMessage(const std::vector<std::pair<std::string, std::string>>& parameters, int minorVersion = 0);
		/// StartupMessage, protocol 3.<minorVersion> (196608 + minor: 3.0 or 3.2), then name/value pairs and
		/// the terminating NUL.
	void sslRequest();
		/// SSLRequest (80877103).
	void cancelRequest(Poco::Int32 processId, Poco::Int32 secretKey);
		/// CancelRequest (80877102) with a protocol 3.0 key.
	void cancelRequest(Poco::Int32 processId, const std::string& secretKey);
		/// CancelRequest with the key's bytes as BackendKeyData gave them (4 to 256, protocol 3.2).
	void query(const std::string& sql);
		/// 'Q' simple query.
	void parse(const std::string& statement, const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes = {});
		/// 'P'; parameterTypes may be empty (the server infers them).
	void bind(const std::string& portal, const std::string& statement, const std::vector<FieldValue>& parameters);
		/// 'B' with every parameter in text format (NULL as length -1) and all results in text format.
	void bind(const std::string& portal, const std::string& statement, const Parameters& parameters,
		const std::vector<Poco::UInt32>& parameterTypes, const std::vector<Poco::Int16>& resultFormats);
		/// 'B' with typed parameters, each encoded for its placeholder's type (parameterTypes[i], or its
		/// natural type when the list is shorter; Parameter::encode) in binary or text as it chooses, and
		/// the given result format codes (empty: all text). Throws BlueTuskTypeException (from encode) or
		/// BlueTuskProtocolException; the message is then incomplete: clear() the writer.
	void unnamedQuery(const std::string& sql, const std::vector<FieldValue>& parameters);
		/// Parse of the unnamed statement (no parameter types), Bind of the unnamed portal with text
		/// parameters and text results, Describe of the portal, Execute (all rows) and Sync: the same bytes
		/// as parse(), bind(), describePortal(), execute() and sync() in a row, written in one pass with one
		/// buffer growth (doc/performance.md, "Pass 3"). Throws BlueTuskProtocolException for a NUL in sql,
		/// more than 65535 parameters or a message over 2 GiB; the buffer is then incomplete: clear() it.
	void close(char kind, const std::string& name);
		/// 'C' Close of a statement ('S') or portal ('P').
	void describePortal(const std::string& portal);
		/// 'D' 'P'.
	void describeStatement(const std::string& statement);
		/// 'D' 'S'.
	void execute(const std::string& portal, Poco::Int32 maxRows = 0);
		/// 'E'; 0 means all rows.
	void sync();
		/// 'S'.
	void executeUnnamed(bool describe);
		/// Describe of the unnamed portal (when describe), Execute of it (all rows) and Sync: the bytes of
		/// describePortal(""), execute("", 0) and sync(), written with one buffer growth.
	void flush();
		/// 'H'.
	void terminate();
		/// 'X'.
	void passwordMessage(const std::string& password);
		/// 'p' with a NUL-terminated password (cleartext or "md5..." hash).
	void saslInitialResponse(const std::string& mechanism, const std::string& data);
		/// 'p' SASLInitialResponse: mechanism, Int32 length, data.
	void saslResponse(const std::string& data);
		/// 'p' SASLResponse: the data.

	// Buffer

	const std::string& buffer() const;
		/// The encoded bytes (after a send(socket, end), those already sent included).
	bool empty() const;
	std::size_t size() const;
		/// The size of buffer(), in bytes: where the next message will start.
	void clear();
		/// Discards the buffer (overwriting it with zeros first).

	void send(Poco::Net::StreamSocket& socket);
		/// Writes the whole buffer with sendBytes (looping over partial writes), then clears it. Poco
		/// exceptions (TimeoutException, ConnectionResetException, NetException) propagate.

	void send(Poco::Net::StreamSocket& socket, std::size_t end);
		/// Writes the bytes not yet sent up to end (a size() taken earlier), so that a long pipeline is
		/// encoded once and sent in parts; clears the buffer when end is its size. On an exception the
		/// whole buffer is cleared, the part not yet sent too.

	std::size_t sendAhead(Poco::Net::StreamSocket& socket, std::size_t end);
		/// Writes as much of the bytes not yet sent up to end as the socket takes without waiting
		/// (send(2) with MSG_DONTWAIT) and returns how many are left (0: all): a pipeline's next chunk goes out while the
		/// answers to the one before are read, and a sender that never waits cannot deadlock with a server
		/// blocked on its answers. Keeps the buffer (send(socket, end) clears it). Sends nothing on a TLS socket
		/// (OpenSSL writes it). Throws Poco::Net::ConnectionResetException (the buffer cleared) when the
		/// socket fails.

private:
	std::string _buffer;
	std::size_t _start = 0;
	std::size_t _sent = 0;   /// bytes of _buffer already sent by send(socket, end)
	bool _open = false;
};

} // namespace BlueTusk

#endif // BlueTusk_MessageWriter_INCLUDED
