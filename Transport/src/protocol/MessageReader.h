//
// MessageReader.h
//
// Library: BlueTusk/Transport
//
// Framing of backend (server-to-client) messages of the PostgreSQL protocol 3.0, with length limits.
//

#ifndef BlueTusk_MessageReader_INCLUDED
#define BlueTusk_MessageReader_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BackendMessage.h"
#include "Poco/Net/StreamSocket.h"
#include <cstddef>
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API MessageReader
	/// Splits the byte stream from the server into messages: one type byte, an Int32 length that includes
	/// itself, the body (PostgreSQL docs 55.7). Bytes are fed in (feed(), or receive() from a socket) and
	/// complete messages taken out with next(); a partial message stays buffered, so a receive timeout in
	/// the middle of a message loses nothing.
	///
	/// Hardening: a length below 4, or above the limit for its type, is a BlueTuskProtocolException before
	/// any body is buffered. "Long" types (DataRow 'D', RowDescription 'T', ErrorResponse 'E',
	/// NoticeResponse 'N', NotificationResponse 'A', CopyData 'd', FunctionCallResponse 'V') may be up to
	/// maxLength() (1 GiB by default); any other type up to maxShortLength() (30000 bytes, as libpq).
	/// Not thread-safe.
{
public:
	static constexpr std::size_t DEFAULT_MAX_LENGTH = std::size_t(1) << 30;
		/// 1 GiB: the largest field PostgreSQL can send.
	static constexpr std::size_t DEFAULT_MAX_SHORT_LENGTH = 30000;
		/// For types that are always small (libpq's limit for "short" messages).
	static constexpr std::size_t STARTUP_MAX_LENGTH = 256 * 1024;
		/// The limit ProtocolSession uses for every message type before the first ReadyForQuery.

	MessageReader();
	explicit MessageReader(std::size_t maxLength, std::size_t maxShortLength = DEFAULT_MAX_SHORT_LENGTH);
	~MessageReader();

	void setMaxLength(std::size_t maxLength);
	std::size_t maxLength() const;
	void setMaxShortLength(std::size_t maxShortLength);
	std::size_t maxShortLength() const;

	void feed(const char* data, std::size_t length);
		/// Appends bytes received from the server.

	bool next(BackendMessage& message);
		/// Takes the next complete message out of the buffer; false when none is complete yet.
		/// Throws BlueTuskProtocolException for an invalid or oversized length.

	struct View
		/// A message still in the reader's buffer: valid until the next call that reads, feeds or clears.
	{
		char type = 0;
		const char* body = nullptr;
		std::size_t length = 0;   /// of the body (the message length minus its own 4 bytes)
	};

	bool complete()
		/// True when a whole message is buffered; throws BlueTuskProtocolException for an invalid or
		/// oversized length, as next() does. Inline: once measured, each later call is one test.
	{
		return _ready > 0 || measure();
	}

	bool next(View& view);
		/// As next(BackendMessage&), without copying the body out of the buffer (doc/performance.md,
		/// "Pass 3"); view is valid until the next call that reads, feeds or clears.

	char nextType() const;
		/// The type byte of the next buffered message (complete or not); 0 when nothing is buffered.

	std::size_t buffered() const;
		/// Bytes buffered and not yet returned.

	BackendMessage receive(Poco::Net::StreamSocket& socket);
		/// The next message, reading from socket as needed (honours the socket's receive timeout).
		/// Throws BlueTuskSessionBrokenException (code AddressAttempt::CLOSED) on EOF,
		/// BlueTuskProtocolException, or the Poco exception of the socket (Poco::TimeoutException with the
		/// partial message kept buffered, ConnectionResetException, NetException).

	void receive(Poco::Net::StreamSocket& socket, BackendMessage& message);
		/// As receive(socket), into message, reusing the capacity of its body (no allocation per message
		/// once the body has grown to the largest message seen). Same exceptions.

	bool receiveSome(Poco::Net::StreamSocket& socket);
		/// One read from socket (up to 16 KiB; 128 KiB during a spate) appended to the buffer; false on
		/// EOF. Throws the socket's Poco exceptions (Poco::TimeoutException after its receive timeout).
		///
		/// Spates (doc/performance.md, "11a-11c: where the bulk paths wait"): once the reads of a plain
		/// socket have returned at least SPATE_READ bytes each for SPATE_AFTER_US, the server is sending
		/// faster than it flushes one buffer at a time, and a read that would block first waits in ppoll()
		/// with SO_RCVLOWAT at SPATE_LOW_WATER for at most SPATE_WAIT_US, so the thread wakes once per
		/// 64 KiB instead of once per 8 KiB flush of the server. The wait adds at most SPATE_WAIT_US to a
		/// read (at most 5 % of the spate's time so far, and to the receive timeout); a read of fewer bytes
		/// or a ReadyForQuery ends the spate. TLS sockets read as before.

	static constexpr std::size_t SPATE_READ = 8192;
		/// A read of at least this many bytes continues a spate: PostgreSQL's send buffer
		/// (PQ_SEND_BUFFER_SIZE), which it flushes whole while a result is longer than it.
	static constexpr long SPATE_AFTER_US = 10000;
		/// How long the reads must have been spate-sized before a read waits for SPATE_LOW_WATER.
	static constexpr int SPATE_LOW_WATER = 65536;
		/// Bytes the socket must hold before a waiting read of a spate is woken (SO_RCVLOWAT).
	static constexpr long SPATE_WAIT_US = 500;
		/// The longest such a wait lasts before the read takes what is there (or blocks as usual).

	char receiveByte(Poco::Net::StreamSocket& socket);
		/// One raw byte (the answer to SSLRequest). Same exceptions as receive(). Throws
		/// BlueTuskProtocolException if more bytes are already buffered (unexpected data).

	void clear();

private:
	bool fill(Poco::Net::StreamSocket& socket);
	char* room(std::size_t length);
		/// At least length writable bytes at _end (compacting or growing the storage).

	std::string _buffer;
	std::size_t _end = 0;        /// end of the received bytes in _buffer (its size is the storage)
	std::size_t _position = 0;
	bool measure();
		/// complete() for a message not measured yet: validates its length, sets _ready when it is whole.

	std::size_t _ready = 0;      /// bytes of the complete message at _position once complete() saw it, else 0
	Poco::Int64 _spateSince = 0; /// monotonic microseconds of the first read of the current spate, 0 if none
	void awaitSpate(Poco::Net::StreamSocket& socket);
		/// The spate's wait before a read (receiveSome()); nothing when the spate is young or the socket TLS.
	std::size_t _maxLength;
	std::size_t _maxShortLength;
};

} // namespace BlueTusk

#endif // BlueTusk_MessageReader_INCLUDED
