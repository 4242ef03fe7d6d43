//
// MessageReader.cpp
//
// Library: BlueTusk/Transport
//

#include "MessageReader.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Clock.h"
#include <sys/socket.h>
#include <ctime>
#include <cerrno>
#include <cstring>
#include <poll.h>

namespace BlueTusk {

namespace {

bool isLongType(char type)
{
	switch (type)
	{
	case 'D': case 'T': case 'E': case 'N': case 'A': case 'd': case 'V':
		return true;
	default:
		return false;
	}
}


void awaitTlsReadable(Poco::Net::StreamSocket& socket)
	/// Waits for the socket's receive timeout, once, until the TLS socket has something to read, else throws
	/// Poco::TimeoutException as the plain socket's receiveBytes() does. Poco 1.11's SecureSocketImpl waits
	/// twice as long when nothing arrives: SSL_read() blocks until SO_RCVTIMEO, then, on SSL_ERROR_WANT_READ,
	/// it polls the socket for the receive timeout again before it throws, so Command Timeout=1 fired after
	/// 2 s over TLS (doc/transport.md, "Command timeout"). Decrypted bytes that OpenSSL holds
	/// already (SSL_pending(): available()) need no wait.
{
	const Poco::Timespan timeout = socket.getReceiveTimeout();
	if (timeout.totalMicroseconds() <= 0) return;   // no timeout: nothing to wait twice, a blocking read serves
	if (socket.available() > 0) return;
	const Poco::Clock started;
	for (;;)
	{
		const Poco::Clock::ClockDiff left = timeout.totalMicroseconds() - started.elapsed();
		if (left <= 0) throw Poco::TimeoutException();
		const int waitMs = static_cast<int>((left + 999) / 1000);   // rounded up: never shorter than the timeout
		pollfd descriptor{socket.impl()->sockfd(), POLLIN, 0};
		const int ready = ::poll(&descriptor, 1, waitMs);
		if (ready > 0) return;   // readable, hung up or in error: receiveBytes() reports which
		if (ready < 0 && errno != EINTR) return;   // let receiveBytes() report the socket's state
	}
}

} // namespace


MessageReader::MessageReader():
	_maxLength(DEFAULT_MAX_LENGTH),
	_maxShortLength(DEFAULT_MAX_SHORT_LENGTH)
{
}


MessageReader::MessageReader(std::size_t maxLength, std::size_t maxShortLength):
	_maxLength(maxLength),
	_maxShortLength(maxShortLength)
{
}


MessageReader::~MessageReader()
{
}


void MessageReader::setMaxLength(std::size_t maxLength)
{
	_maxLength = maxLength;
}


std::size_t MessageReader::maxLength() const
{
	return _maxLength;
}


void MessageReader::setMaxShortLength(std::size_t maxShortLength)
{
	_maxShortLength = maxShortLength;
}


std::size_t MessageReader::maxShortLength() const
{
	return _maxShortLength;
}


char* MessageReader::room(std::size_t length)
{
	if (_position > 0 && _position == _end)
	{
		_end = 0;
		_position = 0;
	}
	else if (_position > 65536 && _position * 2 > _end)
	{
		std::memmove(&_buffer[0], _buffer.data() + _position, _end - _position);
		_end -= _position;
		_position = 0;
	}
	// The storage only grows (zero-filled once); _end marks where the received bytes end, so a receive
	// goes straight into it without a copy through a chunk on the stack (doc/performance.md, "Pass 3").
	if (_buffer.size() - _end < length) _buffer.resize(_end + length);
	return &_buffer[_end];
}


void MessageReader::feed(const char* data, std::size_t length)
{
	if (length == 0) return;
	std::memcpy(room(length), data, length);
	_end += length;
}


bool MessageReader::measure()
{
	const std::size_t available = _end - _position;
	if (available < 5) return false;
	const unsigned char* p = reinterpret_cast<const unsigned char*>(_buffer.data() + _position);
	const char type = static_cast<char>(p[0]);
	const Poco::UInt32 length = (Poco::UInt32(p[1]) << 24) | (Poco::UInt32(p[2]) << 16) | (Poco::UInt32(p[3]) << 8) | Poco::UInt32(p[4]);
	if (length < 4)
		throw BlueTuskProtocolException("invalid length " + std::to_string(length) + " in " + BackendMessage::typeName(type) + " from the server");
	const std::size_t limit = isLongType(type) ? _maxLength : std::min(_maxLength, _maxShortLength);
	if (length - 4 > limit)
		throw BlueTuskProtocolException(BackendMessage::typeName(type) + " from the server is too long (" + std::to_string(length) +
			" bytes, limit " + std::to_string(limit) + ")");
	if (available < std::size_t(length) + 1) return false;
	_ready = std::size_t(length) + 1;
	return true;
}


bool MessageReader::next(View& view)
{
	if (!complete()) return false;
	view.type = _buffer[_position];
	view.body = _buffer.data() + _position + 5;
	view.length = _ready - 5;
	if (view.type == 'Z') _spateSince = 0;   // the cycle is over: the next answer starts without a wait
	_position += _ready;
	_ready = 0;
	// Not reset to the start here (the view points into the buffer): room() does it before the next read.
	return true;
}


bool MessageReader::next(BackendMessage& message)
{
	View view;
	if (!next(view)) return false;
	message.type = view.type;
	message.body.assign(view.body, view.length);
	if (_position == _end)
	{
		_end = 0;
		_position = 0;
	}
	return true;
}


char MessageReader::nextType() const
{
	return _position < _end ? _buffer[_position] : 0;
}


std::size_t MessageReader::buffered() const
{
	return _end - _position;
}


bool MessageReader::fill(Poco::Net::StreamSocket& socket)
{
	int chunk = 16384;
	if (socket.secure()) awaitTlsReadable(socket);
	else if (_spateSince != 0)
	{
		awaitSpate(socket);
		chunk = 2 * SPATE_LOW_WATER;   // all that gathered in one read
	}
	int n = socket.receiveBytes(room(chunk), chunk);
	if (n <= 0) return false;
	_end += static_cast<std::size_t>(n);
	if (static_cast<std::size_t>(n) < SPATE_READ) _spateSince = 0;
	else if (_spateSince == 0) _spateSince = Poco::Clock().raw();
	return true;
}


void MessageReader::awaitSpate(Poco::Net::StreamSocket& socket)
{
	// Without the wait, a client that parses faster than the server sends sleeps and is woken once per
	// 8 KiB flush of the server (1,000-3,000 wake-ups per 1,000,000 streamed rows of row 11a, libpq a few
	// hundred because it parses slower): each wake-up costs both processes CPU and the server a context switch
	// on two cores. Waiting for 64 KiB costs a read at most SPATE_WAIT_US, so only a spate older than
	// SPATE_AFTER_US (20 times the wait) waits; a short result is never delayed.
	if (Poco::Clock().raw() - _spateSince < SPATE_AFTER_US) return;
	const int fd = socket.impl()->sockfd();
	int lowWater = SPATE_LOW_WATER;
	if (::setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowWater, sizeof(lowWater)) != 0) return;
	pollfd descriptor{fd, POLLIN, 0};
	const timespec wait{0, SPATE_WAIT_US * 1000};
	::ppoll(&descriptor, 1, &wait, nullptr);   // readable, timed out or interrupted: the read below decides
	lowWater = 1;   // the read itself must not wait for the low water mark (the end of a result is shorter)
	::setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowWater, sizeof(lowWater));
}


bool MessageReader::receiveSome(Poco::Net::StreamSocket& socket)
{
	return fill(socket);
}


BackendMessage MessageReader::receive(Poco::Net::StreamSocket& socket)
{
	BackendMessage message;
	receive(socket, message);
	return message;
}


void MessageReader::receive(Poco::Net::StreamSocket& socket, BackendMessage& message)
{
	while (!next(message))
	{
		if (!fill(socket))
			throw BlueTuskSessionBrokenException("the server closed the connection unexpectedly", AddressAttempt::CLOSED);
	}
}


char MessageReader::receiveByte(Poco::Net::StreamSocket& socket)
{
	if (buffered() > 0) throw BlueTuskProtocolException("unexpected data from the server");
	char byte = 0;
	int n = socket.receiveBytes(&byte, 1);
	if (n <= 0)
		throw BlueTuskSessionBrokenException("the server closed the connection unexpectedly", AddressAttempt::CLOSED);
	return byte;
}


void MessageReader::clear()
{
	_buffer.clear();
	_end = 0;
	_position = 0;
	_ready = 0;
	_spateSince = 0;
}

} // namespace BlueTusk
