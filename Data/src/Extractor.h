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

	bool extract(std::size_t pos, Poco::Int8& val);
	bool extract(std::size_t pos, Poco::UInt8& val);
	bool extract(std::size_t pos, Poco::Int16& val);
	bool extract(std::size_t pos, Poco::UInt16& val);
	bool extract(std::size_t pos, Poco::Int32& val);
	bool extract(std::size_t pos, Poco::UInt32& val);
	bool extract(std::size_t pos, Poco::Int64& val);
	bool extract(std::size_t pos, Poco::UInt64& val);
#ifndef POCO_INT64_IS_LONG
	bool extract(std::size_t pos, long& val);
	bool extract(std::size_t pos, unsigned long& val);
#endif
	bool extract(std::size_t pos, bool& val);
	bool extract(std::size_t pos, float& val);
	bool extract(std::size_t pos, double& val);
	bool extract(std::size_t pos, char& val);
	bool extract(std::size_t pos, std::string& val);
	bool extract(std::size_t pos, Poco::UTF16String& val);
	bool extract(std::size_t pos, Poco::Data::BLOB& val);
	bool extract(std::size_t pos, Poco::Data::CLOB& val);
	bool extract(std::size_t pos, Poco::DateTime& val);
	bool extract(std::size_t pos, Poco::Data::Date& val);
	bool extract(std::size_t pos, Poco::Data::Time& val);
	bool extract(std::size_t pos, Poco::UUID& val);
	bool extract(std::size_t pos, Poco::Any& val);
	bool extract(std::size_t pos, Poco::Dynamic::Var& val);

#if BLUETUSK_POCO_NULLABLE_EXTRACTION
	// Poco 1.13's Nullable overloads: NULL clears val (and returns true), as Poco's connectors do.
#define BLUETUSK_EXTRACT_NULLABLE(T) \
	bool extract(std::size_t pos, Poco::Nullable<T>& val) override;
	BLUETUSK_EXTRACT_NULLABLE(Poco::Int8)
	BLUETUSK_EXTRACT_NULLABLE(Poco::UInt8)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Int16)
	BLUETUSK_EXTRACT_NULLABLE(Poco::UInt16)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Int32)
	BLUETUSK_EXTRACT_NULLABLE(Poco::UInt32)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Int64)
	BLUETUSK_EXTRACT_NULLABLE(Poco::UInt64)
#ifndef POCO_INT64_IS_LONG
	BLUETUSK_EXTRACT_NULLABLE(long)
	BLUETUSK_EXTRACT_NULLABLE(unsigned long)
#endif
	BLUETUSK_EXTRACT_NULLABLE(bool)
	BLUETUSK_EXTRACT_NULLABLE(float)
	BLUETUSK_EXTRACT_NULLABLE(double)
	BLUETUSK_EXTRACT_NULLABLE(char)
	BLUETUSK_EXTRACT_NULLABLE(std::string)
	BLUETUSK_EXTRACT_NULLABLE(Poco::UTF16String)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Data::BLOB)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Data::CLOB)
	BLUETUSK_EXTRACT_NULLABLE(Poco::DateTime)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Data::Date)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Data::Time)
	BLUETUSK_EXTRACT_NULLABLE(Poco::UUID)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Any)
	BLUETUSK_EXTRACT_NULLABLE(Poco::Dynamic::Var)
#undef BLUETUSK_EXTRACT_NULLABLE
#endif

#define BLUETUSK_EXTRACT_CONTAINERS(T) \
	bool extract(std::size_t pos, std::vector<T>& val); \
	bool extract(std::size_t pos, std::deque<T>& val); \
	bool extract(std::size_t pos, std::list<T>& val);
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Int8)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::UInt8)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Int16)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::UInt16)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Int32)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::UInt32)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Int64)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::UInt64)
	BLUETUSK_EXTRACT_CONTAINERS(bool)
	BLUETUSK_EXTRACT_CONTAINERS(float)
	BLUETUSK_EXTRACT_CONTAINERS(double)
	BLUETUSK_EXTRACT_CONTAINERS(char)
	BLUETUSK_EXTRACT_CONTAINERS(std::string)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::UTF16String)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Data::BLOB)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Data::CLOB)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::DateTime)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Data::Date)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Data::Time)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::UUID)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Any)
	BLUETUSK_EXTRACT_CONTAINERS(Poco::Dynamic::Var)
#undef BLUETUSK_EXTRACT_CONTAINERS

	bool isNull(std::size_t col, std::size_t row = Poco::Data::POCO_DATA_INVALID_ROW);
		/// row: for bulk extraction the offset from the current row; POCO_DATA_INVALID_ROW the current row.

	std::size_t rowsAvailable() const;
		/// Rows from the current one to the end of what the statement holds.

private:
	template <typename T> bool read(std::size_t pos, std::size_t row, T& val);
	template <typename C> bool readColumn(std::size_t pos, C& values);
	template <typename T> bool readNullable(std::size_t pos, Poco::Nullable<T>& val);
	const FieldValue& field(std::size_t pos, std::size_t row) const;

	const ResultCursor& _cursor;
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_Extractor_INCLUDED
