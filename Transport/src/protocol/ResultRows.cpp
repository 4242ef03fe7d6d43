//
// ResultRows.cpp
//
// Library: BlueTusk/Transport
//
// The arena of a held result: rows packed as [UInt16 n][UInt32 end x n][values], ends relative to the
// first value's byte, NULL marked by RowRef::NULL_BIT on an unchanged end (doc/performance.md, row 15a).
//

#include "BlueTusk/ResultRows.h"
#include "BlueTusk/BlueTuskException.h"
#include <algorithm>
#include <new>
#include <utility>

namespace BlueTusk {

namespace {

const std::size_t FIRST_BLOCK = 512;
const std::size_t MAX_BLOCK = 64 * 1024;
const std::size_t OWN_BLOCK = MAX_BLOCK / 4;   // a row larger than this gets a block of its own
const std::size_t MAX_ROW = 0x7FFFFFFFu;


inline Poco::UInt32 readBigEndian32(const char* at)
{
	const unsigned char* b = reinterpret_cast<const unsigned char*>(at);
	return (Poco::UInt32(b[0]) << 24) | (Poco::UInt32(b[1]) << 16) | (Poco::UInt32(b[2]) << 8) | Poco::UInt32(b[3]);
}


[[noreturn]] void malformedDataRow(const std::string& what)
{
	throw BlueTuskProtocolException("malformed DataRow message from the server: " + what);
}

} // namespace


struct ResultRows::Block
{
	Block* previous;
};


std::size_t RowRef::bytes() const
{
	const std::size_t count = size();
	if (count == 0) return sizeof(Poco::UInt16);
	Poco::UInt32 end;
	std::memcpy(&end, _packed + sizeof(Poco::UInt16) + 4 * (count - 1), 4);
	return sizeof(Poco::UInt16) + 4 * count + (end & ~NULL_BIT);
}


RowRef::operator Row () const
{
	Row row;
	const std::size_t count = size();
	row.reserve(count);
	for (std::size_t i = 0; i < count; ++i) row.push_back(static_cast<FieldValue>((*this)[i]));
	return row;
}


ResultRows::ResultRows(std::initializer_list<Row> rows)
{
	_rows.reserve(rows.size());
	for (const Row& row: rows) append(row);
}


ResultRows::ResultRows(const ResultRows& other)
{
	_rows.reserve(other.size());
	for (RowRef row: other) append(row);
}


ResultRows::ResultRows(ResultRows&& other) noexcept:
	_rows(std::move(other._rows)),
	_blocks(std::exchange(other._blocks, nullptr)),
	_free(std::exchange(other._free, nullptr)),
	_left(std::exchange(other._left, 0)),
	_nextBlock(std::exchange(other._nextBlock, FIRST_BLOCK)),
	_arenaBytes(std::exchange(other._arenaBytes, 0))
{
	other._rows.clear();
}


ResultRows& ResultRows::operator = (const ResultRows& other)
{
	if (this != &other)
	{
		ResultRows copy(other);
		*this = std::move(copy);
	}
	return *this;
}


ResultRows& ResultRows::operator = (ResultRows&& other) noexcept
{
	if (this != &other)
	{
		release();
		_rows = std::move(other._rows);
		other._rows.clear();
		_blocks = std::exchange(other._blocks, nullptr);
		_free = std::exchange(other._free, nullptr);
		_left = std::exchange(other._left, 0);
		_nextBlock = std::exchange(other._nextBlock, FIRST_BLOCK);
		_arenaBytes = std::exchange(other._arenaBytes, 0);
	}
	return *this;
}


ResultRows::~ResultRows()
{
	release();
}


void ResultRows::release()
{
	while (_blocks)
	{
		Block* previous = _blocks->previous;
		::operator delete(_blocks);
		_blocks = previous;
	}
	_free = nullptr;
	_left = 0;
	_nextBlock = FIRST_BLOCK;
	_arenaBytes = 0;
}


void ResultRows::clear()
{
	_rows.clear();
	release();
}


char* ResultRows::allocate(std::size_t bytes)
{
	if (bytes <= _left)
	{
		char* at = _free;
		_free += bytes;
		_left -= bytes;
		return at;
	}
	if (bytes > OWN_BLOCK)
	{
		// A block of its own, chained behind the current one so that the current block's rest stays in use.
		Block* own = static_cast<Block*>(::operator new(sizeof(Block) + bytes));
		_arenaBytes += sizeof(Block) + bytes;
		if (_blocks)
		{
			own->previous = _blocks->previous;
			_blocks->previous = own;
		}
		else
		{
			own->previous = nullptr;
			_blocks = own;
		}
		return reinterpret_cast<char*>(own + 1);
	}
	std::size_t size = std::max(_nextBlock, bytes);
	_nextBlock = std::min(_nextBlock * 2, MAX_BLOCK);
	Block* block = static_cast<Block*>(::operator new(sizeof(Block) + size));
	_arenaBytes += sizeof(Block) + size;
	block->previous = _blocks;
	_blocks = block;
	char* at = reinterpret_cast<char*>(block + 1);
	_free = at + bytes;
	_left = size - bytes;
	return at;
}


void ResultRows::append(const Row& row)
{
	if (row.size() > 0xFFFF) throw std::length_error("ResultRows::append: more than 65,535 fields in a row");
	std::size_t valueBytes = 0;
	for (const FieldValue& value: row)
		if (value) valueBytes += value->size();
	if (valueBytes > MAX_ROW) throw std::length_error("ResultRows::append: a row of more than 2 GB");
	const std::size_t count = row.size();
	char* packed = allocate(sizeof(Poco::UInt16) + 4 * count + valueBytes);
	const Poco::UInt16 count16 = static_cast<Poco::UInt16>(count);
	std::memcpy(packed, &count16, sizeof(count16));
	char* table = packed + sizeof(Poco::UInt16);
	char* values = table + 4 * count;
	Poco::UInt32 end = 0;
	for (std::size_t i = 0; i < count; ++i)
	{
		Poco::UInt32 mark = end | RowRef::NULL_BIT;
		if (row[i])
		{
			if (!row[i]->empty()) std::memcpy(values + end, row[i]->data(), row[i]->size());
			end += static_cast<Poco::UInt32>(row[i]->size());
			mark = end;
		}
		std::memcpy(table + 4 * i, &mark, 4);
	}
	_rows.push_back(packed);
}


void ResultRows::append(RowRef row)
{
	const std::size_t bytes = row.bytes();
	char* packed = allocate(bytes);
	std::memcpy(packed, row.packed(), bytes);
	_rows.push_back(packed);
}


void ResultRows::appendDataRow(const char* body, std::size_t length, std::size_t expectedColumns)
{
	// The packed row has the body's size exactly: the count (2 bytes), one 4-byte word per value (its
	// length there, its end offset here) and the values. Any fault is named by the walk of diagnose().
	if (length < 2) malformedDataRow("too short");
	const Poco::Int16 count = static_cast<Poco::Int16>((Poco::UInt16(static_cast<unsigned char>(body[0])) << 8) | static_cast<unsigned char>(body[1]));
	if (count < 0 || static_cast<std::size_t>(count) != expectedColumns)
		malformedDataRow(std::to_string(count) + " columns where the row description has " + std::to_string(expectedColumns));
	const std::size_t header = 2 + 4 * static_cast<std::size_t>(count);
	if (length < header || length > MAX_ROW) diagnose(body, length, count);
	const bool fresh = length > _left;   // taken from a new block: a rollback cannot return it
	char* packed = allocate(length);
	const Poco::UInt16 count16 = static_cast<Poco::UInt16>(count);
	std::memcpy(packed, &count16, sizeof(count16));
	char* table = packed + sizeof(Poco::UInt16);
	char* values = packed + header;
	const char* in = body + 2;
	const char* const last = body + length;
	Poco::UInt32 end = 0;
	bool bad = false;
	for (Poco::Int16 i = 0; i < count && !bad; ++i)
	{
		if (last - in < 4) { bad = true; break; }
		const Poco::Int32 size = static_cast<Poco::Int32>(readBigEndian32(in));
		in += 4;
		Poco::UInt32 mark = end | RowRef::NULL_BIT;
		if (size != -1)
		{
			if (size < 0 || static_cast<std::size_t>(last - in) < static_cast<std::size_t>(size)) { bad = true; break; }
			std::memcpy(values + end, in, static_cast<std::size_t>(size));
			in += size;
			end += static_cast<Poco::UInt32>(size);
			mark = end;
		}
		std::memcpy(table + 4 * i, &mark, 4);
	}
	if (bad || in != last)
	{
		if (!fresh)
		{
			_free = packed;
			_left += length;
		}
		diagnose(body, length, count);
	}
	_rows.push_back(packed);
}


void ResultRows::diagnose(const char* body, std::size_t length, Poco::Int16 count)
{
	// The messages of Detail::decodeDataRow, found by the same walk.
	const char* in = body + 2;
	const char* const last = body + length;
	for (Poco::Int16 i = 0; i < count; ++i)
	{
		if (last - in < 4) malformedDataRow("column " + std::to_string(i + 1) + " is truncated");
		const Poco::Int32 size = static_cast<Poco::Int32>(readBigEndian32(in));
		in += 4;
		if (size == -1) continue;
		if (size < 0) malformedDataRow("negative length in column " + std::to_string(i + 1));
		if (static_cast<std::size_t>(last - in) < static_cast<std::size_t>(size)) malformedDataRow("column " + std::to_string(i + 1) + " is truncated");
		in += size;
	}
	if (in != last) malformedDataRow("trailing data");
	malformedDataRow("a row of more than 2 GB");
}

} // namespace BlueTusk
