//
// BinaryCopyReader.cpp
//
// Library: BlueTusk/Transport
//
// PostgreSQL's binary COPY format (docs, COPY, "File Formats: Binary Format"), parsed incrementally.
//

#include "BlueTusk/BinaryCopyReader.h"
#include "BlueTusk/BlueTuskException.h"
#include <cstring>

namespace BlueTusk {

namespace {

const char SIGNATURE[] = "PGCOPY\n\377\r\n";   // 11 bytes with the terminating NUL
const std::size_t SIGNATURE_SIZE = 11;


Poco::Int32 int32At(const std::string& buffer, std::size_t offset)
{
	const unsigned char* p = reinterpret_cast<const unsigned char*>(buffer.data() + offset);
	return static_cast<Poco::Int32>((Poco::UInt32(p[0]) << 24) | (Poco::UInt32(p[1]) << 16) | (Poco::UInt32(p[2]) << 8) | Poco::UInt32(p[3]));
}


Poco::Int16 int16At(const std::string& buffer, std::size_t offset)
{
	const unsigned char* p = reinterpret_cast<const unsigned char*>(buffer.data() + offset);
	return static_cast<Poco::Int16>((p[0] << 8) | p[1]);
}

} // namespace


BinaryCopyReader::BinaryCopyReader(const std::vector<Poco::UInt32>& columnTypes, std::function<void(const RowView&)> onRow):
	_onRow(std::move(onRow))
{
	for (std::size_t i = 0; i < columnTypes.size(); ++i)
	{
		ColumnDescription column;
		column.name = "column" + std::to_string(i + 1);
		column.typeOid = columnTypes[i];
		column.formatCode = 1;
		_columns.push_back(column);
	}
}


void BinaryCopyReader::feed(const char* data, std::size_t size)
{
	if (_trailerSeen && size > 0)
		throw BlueTuskProtocolException("binary COPY: data after the trailer");
	_buffer.append(data, size);
	while (!_trailerSeen && (_headerDone ? parseTuple() : parseHeader()))
	{
	}
	// Keep only the incomplete tail: the buffer holds at most one tuple.
	if (_offset > 0)
	{
		_buffer.erase(0, _offset);
		_offset = 0;
	}
	if (_trailerSeen && !_buffer.empty())
		throw BlueTuskProtocolException("binary COPY: data after the trailer");
}


bool BinaryCopyReader::parseHeader()
{
	const std::size_t available = _buffer.size() - _offset;
	if (available >= 1 && std::memcmp(_buffer.data() + _offset, SIGNATURE, std::min(available, SIGNATURE_SIZE)) != 0)
		throw BlueTuskProtocolException("binary COPY: the data does not start with the PGCOPY signature (a text or CSV COPY? use FORMAT binary)");
	if (available < SIGNATURE_SIZE + 8) return false;
	const Poco::Int32 extension = int32At(_buffer, _offset + SIGNATURE_SIZE + 4);
	if (extension < 0)
		throw BlueTuskProtocolException("binary COPY: negative header extension length");
	if (available < SIGNATURE_SIZE + 8 + static_cast<std::size_t>(extension)) return false;
	_offset += SIGNATURE_SIZE + 8 + static_cast<std::size_t>(extension);
	_headerDone = true;
	return true;
}


bool BinaryCopyReader::parseTuple()
{
	const std::size_t start = _offset;
	if (_buffer.size() - start < 2) return false;
	const Poco::Int16 count = int16At(_buffer, start);
	if (count == -1)
	{
		_offset = start + 2;
		_trailerSeen = true;
		return false;
	}
	if (count < 0)
		throw BlueTuskProtocolException("binary COPY: negative field count " + std::to_string(count));
	if (static_cast<std::size_t>(count) != _columns.size())
		throw BlueTuskUsageException("binary COPY: a row has " + std::to_string(count) + " fields but " +
			std::to_string(_columns.size()) + " column types were given");
	std::size_t position = start + 2;
	_row.resize(static_cast<std::size_t>(count));
	for (Poco::Int16 field = 0; field < count; ++field)
	{
		if (_buffer.size() - position < 4) return false;
		const Poco::Int32 length = int32At(_buffer, position);
		position += 4;
		if (length == -1)
		{
			_row[static_cast<std::size_t>(field)].reset();
			continue;
		}
		if (length < 0)
			throw BlueTuskProtocolException("binary COPY: negative field length " + std::to_string(length));
		if (_buffer.size() - position < static_cast<std::size_t>(length)) return false;
		_row[static_cast<std::size_t>(field)] = std::string(_buffer.data() + position, static_cast<std::size_t>(length));
		position += static_cast<std::size_t>(length);
	}
	_offset = position;
	++_rows;
	_onRow(RowView(_columns, _row));
	return true;
}


void BinaryCopyReader::finish() const
{
	if (!_trailerSeen)
		throw BlueTuskProtocolException(_headerDone ? "binary COPY: the data ended inside a row, before the trailer" :
			"binary COPY: the data ended before the file header was complete");
}


Poco::UInt64 BinaryCopyReader::rows() const
{
	return _rows;
}

} // namespace BlueTusk
