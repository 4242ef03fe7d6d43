//
// CopyStream.cpp
//
// Library: BlueTusk/Transport
//
// COPY FROM STDIN and COPY TO STDOUT (PostgreSQL docs 55.2.6): CopyData messages written as the caller
// feeds them (binary rows in the COPY binary file format, PostgreSQL docs, COPY), and read back as they
// arrive.
//

#include "ProtocolSession.h"
#include "BlueTusk/CopyIn.h"
#include "protocol/WireValue.h"
#include "ReadyReader.h"
#include "Poco/Net/NetException.h"

namespace BlueTusk {

CopyIn::~CopyIn()
{
}


void CopyIn::write(const std::string& data)
{
	write(data.data(), data.size());
}


namespace Detail {

namespace {

const std::size_t COPY_CHUNK = 256 * 1024;
const char BINARY_HEADER[] = "PGCOPY\n\377\r\n\0";   // 11 bytes, then flags and extension length


std::vector<Poco::Int16> copyFormats(const BackendMessage& message)
{
	// CopyInResponse / CopyOutResponse: Int8 overall format, Int16 columns, Int16 format per column
	const std::string& body = message.body;
	if (body.size() < 3) throw BlueTuskProtocolException("malformed " + message.typeName() + " (too short)");
	std::vector<Poco::Int16> formats;
	formats.push_back(static_cast<Poco::Int16>(static_cast<unsigned char>(body[0])));
	const std::size_t columns = static_cast<std::size_t>(getBigEndian(body.data() + 1, 2));
	if (body.size() != 3 + 2 * columns) throw BlueTuskProtocolException("malformed " + message.typeName() + " (column formats)");
	for (std::size_t i = 0; i < columns; ++i) formats.push_back(static_cast<Poco::Int16>(getBigEndian(body.data() + 3 + 2 * i, 2)));
	return formats;
}

} // namespace


void checkFieldLength(Poco::UInt64 length, std::size_t column)
{
	// The COPY binary format gives a field's length in an Int32 (PostgreSQL docs, COPY, "Tuples"): a
	// longer value would be cut short and its rest read as further fields.
	if (length > 0x7FFFFFFF)
		throw BlueTuskTypeException("binary COPY, column " + std::to_string(column + 1) + ": the value is too long (" +
			std::to_string(length) + " bytes; the COPY binary format allows 2^31-1)");
}


class ProtocolCopyIn: public CopyIn
{
public:
	ProtocolCopyIn(ProtocolSession& session, bool binary, std::size_t columns, const std::vector<Poco::UInt32>& types):
		_session(session), _lifetime(session._lifetime), _binary(binary), _columns(columns), _types(types)
	{
		_session._copyInProgress = true;
	}

	~ProtocolCopyIn()
	{
		if (!_open || _lifetime.expired() || _session.isBroken()) return;
		try
		{
			abort("the client's CopyIn was destroyed before finish() (an exception in the application?)");
		}
		catch (...)
		{
		}
	}

	void write(const char* data, std::size_t size)
	{
		check();
		while (size > 0)
		{
			const std::size_t part = std::min(size, COPY_CHUNK);
			_session._writer.begin('d');
			_session._writer.putBytes(data, part);
			_session._writer.end();
			data += part;
			size -= part;
			if (_session._writer.buffer().size() >= COPY_CHUNK) send();
		}
	}

	void writeRow(const Parameters& row)
	{
		check();
		if (!_binary) throw BlueTuskUsageException("writeRow() needs a COPY in FORMAT binary; write() text or CSV data instead");
		if (row.size() != _columns)
			throw BlueTuskUsageException("the COPY has " + std::to_string(_columns) + " columns but the row has " + std::to_string(row.size()) + " values");
		_row.clear();
		const bool header = !_headerDone;   // marked done once written: a refused first row leaves it to the next
		if (header)
		{
			_row.append(BINARY_HEADER, 11);
			putBigEndian(_row, 0, 4);   // flags
			putBigEndian(_row, 0, 4);   // header extension length
		}
		putBigEndian(_row, static_cast<Poco::UInt64>(row.size()), 2);
		for (std::size_t i = 0; i < row.size(); ++i)
		{
			if (row[i].isNull())
			{
				putBigEndian(_row, 0xFFFFFFFFu, 4);
				continue;
			}
			const std::size_t lengthAt = _row.size();
			putBigEndian(_row, 0, 4);
			const Poco::UInt32 type = i < _types.size() ? _types[i] : 0;
			const bool binary = row[i].encode(type, i, _row);
			if (!binary && row[i].kind() != Parameter::Kind::Text)
				throw BlueTuskTypeException("binary COPY, column " + std::to_string(i + 1) + " (" + TypeOid::name(type) + "): a " +
					row[i].kindName() + " value has no binary form for it; give copyIn() the column types or send a value of the column's type");
			if (!binary && type != 0 && !TypeOid::isTextual(type))
				throw BlueTuskTypeException("binary COPY, column " + std::to_string(i + 1) + " (" + TypeOid::name(type) +
					"): a string has no binary form for this type");
			const Poco::UInt64 length = _row.size() - lengthAt - 4;
			checkFieldLength(length, i);
			for (int b = 0; b < 4; ++b) _row[lengthAt + b] = static_cast<char>((length >> (24 - 8 * b)) & 0xFF);
		}
		write(_row.data(), _row.size());
		if (header) _headerDone = true;
	}

	Poco::UInt64 finish()
	{
		check();
		if (_binary)
		{
			if (!_headerDone)
			{
				_row.assign(BINARY_HEADER, 11);
				putBigEndian(_row, 0, 8);
				write(_row.data(), _row.size());
				_headerDone = true;
			}
			std::string trailer;
			putBigEndian(trailer, 0xFFFF, 2);
			write(trailer.data(), trailer.size());
		}
		_open = false;
		_session._copyInProgress = false;
		_session._writer.begin('c');
		_session._writer.end();
		_session.sendWriterReading(_session._writer.size());
		std::vector<QueryResult> results = _session.readCycle();
		return results.empty() ? 0 : results.back().rowsAffected();
	}

	void abort(const std::string& reason)
	{
		if (!_open) return;
		_open = false;
		if (_lifetime.expired()) return;   // the session is gone (its lease returned), and the COPY with it
		_session._copyInProgress = false;
		_session._writer.begin('f');
		_session._writer.putCString(reason.find('\0') == std::string::npos ? reason : std::string("aborted"));
		_session._writer.end();
		_session.sendWriterReading(_session._writer.size());
		try
		{
			_session.readCycle();
		}
		catch (BlueTuskServerException& exc)
		{
			if (!exc.sessionUsable()) throw;   // the expected 57014 "COPY from stdin failed" is the point
		}
	}

	bool isOpen() const
	{
		return _open && !_lifetime.expired();
	}

	bool isBinary() const
	{
		return _binary;
	}

private:
	void check()
	{
		if (_lifetime.expired())
			throw BlueTuskUsageException("the session of this CopyIn was closed (its connection went back to the pool before finish() or abort())");
		if (!_open) throw BlueTuskUsageException("the COPY is over (finish() or abort() was called)");
		if (_session.isBroken())
		{
			_open = false;
			_session._copyInProgress = false;
			throw BlueTuskSessionBrokenException("the session to " + _session.where() + " broke during the COPY", AddressAttempt::CLOSED);
		}
	}

	void send()
	{
		try
		{
			// While a chunk waits for room, what the server sends meanwhile (a trigger's notices, say) is read
			// and handled, so that neither side blocks on a full socket (PostgreSQL docs 55.2.6: the
			// backend may send NoticeResponse during a COPY; libpq's pqPutCopyData() reads them too).
			_session.sendWriterReading(_session._writer.size());
			// What arrived without a send having to wait is read as well (plain sockets: TLS may hold a
			// partial record), so that an ErrorResponse ends the COPY at once instead of at finish(): the
			// server drops every CopyData after it (PostgreSQL docs 55.2.6), as libpq's pqPutCopyData() stops.
			try
			{
				if (!_session._socket.impl()->secure() && _session._socket.available() > 0 && !_session._reader.receiveSome(_session._socket))
					throw Poco::Net::ConnectionResetException("the server closed the connection");
			}
			catch (Poco::Exception& exc)
			{
				_session.sendFailed(exc);
			}
			_session.handleBufferedAsync();
			if (_session._reader.nextType() == 'E' && _session._reader.complete())
			{
				_open = false;
				_session._copyInProgress = false;
				_session.readCycle();   // the ErrorResponse, then ReadyForQuery: throws the server's error
				throw BlueTuskProtocolException("the server ended the COPY on " + _session.where() + " with an error it did not send");
			}
		}
		catch (...)
		{
			_open = false;
			_session._copyInProgress = false;
			throw;
		}
	}

	ProtocolSession& _session;
	std::weak_ptr<int> _lifetime;   /// expired once the session is destroyed (a lease returned with the COPY open)
	bool _open = true;
	bool _binary;
	bool _headerDone = false;
	std::size_t _columns;
	std::vector<Poco::UInt32> _types;
	std::string _row;
};

} // namespace Detail


void ProtocolSession::startCopy(const std::string& sql, char expected, std::vector<Poco::Int16>* formats)
{
	ensureUsable();
	refuseBehindPooler(sql);   // the COPY statement's text (COPY (SELECT pg_advisory_lock(1)) TO STDOUT), never its data
	if (_discardPending) reset(true);
	try
	{
		_writer.query(sql);
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_cancelSentForTimeout = false;
	sendWriter();
	BackendMessage message;
	for (;;)
	{
		receiveInCycle(message);
		try
		{
			switch (message.type)
			{
			case 'G':
			case 'H':
				if (message.type != expected)
				{
					if (message.type == 'G')
					{
						_writer.begin('f');
						_writer.putCString("expected COPY TO STDOUT");
						_writer.end();
						sendWriter();
					}
					drainToReady();
					throw BlueTuskUsageException(std::string("\"") + sql + "\" is a COPY " + (message.type == 'G' ? "FROM STDIN: use copyIn()" : "TO STDOUT: use copyOut()"));
				}
				if (formats) *formats = Detail::copyFormats(message);
				return;
			case 'E':
				{
					BlueTuskServerException::Fields fields = errorOrFatal(message);
					drainToReady();
					throw BlueTuskServerException(fields, true);
				}
			case 'T': case 'D': case 'C': case 'I': case 'Z':
				if (message.type == 'Z') handleReady(message);
				else drainToReady();
				throw BlueTuskUsageException("\"" + sql + "\" is not a COPY " + (expected == 'G' ? "... FROM STDIN" : "... TO STDOUT") + " (it ran to its end)");
			default:
				if (!handleAsync(message))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " at the start of a COPY");
				break;
			}
		}
		catch (BlueTuskProtocolException&)
		{
			markBroken();
			closeSocket();
			throw;
		}
	}
}


std::unique_ptr<CopyIn> ProtocolSession::copyIn(const std::string& sql, const std::vector<Poco::UInt32>& columnTypes)
{
	std::vector<Poco::Int16> formats;
	startCopy(sql, 'G', &formats);
	const bool binary = !formats.empty() && formats[0] == 1;
	return std::unique_ptr<CopyIn>(new Detail::ProtocolCopyIn(*this, binary, formats.empty() ? 0 : formats.size() - 1, columnTypes));
}


Poco::UInt64 ProtocolSession::copyOut(const std::string& sql, const std::function<void(const char* data, std::size_t size)>& onData)
{
	startCopy(sql, 'H', nullptr);
	Poco::UInt64 rows = 0;
	std::exception_ptr failure;
	std::unique_ptr<BlueTuskServerException> error;
	readToReady("during COPY TO STDOUT", [&](const MessageReader::View& view)
	{
		switch (view.type)
		{
		case 'd':
			if (!failure)
			{
				try
				{
					onData(view.body, view.length);
				}
				catch (...)
				{
					failure = std::current_exception();
				}
			}
			return true;
		case 'c':
			return true;
		case 'C':
			{
				QueryResult tag;
				Detail::decodeCommandComplete(view.type, view.body, view.length, tag.commandTag);
				rows = tag.rowsAffected();
			}
			return true;
		case 'E':
			{
				BackendMessage message;
				BlueTuskServerException::Fields fields = errorOrFatal(Detail::copyOf(view, message));
				if (!error) error.reset(new BlueTuskServerException(fields, true));
			}
			return true;
		default:
			return false;   // the asynchronous messages
		}
	});
	// After the reading: the consumer's exception (even a BlueTuskProtocolException of its own, as
	// BinaryCopyReader throws for data that is not binary COPY) does not break the session.
	if (failure) std::rethrow_exception(failure);
	if (error) error->rethrow();
	return rows;
}

} // namespace BlueTusk
