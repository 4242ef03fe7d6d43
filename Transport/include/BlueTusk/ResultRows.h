//
// ResultRows.h
//
// Library: BlueTusk/Transport
//
// The rows of a held result, packed into per-result arena blocks: FieldRef, RowRef and ResultRows.
//

#ifndef BlueTusk_ResultRows_INCLUDED
#define BlueTusk_ResultRows_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace BlueTusk {

using FieldValue = std::optional<std::string>;
	/// A field's bytes as the server sent them (text format unless its column's formatCode is 1);
	/// std::nullopt is SQL NULL, distinct from the empty string.

using Row = std::vector<FieldValue>;
	/// A row as separate values: what the streaming reads (Session::queryEach), BinaryCopyReader and
	/// ResultRows::append() use. The held rows of a QueryResult are ResultRows instead.


class BlueTusk_Transport_API FieldRef
	/// One field of a row, not owned: a pointer and a length into the result's storage, or NULL. Reads
	/// like the std::optional<std::string> (FieldValue) that QueryResult::rows held before issue 38:
	/// `*field` and value() give a std::string (a copy), `field->size()` and view() read in place without
	/// one, `!field` tests NULL; it converts to FieldValue and compares with FieldValue, std::string,
	/// std::string_view, const char* and std::nullopt. Valid while the result it points into lives
	/// (moving a QueryResult keeps it valid; copying makes new storage). Cheap to copy; thread-safe for
	/// reading.
{
public:
	FieldRef() = default;
		/// NULL.

	FieldRef(const char* data, std::size_t size): _data(data), _size(static_cast<Poco::Int64>(size)) {}
		/// The size bytes at data (not copied).

	FieldRef(const FieldValue& value): _data(value ? value->data() : nullptr), _size(value ? static_cast<Poco::Int64>(value->size()) : -1) {}
		/// The bytes of value (not copied; value must outlive this), or NULL.

	bool isNull() const { return _size < 0; }
		/// True for SQL NULL.

	bool has_value() const { return _size >= 0; }
		/// False for SQL NULL (as std::optional).

	explicit operator bool () const { return _size >= 0; }
		/// False for SQL NULL (as std::optional).

	const char* data() const { return _size < 0 ? "" : _data; }
		/// The first byte (not NUL-terminated); "" for NULL.

	std::size_t size() const { return _size < 0 ? 0 : static_cast<std::size_t>(_size); }
		/// The number of bytes; 0 for NULL.

	std::string_view view() const { return std::string_view(data(), size()); }
		/// The bytes in place; empty for NULL.

	std::string value() const
		/// The bytes as a std::string; throws std::bad_optional_access for NULL (as std::optional).
	{
		if (_size < 0) throw std::bad_optional_access();
		return std::string(_data, static_cast<std::size_t>(_size));
	}

	std::string value_or(std::string_view otherwise) const { return std::string(_size < 0 ? otherwise : view()); }
		/// The bytes, or otherwise for NULL.

	std::string operator * () const { return std::string(view()); }
		/// The bytes as a std::string ("" for NULL, where std::optional's is undefined).

	class Arrow
		/// What operator -> returns: `field->size()`, `field->data()`, `field->compare(...)` read the bytes
		/// through a std::string_view.
	{
	public:
		explicit Arrow(std::string_view view): _view(view) {}
		const std::string_view* operator -> () const { return &_view; }

	private:
		std::string_view _view;
	};

	Arrow operator -> () const { return Arrow(view()); }
		/// The bytes as a std::string_view, for member access.

	operator FieldValue () const
		/// A copy as FieldValue (std::nullopt for NULL).
	{
		if (_size < 0) return std::nullopt;
		return FieldValue(std::in_place, _data, static_cast<std::size_t>(_size));
	}

	bool equals(std::string_view other) const { return _size >= 0 && view() == other; }
		/// True when not NULL and the bytes are other.

	bool equals(const FieldRef& other) const { return isNull() ? other.isNull() : other.equals(view()); }
		/// True when both are NULL or both hold the same bytes.

private:
	const char* _data = nullptr;
	Poco::Int64 _size = -1;
};

inline bool operator == (const FieldRef& a, const FieldRef& b) { return a.equals(b); }
inline bool operator != (const FieldRef& a, const FieldRef& b) { return !a.equals(b); }
inline bool operator == (const FieldRef& a, const FieldValue& b) { return a.equals(FieldRef(b)); }
inline bool operator != (const FieldRef& a, const FieldValue& b) { return !a.equals(FieldRef(b)); }
inline bool operator == (const FieldValue& a, const FieldRef& b) { return b.equals(FieldRef(a)); }
inline bool operator != (const FieldValue& a, const FieldRef& b) { return !b.equals(FieldRef(a)); }
inline bool operator == (const FieldRef& a, const std::string& b) { return a.equals(std::string_view(b)); }
inline bool operator != (const FieldRef& a, const std::string& b) { return !a.equals(std::string_view(b)); }
inline bool operator == (const std::string& a, const FieldRef& b) { return b.equals(std::string_view(a)); }
inline bool operator != (const std::string& a, const FieldRef& b) { return !b.equals(std::string_view(a)); }
inline bool operator == (const FieldRef& a, std::string_view b) { return a.equals(b); }
inline bool operator != (const FieldRef& a, std::string_view b) { return !a.equals(b); }
inline bool operator == (const FieldRef& a, const char* b) { return a.equals(std::string_view(b)); }
inline bool operator != (const FieldRef& a, const char* b) { return !a.equals(std::string_view(b)); }
inline bool operator == (const FieldRef& a, std::nullopt_t) { return a.isNull(); }
inline bool operator != (const FieldRef& a, std::nullopt_t) { return !a.isNull(); }


class BlueTusk_Transport_API RowRef
	/// One held row of a ResultRows, not owned: size(), operator [] and at() give its fields as FieldRef,
	/// begin()/end() iterate them, and it converts to Row (a copy) where code wants separate values. Valid
	/// while the ResultRows it points into lives. Cheap to copy (one pointer); thread-safe for reading.
	///
	/// The packed layout (ResultRows.cpp): a 2-byte field count n, n 4-byte end offsets (native byte order;
	/// the top bit marks NULL) and the fields' bytes one after the other, all read with memcpy (unaligned).
{
public:
	explicit RowRef(const char* packed): _packed(packed) {}
		/// The row stored at packed (ResultRows's layout).

	std::size_t size() const
		/// The number of fields.
	{
		Poco::UInt16 count;
		std::memcpy(&count, _packed, sizeof(count));
		return count;
	}

	bool empty() const { return size() == 0; }
		/// True for a row without fields.

	FieldRef operator [] (std::size_t index) const
		/// The field at index (0-based, unchecked).
	{
		const char* table = _packed + sizeof(Poco::UInt16);
		Poco::UInt32 end;
		std::memcpy(&end, table + 4 * index, 4);
		if (end & NULL_BIT) return FieldRef();
		Poco::UInt32 begin = 0;
		if (index > 0)
		{
			std::memcpy(&begin, table + 4 * (index - 1), 4);
			begin &= ~NULL_BIT;
		}
		return FieldRef(table + 4 * size() + begin, end - begin);
	}

	FieldRef at(std::size_t index) const
		/// The field at index; throws std::out_of_range past the last field (as std::vector::at).
	{
		if (index >= size()) throw std::out_of_range("RowRef::at: field " + std::to_string(index) + " of " + std::to_string(size()));
		return (*this)[index];
	}

	FieldRef front() const { return at(0); }
		/// The first field.

	FieldRef back() const { return at(size() - 1); }
		/// The last field.

	std::size_t bytes() const;
		/// The bytes the packed row takes (count, offsets and values).

	const char* packed() const { return _packed; }
		/// The packed row (ResultRows's layout).

	operator Row () const;
		/// A copy as separate values.

	class Iterator
		/// Iterates the fields as FieldRef (a forward iterator).
	{
	public:
		using iterator_category = std::forward_iterator_tag;
		using value_type = FieldRef;
		using difference_type = std::ptrdiff_t;
		using pointer = void;
		using reference = FieldRef;

		Iterator(const RowRef& row, std::size_t index): _row(row._packed), _index(index) {}
		FieldRef operator * () const { return RowRef(_row)[_index]; }
		Iterator& operator ++ () { ++_index; return *this; }
		Iterator operator ++ (int) { Iterator before = *this; ++_index; return before; }
		bool operator == (const Iterator& other) const { return _index == other._index; }
		bool operator != (const Iterator& other) const { return _index != other._index; }

	private:
		const char* _row;
		std::size_t _index;
	};

	Iterator begin() const { return Iterator(*this, 0); }
	Iterator end() const { return Iterator(*this, size()); }

	static constexpr Poco::UInt32 NULL_BIT = 0x80000000u;
		/// The end offset's NULL mark.

private:
	const char* _packed;
};


class BlueTusk_Transport_API ResultRows
	/// The rows of a QueryResult, held like libpq's PGresult: each DataRow's values packed into arena blocks
	/// owned by this object (blocks grow from 512 B to 64 kB, one allocation each; a row over 16 kB gets a
	/// block of its own), plus one pointer per row. A row of n fields takes its DataRow body's size
	/// (2 + 4 n bytes + the values) and 8 B, where a std::vector<std::optional<std::string>> took 24 B
	/// per row, 32 B per field and a heap block per value past 15 bytes (doc/performance.md, row 15a).
	///
	/// Reads like the std::vector<Row> it replaced: size(), empty(), operator [], at(), front(), back(),
	/// begin()/end() give RowRef. Writes only through the appenders: append() for a Row or RowRef (tests,
	/// builders) and appendDataRow() for a DataRow body (the session). Moving keeps every RowRef and
	/// FieldRef valid; copying packs the rows anew. Not thread-safe for writing; reading from several
	/// threads is safe.
{
public:
	ResultRows() = default;
	ResultRows(std::initializer_list<Row> rows);
		/// The rows given, appended in order.
	ResultRows(const ResultRows& other);
		/// A copy: other's rows packed anew into arena blocks of its own.

	ResultRows(ResultRows&& other) noexcept;
		/// Takes other's rows and arena (the RowRef and FieldRef into it stay valid); other is left empty.

	ResultRows& operator = (const ResultRows& other);
		/// Replaces the rows by a copy of other's (this object's RowRef and FieldRef become invalid).

	ResultRows& operator = (ResultRows&& other) noexcept;
		/// Replaces the rows by other's, arena and all; other is left empty.

	~ResultRows();
		/// Frees the arena: every RowRef and FieldRef into it becomes invalid.

	std::size_t size() const { return _rows.size(); }
		/// The number of rows.

	bool empty() const { return _rows.empty(); }
		/// True without rows.

	RowRef operator [] (std::size_t index) const { return RowRef(_rows[index]); }
		/// The row at index (0-based, unchecked).

	RowRef at(std::size_t index) const
		/// The row at index; throws std::out_of_range past the last row (as std::vector::at).
	{
		if (index >= _rows.size()) throw std::out_of_range("ResultRows::at: row " + std::to_string(index) + " of " + std::to_string(_rows.size()));
		return RowRef(_rows[index]);
	}

	RowRef front() const { return at(0); }
		/// The first row; throws std::out_of_range without rows.

	RowRef back() const { return at(_rows.size() - 1); }
		/// The last row; throws std::out_of_range without rows.

	class Iterator
		/// Iterates the rows as RowRef (a forward iterator).
	{
	public:
		using iterator_category = std::forward_iterator_tag;
		using value_type = RowRef;
		using difference_type = std::ptrdiff_t;
		using pointer = void;
		using reference = RowRef;

		explicit Iterator(const char* const* at): _at(at) {}
		RowRef operator * () const { return RowRef(*_at); }
		Iterator& operator ++ () { ++_at; return *this; }
		Iterator operator ++ (int) { Iterator before = *this; ++_at; return before; }
		bool operator == (const Iterator& other) const { return _at == other._at; }
		bool operator != (const Iterator& other) const { return _at != other._at; }

	private:
		const char* const* _at;
	};

	Iterator begin() const { return Iterator(_rows.data()); }
	Iterator end() const { return Iterator(_rows.data() + _rows.size()); }

	void append(const Row& row);
		/// Appends a copy of row; throws std::length_error past 65,535 fields or 2 GB in a row.

	void append(RowRef row);
		/// Appends a copy of row (which may belong to another ResultRows).

	void appendDataRow(const char* body, std::size_t length, std::size_t expectedColumns);
		/// Appends the row of a DataRow message body (PostgreSQL docs 55.7) of expectedColumns values;
		/// throws BlueTuskProtocolException ("malformed DataRow message ...") and appends nothing when the
		/// body is truncated, has trailing data or another number of values.

	void reserve(std::size_t rows) { _rows.reserve(rows); }
		/// Reserves the row index for rows rows (the arena grows by blocks).

	std::size_t capacity() const { return _rows.capacity(); }
		/// The rows the index holds without growing.

	void shrinkToFit() { _rows.shrink_to_fit(); }
		/// Releases the index's unused capacity.

	void clear();
		/// Removes every row and frees the arena.

	std::size_t arenaBytes() const { return _arenaBytes; }
		/// The bytes of the arena blocks allocated (for tests and benchmarks).

private:
	char* allocate(std::size_t bytes);
	void release();
	[[noreturn]] static void diagnose(const char* body, std::size_t length, Poco::Int16 count);

	struct Block;
	std::vector<const char*> _rows;
	Block* _blocks = nullptr;   // a chain, newest first
	char* _free = nullptr;
	std::size_t _left = 0;
	std::size_t _nextBlock = 512;
	std::size_t _arenaBytes = 0;
};

} // namespace BlueTusk

#endif // BlueTusk_ResultRows_INCLUDED
