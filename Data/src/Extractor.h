//
// Extractor.h
//
// Library: BlueTusk/Data
//
// Reads the fields of the current row (or, for bulk extraction, of the next rows) into the values
// Poco::Data extracts (into(), RecordSet).
//

#ifndef BlueTusk_Data_Extractor_INCLUDED
#define BlueTusk_Data_Extractor_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/QueryResult.h"
#include "PocoVersionAdapter.h"
#include "Poco/Data/AbstractExtractor.h"
#include "Poco/Nullable.h"
#include "Poco/Data/Date.h"
#include "Poco/Data/LOB.h"
#include "Poco/Data/Time.h"
#include "Poco/Dynamic/Var.h"
#include <deque>
#include <list>
#include <vector>

// The value types Poco::Data's AbstractExtractor extracts, as an X-macro: X(T) for each. Every overload
// family of Extractor (value, Nullable<T> on Poco 1.13 and later, vector/deque/list) is generated from it,
// so a type is added in one place. long and unsigned long are types of their own only where Poco::Int64 is
// not long (Poco's POCO_INT64_IS_LONG), and Poco has no container overloads for them.
#define BLUETUSK_EXTRACTOR_TYPES(X) \
	X(Poco::Int8) X(Poco::UInt8) X(Poco::Int16) X(Poco::UInt16) X(Poco::Int32) X(Poco::UInt32) \
	X(Poco::Int64) X(Poco::UInt64) X(bool) X(float) X(double) X(char) X(std::string) X(Poco::UTF16String) \
	X(Poco::Data::BLOB) X(Poco::Data::CLOB) X(Poco::DateTime) X(Poco::Data::Date) X(Poco::Data::Time) \
	X(Poco::UUID) X(Poco::Any) X(Poco::Dynamic::Var)
#ifndef POCO_INT64_IS_LONG
#define BLUETUSK_EXTRACTOR_LONG_TYPES(X) X(long) X(unsigned long)
#else
#define BLUETUSK_EXTRACTOR_LONG_TYPES(X)
#endif

namespace BlueTusk {
namespace Data {

struct BlueTusk_Data_API ResultCursor
	/// Where extraction reads: the rows a statement holds and the index of the current one.
{
	const QueryResult* result = nullptr;
	std::size_t row = 0;
};


class BlueTusk_Data_API Extractor: public Poco::Data::AbstractExtractor
	/// Converts a field into the C++ type Poco::Data asks for, with Poco's lenient conversions: an
	/// integer column into any integer width (a value that does not fit throws), a numeric or text column
	/// into a number when its text is one, any column into std::string (PostgreSQL's text form: numeric
	/// keeps every digit), bytea into BLOB, text into CLOB, date/time/timestamp(tz) into Date, Time and
	/// DateTime with microseconds, uuid into UUID, Any and Dynamic::Var by the column's type (TypeMap).
	/// Returns false for NULL (the target keeps its value). A conversion that cannot be done throws
	/// Poco::Data::ExtractException naming the column, its PostgreSQL type and the C++ type.
	///
	/// The container overloads serve bulk extraction (into(vector, bulk(n))): they fill up to the
	/// container's size with the rows from the current one on and shrink it to the rows there were.
	/// Not thread-safe (one per statement).
{
public:
	using Ptr = Poco::SharedPtr<Extractor>;

	explicit Extractor(const ResultCursor& cursor);
	~Extractor();

#define BLUETUSK_EXTRACT_SCALAR(T) \
	bool extract(std::size_t pos, T& val);
	BLUETUSK_EXTRACTOR_TYPES(BLUETUSK_EXTRACT_SCALAR)
	BLUETUSK_EXTRACTOR_LONG_TYPES(BLUETUSK_EXTRACT_SCALAR)
#undef BLUETUSK_EXTRACT_SCALAR

#if BLUETUSK_POCO_NULLABLE_EXTRACTION
	// Poco 1.13's Nullable overloads: NULL clears val (and returns true), as Poco's connectors do.
#define BLUETUSK_EXTRACT_NULLABLE(T) \
	bool extract(std::size_t pos, Poco::Nullable<T>& val) override;
	BLUETUSK_EXTRACTOR_TYPES(BLUETUSK_EXTRACT_NULLABLE)
	BLUETUSK_EXTRACTOR_LONG_TYPES(BLUETUSK_EXTRACT_NULLABLE)
#undef BLUETUSK_EXTRACT_NULLABLE
#endif

#define BLUETUSK_EXTRACT_CONTAINERS(T) \
	bool extract(std::size_t pos, std::vector<T>& val); \
	bool extract(std::size_t pos, std::deque<T>& val); \
	bool extract(std::size_t pos, std::list<T>& val);
	BLUETUSK_EXTRACTOR_TYPES(BLUETUSK_EXTRACT_CONTAINERS)
#undef BLUETUSK_EXTRACT_CONTAINERS

	bool isNull(std::size_t col, std::size_t row = Poco::Data::POCO_DATA_INVALID_ROW);
		/// row: for bulk extraction the offset from the current row; POCO_DATA_INVALID_ROW the current row.

	std::size_t rowsAvailable() const;
		/// Rows from the current one to the end of what the statement holds.

private:
	template <typename T> bool read(std::size_t pos, std::size_t row, T& val);
	template <typename C> bool readColumn(std::size_t pos, C& values);
	template <typename T> bool readNullable(std::size_t pos, Poco::Nullable<T>& val);
	FieldRef field(std::size_t pos, std::size_t row) const;

	const ResultCursor& _cursor;
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_Extractor_INCLUDED
