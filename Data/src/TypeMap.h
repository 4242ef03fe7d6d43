//
// TypeMap.h
//
// Library: BlueTusk/Data
//
// The one table from PostgreSQL type OIDs to Poco::Data column types.
//

#ifndef BlueTusk_Data_TypeMap_INCLUDED
#define BlueTusk_Data_TypeMap_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Data/MetaColumn.h"
#include "Poco/Types.h"
#include <vector>

namespace BlueTusk {
namespace Data {

class BlueTusk_Data_API TypeMap
	/// How a result column's PostgreSQL type appears to Poco::Data (MetaColumn::type(), the type RecordSet
	/// extracts it as). It follows Poco's own PostgreSQL connector ("postgresql") so that an application
	/// that moves to "bluetusk" sees the same types, except where that connector loses data:
	///
	/// | PostgreSQL                      | Poco::Data type | as Poco's connector? |
	/// |---------------------------------|-----------------|----------------------|
	/// | bool                            | FDT_BOOL        | yes                  |
	/// | int2, int4, int8                | FDT_INT16/32/64 | yes                  |
	/// | float4, float8, numeric         | FDT_DOUBLE      | yes (numeric: extract into std::string for every digit) |
	/// | char, bpchar, varchar, name     | FDT_STRING      | yes                  |
	/// | text                            | FDT_CLOB        | yes                  |
	/// | bytea                           | FDT_BLOB        | yes                  |
	/// | date, time, timestamp(tz)       | FDT_DATE, FDT_TIME, FDT_TIMESTAMP | yes (fractions of seconds kept) |
	/// | uuid                            | FDT_UUID        | no: Poco's connector says FDT_BLOB |
	/// | anything else (json, arrays, interval, ...) | FDT_STRING | yes       |
	///
	/// Thread-safe (constant data).
{
public:
	struct Entry
	{
		Poco::UInt32 oid;
		const char* postgresType;
		Poco::Data::MetaColumn::ColumnDataType pocoType;
	};

	static Poco::Data::MetaColumn::ColumnDataType columnType(Poco::UInt32 oid);
		/// The Poco::Data type of a column of type oid (FDT_STRING for types not in entries()).

	static const std::vector<Entry>& entries();
		/// The table above, one entry per type OID.
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_TypeMap_INCLUDED
