//
// Extractor.cpp
//
// Library: BlueTusk/Data
//

#include "Extractor.h"
#include "FieldConversion.h"
#include "Poco/Data/DataException.h"
#include <limits>

namespace BlueTusk {
namespace Data {

using Detail::Field;
using Detail::convert;

namespace {

template <typename T>
void narrow(const Field& field, Poco::Int64 wide, T& value, const char* cppType)
{
	if (wide < static_cast<Poco::Int64>(std::numeric_limits<T>::min()) ||
		(wide > 0 && static_cast<Poco::UInt64>(wide) > static_cast<Poco::UInt64>(std::numeric_limits<T>::max())))
		Detail::conversionFailed(field, cppType, "the value " + std::to_string(wide) + " does not fit");
	value = static_cast<T>(wide);
}


#define BLUETUSK_NARROW(T, NAME) \
	void convertInto(const Field& field, T& value) \
	{ \
		Poco::Int64 wide = 0; \
		convert(field, wide); \
		narrow(field, wide, value, NAME); \
	}
BLUETUSK_NARROW(Poco::Int8, "Int8")
BLUETUSK_NARROW(Poco::UInt8, "UInt8")
BLUETUSK_NARROW(Poco::Int16, "Int16")
BLUETUSK_NARROW(Poco::UInt16, "UInt16")
BLUETUSK_NARROW(Poco::Int32, "Int32")
BLUETUSK_NARROW(Poco::UInt32, "UInt32")
#ifndef POCO_INT64_IS_LONG
BLUETUSK_NARROW(long, "long")
BLUETUSK_NARROW(unsigned long, "unsigned long")
#endif
#undef BLUETUSK_NARROW

template <typename T>
void convertInto(const Field& field, T& value)
{
	convert(field, value);
}

} // namespace


Extractor::Extractor(const ResultCursor& cursor): _cursor(cursor)
{
}


Extractor::~Extractor()
{
}


FieldRef Extractor::field(std::size_t pos, std::size_t row) const
{
	if (!_cursor.result || row >= _cursor.result->rows.size())
		throw Poco::Data::ExtractException("no row to extract from (row " + std::to_string(row + 1) + ")");
	const RowRef fields = _cursor.result->rows[row];
	if (pos >= fields.size() || pos >= _cursor.result->columns.size())
		throw Poco::Data::ExtractException("column " + std::to_string(pos + 1) + " does not exist; the result has " +
			std::to_string(_cursor.result->columns.size()) + " columns");
	return fields[pos];
}


template <typename T>
bool Extractor::read(std::size_t pos, std::size_t row, T& val)
{
	const FieldRef value = field(pos, row);
	if (value.isNull()) return false;
	convertInto(Field{_cursor.result->columns[pos], value.view(), pos + 1}, val);
	return true;
}


template <typename C>
bool Extractor::readColumn(std::size_t pos, C& values)
{
	const std::size_t rows = std::min(values.size(), rowsAvailable());
	values.resize(rows);
	std::size_t row = _cursor.row;
	for (auto it = values.begin(); it != values.end(); ++it, ++row)
	{
		typename C::value_type value{};
		read(pos, row, value);   // NULL leaves the default value
		*it = value;
	}
	return true;
}


#define BLUETUSK_EXTRACT_SCALAR(T) \
	bool Extractor::extract(std::size_t pos, T& val) { return read(pos, _cursor.row, val); }
BLUETUSK_EXTRACTOR_TYPES(BLUETUSK_EXTRACT_SCALAR)
BLUETUSK_EXTRACTOR_LONG_TYPES(BLUETUSK_EXTRACT_SCALAR)
#undef BLUETUSK_EXTRACT_SCALAR


template <typename T>
bool Extractor::readNullable(std::size_t pos, Poco::Nullable<T>& val)
{
	T value{};
	if (read(pos, _cursor.row, value)) val = std::move(value);
	else val.clear();
	return true;
}


#if BLUETUSK_POCO_NULLABLE_EXTRACTION
#define BLUETUSK_EXTRACT_NULLABLE(T) \
	bool Extractor::extract(std::size_t pos, Poco::Nullable<T>& val) { return readNullable(pos, val); }
BLUETUSK_EXTRACTOR_TYPES(BLUETUSK_EXTRACT_NULLABLE)
BLUETUSK_EXTRACTOR_LONG_TYPES(BLUETUSK_EXTRACT_NULLABLE)
#undef BLUETUSK_EXTRACT_NULLABLE
#endif


#define BLUETUSK_EXTRACT_CONTAINERS(T) \
	bool Extractor::extract(std::size_t pos, std::vector<T>& val) { return readColumn(pos, val); } \
	bool Extractor::extract(std::size_t pos, std::deque<T>& val) { return readColumn(pos, val); } \
	bool Extractor::extract(std::size_t pos, std::list<T>& val) { return readColumn(pos, val); }
BLUETUSK_EXTRACTOR_TYPES(BLUETUSK_EXTRACT_CONTAINERS)
#undef BLUETUSK_EXTRACT_CONTAINERS


bool Extractor::isNull(std::size_t col, std::size_t row)
{
	const std::size_t index = row == Poco::Data::POCO_DATA_INVALID_ROW ? _cursor.row : _cursor.row + row;
	return field(col, index).isNull();
}


std::size_t Extractor::rowsAvailable() const
{
	if (!_cursor.result || _cursor.row >= _cursor.result->rows.size()) return 0;
	return _cursor.result->rows.size() - _cursor.row;
}

} } // namespace BlueTusk::Data
