//
// MessageWriter.cpp
//
// Library: BlueTusk/Transport
//

#include "MessageWriter.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Net/NetException.h"
#include "SigpipeGuard.h"
#include <sys/socket.h>
#include <cerrno>
#include <algorithm>
#include <memory>
#include <limits>
#include <cstring>

namespace BlueTusk {

namespace {

const Poco::Int32 PROTOCOL_VERSION_3 = 196608;  // 3 << 16
const Poco::Int32 SSL_REQUEST_CODE = 80877103;  // 1234 << 16 | 5679
const Poco::Int32 CANCEL_REQUEST_CODE = 80877102; // 1234 << 16 | 5678

} // namespace


MessageWriter::MessageWriter()
{
}


MessageWriter::~MessageWriter()
{
	clear();
}


void MessageWriter::begin(char type)
{
	poco_assert_msg(!_open, "MessageWriter::begin() while a message is open");
	// one append for the type and the length placeholder (end() fills it in)
	const char header[5] = {type, 0, 0, 0, 0};
	const std::size_t typeSize = type != 0 ? 1 : 0;
	_start = _buffer.size() + typeSize;
	_buffer.append(header + 1 - typeSize, 4 + typeSize);
	_open = true;
}


void MessageWriter::putInt8(Poco::UInt8 value)
{
	_buffer.push_back(static_cast<char>(value));
}


void MessageWriter::putInt16(Poco::Int16 value)
{
	Poco::UInt16 v = static_cast<Poco::UInt16>(value);
	_buffer.push_back(static_cast<char>((v >> 8) & 0xFF));
	_buffer.push_back(static_cast<char>(v & 0xFF));
}


void MessageWriter::putInt32(Poco::Int32 value)
{
	Poco::UInt32 v = static_cast<Poco::UInt32>(value);
	_buffer.push_back(static_cast<char>((v >> 24) & 0xFF));
	_buffer.push_back(static_cast<char>((v >> 16) & 0xFF));
	_buffer.push_back(static_cast<char>((v >> 8) & 0xFF));
	_buffer.push_back(static_cast<char>(v & 0xFF));
}


void MessageWriter::putCString(const std::string& text)
{
	if (text.find('\0') != std::string::npos)
		throw BlueTuskProtocolException("a string sent to the server must not contain a NUL character");
	_buffer.append(text.c_str(), text.size() + 1);   // with its terminating NUL
}


void MessageWriter::putBytes(const std::string& bytes)
{
	_buffer.append(bytes);
}


void MessageWriter::putBytes(const char* data, std::size_t size)
{
	_buffer.append(data, size);
}


void MessageWriter::end()
{
	poco_assert_msg(_open, "MessageWriter::end() without begin()");
	const std::size_t length = _buffer.size() - _start;
	if (length > static_cast<std::size_t>(std::numeric_limits<Poco::Int32>::max()))
		throw BlueTuskProtocolException("message too long for the protocol (more than 2 GiB)");
	Poco::UInt32 v = static_cast<Poco::UInt32>(length);
	_buffer[_start] = static_cast<char>((v >> 24) & 0xFF);
	_buffer[_start + 1] = static_cast<char>((v >> 16) & 0xFF);
	_buffer[_start + 2] = static_cast<char>((v >> 8) & 0xFF);
	_buffer[_start + 3] = static_cast<char>(v & 0xFF);
	_open = false;
}


void MessageWriter::startupMessage(const std::vector<std::pair<std::string, std::string>>& parameters, int minorVersion)
{
	begin(0);
	putInt32(PROTOCOL_VERSION_3 + minorVersion);
	for (const auto& parameter: parameters)
	{
		putCString(parameter.first);
		putCString(parameter.second);
	}
	putInt8(0);
	end();
}


void MessageWriter::sslRequest()
{
	begin(0);
	putInt32(SSL_REQUEST_CODE);
	end();
}


void MessageWriter::cancelRequest(Poco::Int32 processId, Poco::Int32 secretKey)
{
	begin(0);
	putInt32(CANCEL_REQUEST_CODE);
	putInt32(processId);
	putInt32(secretKey);
	end();
}


void MessageWriter::cancelRequest(Poco::Int32 processId, const std::string& secretKey)
{
	begin(0);
	putInt32(CANCEL_REQUEST_CODE);
	putInt32(processId);
	putBytes(secretKey);
	end();
}


namespace {

inline char* writeInt32(char* p, Poco::UInt32 v)
{
	p[0] = static_cast<char>((v >> 24) & 0xFF);
	p[1] = static_cast<char>((v >> 16) & 0xFF);
	p[2] = static_cast<char>((v >> 8) & 0xFF);
	p[3] = static_cast<char>(v & 0xFF);
	return p + 4;
}


inline char* writeHeader(char* p, char type, std::size_t length)
{
	*p++ = type;
	return writeInt32(p, static_cast<Poco::UInt32>(length));
}


inline void checkLength(std::size_t length)
{
	if (length > static_cast<std::size_t>(std::numeric_limits<Poco::Int32>::max()))
		throw BlueTuskProtocolException("message too long for the protocol (more than 2 GiB)");
}


inline void checkNoNul(const std::string& text)
{
	if (text.find('\0') != std::string::npos)
		throw BlueTuskProtocolException("a string sent to the server must not contain a NUL character");
}


inline char* writeCString(char* p, const std::string& text)
{
	std::memcpy(p, text.data(), text.size());
	p[text.size()] = '\0';
	return p + text.size() + 1;
}

} // namespace


void MessageWriter::query(const std::string& sql)
{
	poco_assert_msg(!_open, "MessageWriter::query() while a message is open");
	if (sql.find('\0') != std::string::npos)
		throw BlueTuskProtocolException("a string sent to the server must not contain a NUL character");
	const std::size_t length = 4 + sql.size() + 1;
	checkLength(length);
	const std::size_t old = _buffer.size();
	_buffer.resize(old + 1 + length);   // one growth, no capacity check per byte (doc/performance.md, "Pass 3")
	char* p = writeHeader(&_buffer[old], 'Q', length);
	std::memcpy(p, sql.data(), sql.size());
	p[sql.size()] = '\0';
}


void MessageWriter::parse(const std::string& statement, const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes)
{
	poco_assert_msg(!_open, "MessageWriter::parse() while a message is open");
	if (parameterTypes.size() > 65535) throw BlueTuskProtocolException("too many parameter types (at most 65535)");
	checkNoNul(statement);
	checkNoNul(sql);
	const std::size_t length = 4 + statement.size() + 1 + sql.size() + 1 + 2 + 4 * parameterTypes.size();
	checkLength(length);
	const std::size_t old = _buffer.size();
	_buffer.resize(old + 1 + length);   // one growth (doc/performance.md, row 13f)
	char* p = writeHeader(&_buffer[old], 'P', length);
	p = writeCString(p, statement);
	p = writeCString(p, sql);
	*p++ = static_cast<char>((parameterTypes.size() >> 8) & 0xFF);
	*p++ = static_cast<char>(parameterTypes.size() & 0xFF);
	for (Poco::UInt32 oid: parameterTypes) p = writeInt32(p, oid);
}


void MessageWriter::bind(const std::string& portal, const std::string& statement, const std::vector<FieldValue>& parameters)
{
	if (parameters.size() > 65535) throw BlueTuskProtocolException("too many parameters (at most 65535)");
	begin('B');
	putCString(portal);
	putCString(statement);
	putInt16(0); // all parameters in text format
	putInt16(static_cast<Poco::Int16>(parameters.size()));
	for (const auto& parameter: parameters)
	{
		if (!parameter)
		{
			putInt32(-1);
		}
		else
		{
			if (parameter->size() > static_cast<std::size_t>(std::numeric_limits<Poco::Int32>::max()))
				throw BlueTuskProtocolException("parameter value too long");
			putInt32(static_cast<Poco::Int32>(parameter->size()));
			putBytes(*parameter);
		}
	}
	putInt16(0); // all results in text format
	end();
}


void MessageWriter::bind(const std::string& portal, const std::string& statement, const Parameters& parameters,
	const std::vector<Poco::UInt32>& parameterTypes, const std::vector<Poco::Int16>& resultFormats)
{
	if (parameters.size() > 65535) throw BlueTuskProtocolException("too many parameters (at most 65535)");
	if (resultFormats.size() > 65535) throw BlueTuskProtocolException("too many result columns (at most 65535)");
	checkNoNul(portal);
	checkNoNul(statement);
	begin('B');
	const std::size_t count = parameters.size();
	// The names, the parameter count, the format codes (filled in as each value is encoded) and the
	// count again in one growth (doc/performance.md, row 13f).
	const std::size_t head = _buffer.size();
	_buffer.resize(head + portal.size() + 1 + statement.size() + 1 + 2 + count * 2 + 2);
	char* p = writeCString(&_buffer[head], portal);
	p = writeCString(p, statement);
	*p++ = static_cast<char>((count >> 8) & 0xFF);
	*p++ = static_cast<char>(count & 0xFF);
	const std::size_t formats = static_cast<std::size_t>(p - _buffer.data());
	std::memset(p, 0, count * 2);
	p += count * 2;
	*p++ = static_cast<char>((count >> 8) & 0xFF);
	*p = static_cast<char>(count & 0xFF);
	for (std::size_t i = 0; i < count; ++i)
	{
		const Parameter& parameter = parameters[i];
		if (parameter.isNull())
		{
			putInt32(-1);
			continue;
		}
		const std::size_t lengthAt = _buffer.size();
		putInt32(0);
		const bool binary = parameter.encode(i < parameterTypes.size() ? parameterTypes[i] : 0, i, _buffer);
		const std::size_t length = _buffer.size() - lengthAt - 4;
		if (length > static_cast<std::size_t>(std::numeric_limits<Poco::Int32>::max()))
			throw BlueTuskProtocolException("parameter $" + std::to_string(i + 1) + " is too long (more than 2 GiB)");
		const Poco::UInt32 v = static_cast<Poco::UInt32>(length);
		_buffer[lengthAt] = static_cast<char>((v >> 24) & 0xFF);
		_buffer[lengthAt + 1] = static_cast<char>((v >> 16) & 0xFF);
		_buffer[lengthAt + 2] = static_cast<char>((v >> 8) & 0xFF);
		_buffer[lengthAt + 3] = static_cast<char>(v & 0xFF);
		_buffer[formats + i * 2 + 1] = binary ? 1 : 0;
	}
	putInt16(static_cast<Poco::Int16>(resultFormats.size()));
	for (Poco::Int16 format: resultFormats) putInt16(format);
	end();
}


void MessageWriter::unnamedQuery(const std::string& sql, const std::vector<FieldValue>& parameters)
{
	poco_assert_msg(!_open, "MessageWriter::unnamedQuery() while a message is open");
	// The checks of parse() and bind(), in their order, before anything is written.
	if (sql.find('\0') != std::string::npos)
		throw BlueTuskProtocolException("a string sent to the server must not contain a NUL character");
	const std::size_t parseLength = 4 + 1 + sql.size() + 1 + 2;
	checkLength(parseLength);
	if (parameters.size() > 65535) throw BlueTuskProtocolException("too many parameters (at most 65535)");
	std::size_t bindLength = 4 + 1 + 1 + 2 + 2 + 2;
	for (const auto& parameter: parameters)
	{
		bindLength += 4;
		if (!parameter) continue;
		if (parameter->size() > static_cast<std::size_t>(std::numeric_limits<Poco::Int32>::max()))
			throw BlueTuskProtocolException("parameter value too long");
		bindLength += parameter->size();
	}
	checkLength(bindLength);
	const std::size_t describeLength = 4 + 1 + 1;
	const std::size_t executeLength = 4 + 1 + 4;
	const std::size_t syncLength = 4;
	const std::size_t old = _buffer.size();
	_buffer.resize(old + 5 + parseLength + bindLength + describeLength + executeLength + syncLength);
	char* p = &_buffer[old];
	p = writeHeader(p, 'P', parseLength);
	*p++ = '\0';                                        // the unnamed statement
	std::memcpy(p, sql.data(), sql.size());
	p += sql.size();
	*p++ = '\0';
	*p++ = 0; *p++ = 0;                                  // no parameter types
	p = writeHeader(p, 'B', bindLength);
	*p++ = '\0';                                        // the unnamed portal
	*p++ = '\0';                                        // of the unnamed statement
	*p++ = 0; *p++ = 0;                                  // all parameters in text format
	*p++ = static_cast<char>((parameters.size() >> 8) & 0xFF);
	*p++ = static_cast<char>(parameters.size() & 0xFF);
	for (const auto& parameter: parameters)
	{
		if (!parameter)
		{
			p = writeInt32(p, 0xFFFFFFFFu);                // NULL: length -1
			continue;
		}
		p = writeInt32(p, static_cast<Poco::UInt32>(parameter->size()));
		std::memcpy(p, parameter->data(), parameter->size());
		p += parameter->size();
	}
	*p++ = 0; *p++ = 0;                                  // all results in text format
	p = writeHeader(p, 'D', describeLength);
	*p++ = 'P';
	*p++ = '\0';
	p = writeHeader(p, 'E', executeLength);
	*p++ = '\0';
	p = writeInt32(p, 0);                                // all rows
	p = writeHeader(p, 'S', syncLength);
	poco_assert(p == _buffer.data() + _buffer.size());
}


void MessageWriter::close(char kind, const std::string& name)
{
	begin('C');
	putInt8(static_cast<Poco::UInt8>(kind));
	putCString(name);
	end();
}


void MessageWriter::describePortal(const std::string& portal)
{
	begin('D');
	putInt8('P');
	putCString(portal);
	end();
}


void MessageWriter::describeStatement(const std::string& statement)
{
	begin('D');
	putInt8('S');
	putCString(statement);
	end();
}


void MessageWriter::execute(const std::string& portal, Poco::Int32 maxRows)
{
	begin('E');
	putCString(portal);
	putInt32(maxRows);
	end();
}


void MessageWriter::executeUnnamed(bool describe)
{
	poco_assert_msg(!_open, "MessageWriter::executeUnnamed() while a message is open");
	const std::size_t old = _buffer.size();
	_buffer.resize(old + (describe ? 7 : 0) + 10 + 5);   // one growth (doc/performance.md, row 13f)
	char* p = &_buffer[old];
	if (describe)
	{
		p = writeHeader(p, 'D', 6);
		*p++ = 'P';
		*p++ = '\0';                                    // the unnamed portal
	}
	p = writeHeader(p, 'E', 9);
	*p++ = '\0';
	p = writeInt32(p, 0);                                // all rows
	writeHeader(p, 'S', 4);
}


void MessageWriter::sync()
{
	begin('S');
	end();
}


void MessageWriter::flush()
{
	begin('H');
	end();
}


void MessageWriter::terminate()
{
	begin('X');
	end();
}


void MessageWriter::passwordMessage(const std::string& password)
{
	begin('p');
	putCString(password);
	end();
}


void MessageWriter::saslInitialResponse(const std::string& mechanism, const std::string& data)
{
	begin('p');
	putCString(mechanism);
	putInt32(static_cast<Poco::Int32>(data.size()));
	putBytes(data);
	end();
}


void MessageWriter::saslResponse(const std::string& data)
{
	begin('p');
	putBytes(data);
	end();
}


const std::string& MessageWriter::buffer() const
{
	return _buffer;
}


bool MessageWriter::empty() const
{
	return _buffer.empty();
}


std::size_t MessageWriter::size() const
{
	return _buffer.size();
}


void MessageWriter::clear()
{
	std::fill(_buffer.begin(), _buffer.end(), '\0');
	_buffer.clear();
	_open = false;
	_start = 0;
	_sent = 0;
}


void MessageWriter::send(Poco::Net::StreamSocket& socket)
{
	send(socket, _buffer.size());
}


void MessageWriter::send(Poco::Net::StreamSocket& socket, std::size_t end)
{
	poco_assert_msg(end >= _sent && end <= _buffer.size(), "MessageWriter::send() past the buffer");
	std::size_t sent = _sent;
	// A peer that has gone away must not raise SIGPIPE: MSG_NOSIGNAL for plain sockets; for TLS (OpenSSL
	// writes itself) SIGPIPE is blocked and consumed around the write.
	const bool tls = socket.impl()->secure();   // a virtual call: dynamic_cast cost ~100 instructions a query
	std::unique_ptr<Detail::SigpipeGuard> guard(tls ? new Detail::SigpipeGuard : nullptr);
	const int flags = tls ? 0 : MSG_NOSIGNAL;
	try
	{
		while (sent < end)
		{
			int n = socket.sendBytes(_buffer.data() + sent, static_cast<int>(std::min<std::size_t>(end - sent, 1 << 20)), flags);
			if (n <= 0) throw Poco::Net::ConnectionResetException("the connection was closed while sending");
			sent += static_cast<std::size_t>(n);
		}
	}
	catch (...)
	{
		clear();
		throw;
	}
	if (end == _buffer.size()) clear();
	else _sent = end;
}


std::size_t MessageWriter::sendAhead(Poco::Net::StreamSocket& socket, std::size_t end)
{
	poco_assert_msg(end >= _sent && end <= _buffer.size(), "MessageWriter::sendAhead() past the buffer");
	if (socket.impl()->secure()) return end - _sent;   // OpenSSL writes a TLS socket: no send without waiting
	const poco_socket_t fd = socket.impl()->sockfd();
	if (fd == POCO_INVALID_SOCKET) return end - _sent;
	while (_sent < end)
	{
		const ssize_t n = ::send(fd, _buffer.data() + _sent, std::min<std::size_t>(end - _sent, 1 << 20), MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR) continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;   // the socket is full
		if (n <= 0)
		{
			const std::string reason = n < 0 ? std::string(std::strerror(errno)) : std::string("nothing sent");
			clear();
			throw Poco::Net::ConnectionResetException("the connection failed while sending: " + reason);
		}
		_sent += static_cast<std::size_t>(n);
	}
	return end - _sent;
}

} // namespace BlueTusk
