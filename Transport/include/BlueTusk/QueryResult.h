//
// QueryResult.h
//
// Library: BlueTusk/Transport
//
// The rows, columns and command tag of one SQL statement, and typed access to a row.
//

#ifndef BlueTusk_QueryResult_INCLUDED
#define BlueTusk_QueryResult_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ResultRows.h"
#include "BlueTusk/ValueCodec.h"
#include "Poco/Types.h"
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Transport_API ColumnDescription
	/// One field of a RowDescription message (PostgreSQL docs 55.7).
{
	std::string name;
	Poco::UInt32 typeOid = 0;   /// the data type's OID (25 text, 23 int4, 16 bool, ...)
	Poco::UInt32 tableOid = 0;
	Poco::Int16 columnNumber = 0;
	Poco::Int16 typeSize = 0;
	Poco::Int32 typeModifier = 0;
	Poco::Int16 formatCode = 0; /// 0 text, 1 binary
};


namespace Detail {

template <typename T> struct CppTypeName { static constexpr const char* value = "the requested C++ type"; };
template <> struct CppTypeName<bool> { static constexpr const char* value = "bool"; };
template <> struct CppTypeName<Poco::Int16> { static constexpr const char* value = "int16"; };
template <> struct CppTypeName<Poco::Int32> { static constexpr const char* value = "int32"; };
template <> struct CppTypeName<Poco::Int64> { static constexpr const char* value = "int64"; };
template <> struct CppTypeName<float> { static constexpr const char* value = "float"; };
template <> struct CppTypeName<double> { static constexpr const char* value = "double"; };
template <> struct CppTypeName<std::string> { static constexpr const char* value = "std::string"; };
template <> struct CppTypeName<Bytes> { static constexpr const char* value = "BlueTusk::Bytes"; };
template <> struct CppTypeName<Poco::UUID> { static constexpr const char* value = "Poco::UUID"; };
template <> struct CppTypeName<Poco::Timestamp> { static constexpr const char* value = "Poco::Timestamp"; };
template <> struct CppTypeName<Poco::DateTime> { static constexpr const char* value = "Poco::DateTime"; };
template <> struct CppTypeName<Poco::Timespan> { static constexpr const char* value = "Poco::Timespan"; };

template <typename T, typename = void> struct ReadAs
	/// The type get<T>() decodes into: T itself, or for a signed integer type of 2, 4 or 8 bytes that is not
	/// one of Poco's (long long where Poco::Int64 is long, for instance) the Poco::IntN of its size.
{
	using type = T;
};

template <typename T> struct ReadAs<T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T> &&
	!std::is_same_v<T, char> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8)>>
{
	using type = std::conditional_t<sizeof(T) == 2, Poco::Int16, std::conditional_t<sizeof(T) == 4, Poco::Int32, Poco::Int64>>;
};

template <typename S, typename = void> struct IsReadable: std::false_type {};
template <typename S> struct IsReadable<S, std::void_t<decltype(ValueCodec::read(std::declval<const FieldView&>(), std::declval<S&>()))>>:
	std::true_type {};

} // namespace Detail


class BlueTusk_Transport_API RowView
	/// Typed access to one row of a QueryResult (which must outlive it):
	///
	///     for (RowView row: result)
	///         total += row.get<double>("amount") * row.get<Poco::Int32>(1);
	///     std::optional<std::string> note = result.row(0).get<std::optional<std::string>>("note");
	///
	/// get<T>() accepts the C++ types of ValueCodec (ValueCodec.h): bool, Poco::Int16/Int32/Int64, float,
	/// double, std::string, BlueTusk::Bytes, Poco::UUID, Poco::Timestamp, Poco::DateTime, Poco::Timespan and
	/// std::vector of them (arrays); every other signed integer type of 2, 4 or 8 bytes (short, int, long,
	/// long long, std::int64_t, ...) is read as the Poco::IntN of its size; and std::optional of each (NULL
	/// gives std::nullopt). Any other T fails to compile with one static_assert naming these types. It decodes the field from the format it arrived in (binary for prepared
	/// statements, text otherwise), so the same code reads both. Throws BlueTuskTypeException naming the
	/// column (1-based number and name), its PostgreSQL type and the C++ type when the conversion is
	/// not allowed, loses the value, or meets NULL with a non-optional T; BlueTuskUsageException for an
	/// index out of range or an unknown column name (listing the columns). The session is unaffected.
	/// Cheap to copy (three pointers); thread-safe for reading.
{
public:
	RowView(const std::vector<ColumnDescription>& columns, const Row& row);
		/// A view of a row of separate values (streamed rows, BinaryCopyReader).

	RowView(const std::vector<ColumnDescription>& columns, RowRef row): _columns(&columns), _row(nullptr), _packed(row.packed()) {}
		/// A view of a held row (QueryResult::rows), read in place.

	std::size_t size() const;
		/// The number of columns.

	template <typename T>
	T get(std::size_t index) const
		/// The field at index (0-based) as T.
	{
		return Getter<T>::get(*this, index);
	}

	template <typename T>
	T get(const std::string& name) const
		/// The first field whose column is called name, as T.
	{
		return Getter<T>::get(*this, columnIndex(name));
	}

	bool isNull(std::size_t index) const;
	bool isNull(const std::string& name) const;

	bool isInfinite(std::size_t index) const;
		/// True for a date, timestamp or timestamptz holding infinity or -infinity.

	const std::string& columnName(std::size_t index) const;
	Poco::UInt32 typeOid(std::size_t index) const;
		/// The column's type OID (TypeOid.h).

	std::size_t columnIndex(const std::string& name) const;
		/// The index of the first column called name; throws BlueTuskUsageException listing the columns.

	FieldRef raw(std::size_t index) const;
		/// The field's bytes as received, in place (see FieldRef; valid while the row's result lives).

private:
	template <typename T> static T read(const RowView& row, std::size_t index)
	{
		using S = typename Detail::ReadAs<T>::type;
		static_assert(Detail::IsReadable<S>::value, "RowView::get<T>(): T must be bool, a signed integer type "
			"(short, int, long, long long, Poco::Int16/32/64), float, double, std::string, BlueTusk::Bytes, "
			"Poco::UUID, Poco::Timestamp, Poco::DateTime, Poco::Timespan, a std::vector of one of those "
			"(with Poco::IntN for integers), or std::optional of any of them (doc/statements.md)");
		S value{};
		row.readInto(index, value, Detail::CppTypeName<S>::value);
		return static_cast<T>(value);
	}

	template <typename T> struct Getter
	{
		static T get(const RowView& row, std::size_t index)
		{
			return read<T>(row, index);
		}
	};

	template <typename T> struct Getter<std::optional<T>>
	{
		static std::optional<T> get(const RowView& row, std::size_t index)
		{
			if (row.isNull(index)) return std::nullopt;
			return read<T>(row, index);
		}
	};

	template <typename T>
	void readInto(std::size_t index, T& value, const char* cppType) const
	{
		const FieldRef field = checkedField(index);
		if (field.isNull()) nullError(index, cppType);
		try
		{
			ValueCodec::read(FieldView{(*_columns)[index].typeOid, (*_columns)[index].formatCode, field.data(), field.size()}, value);
		}
		catch (BlueTuskTypeException& exc)
		{
			rethrowNamed(index, exc);
		}
	}

	FieldRef checkedField(std::size_t index) const
	{
		if (_packed)
		{
			const RowRef row(_packed);
			if (index >= _columns->size() || index >= row.size()) rangeError(index);
			return row[index];
		}
		if (index >= _columns->size() || index >= _row->size()) rangeError(index);
		return FieldRef((*_row)[index]);
	}

	[[noreturn]] void rangeError(std::size_t index) const;
	[[noreturn]] void nullError(std::size_t index, const char* cppType) const;
	[[noreturn]] void rethrowNamed(std::size_t index, const BlueTuskTypeException& exc) const;
	std::string describeColumn(std::size_t index) const;

	const std::vector<ColumnDescription>* _columns;
	const Row* _row;          // separate values, or
	const char* _packed;      // a held row (RowRef's layout)
};

struct BlueTusk_Transport_API QueryResult
	/// The result of one statement: its columns and rows (empty for commands without rows) and the
	/// CommandComplete tag ("SELECT 3", "INSERT 0 1", "UPDATE 2").
{
	std::vector<ColumnDescription> columns;
	ResultRows rows;
		/// The rows, packed (ResultRows.h): rows[i][j] is a FieldRef that reads like
		/// std::optional<std::string>; rows.append() adds one.
	std::string commandTag;

	Poco::UInt64 rowsAffected() const;
		/// The row count at the end of the command tag (0 when it has none).

	int columnIndex(const std::string& name) const;
		/// The index of the first column called name, or -1.

	RowView row(std::size_t index) const;
		/// Typed access to rows[index]; throws BlueTuskUsageException when index >= rows.size().

	class Iterator
		/// Iterates the rows as RowView (a forward iterator).
	{
	public:
		using iterator_category = std::forward_iterator_tag;
		using value_type = RowView;
		using difference_type = std::ptrdiff_t;
		using pointer = void;
		using reference = RowView;

		Iterator(const QueryResult& result, std::size_t index): _result(&result), _index(index) {}
		RowView operator * () const { return RowView(_result->columns, _result->rows[_index]); }
		Iterator& operator ++ () { ++_index; return *this; }
		bool operator == (const Iterator& other) const { return _index == other._index; }
		bool operator != (const Iterator& other) const { return _index != other._index; }

	private:
		const QueryResult* _result;
		std::size_t _index;
	};

	Iterator begin() const { return Iterator(*this, 0); }
	Iterator end() const { return Iterator(*this, rows.size()); }
};

} // namespace BlueTusk

#endif // BlueTusk_QueryResult_INCLUDED
