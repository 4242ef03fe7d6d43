//
// ValueCodec.h
//
// Library: BlueTusk/Transport
//
// Decoding of one field of a result (text or binary format) into a C++ value.
//

#ifndef BlueTusk_ValueCodec_INCLUDED
#define BlueTusk_ValueCodec_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/Parameter.h"
#include "BlueTusk/TypeOid.h"
#include "Poco/DateTime.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include "Poco/Types.h"
#include "Poco/UUID.h"
#include <optional>
#include <string>
#include <vector>

namespace BlueTusk {

struct FieldView
	/// One non-NULL field as it came from the server: its column's type OID and format code (0 text, 1
	/// binary) and its bytes (not owned).
{
	Poco::UInt32 typeOid = 0;
	Poco::Int16 format = 0;
	const char* data = nullptr;
	std::size_t size = 0;
};


class BlueTusk_Transport_API ValueCodec
	/// Reads a field into a C++ value. Which conversions are allowed depends on the column's type, not
	/// on its format: a field reads the same whether the server sent it as text (simple query, unprepared
	/// statements) or binary (prepared statements). Binary formats are those of PostgreSQL's *_send
	/// functions; text forms those of its output functions with DateStyle ISO (PostgreSQL docs 8.5.2).
	///
	/// | C++ type         | column types                                                   |
	/// |------------------|----------------------------------------------------------------|
	/// | bool             | bool                                                           |
	/// | Int16/32/64      | int2, int4, int8, oid (range checked)                          |
	/// | float, double    | float4, float8 (float8 into float only when exact), int2/int4 into double |
	/// | std::string      | every type: the PostgreSQL text form (numeric exact; jsonb as text;  |
	/// |                  | bytea as "\x..." hex; timestamptz in UTC with "+00")           |
	/// | Bytes            | bytea                                                          |
	/// | Poco::UUID       | uuid                                                           |
	/// | Poco::Timestamp  | timestamptz, timestamp (read as UTC)                           |
	/// | Poco::DateTime   | timestamptz (UTC), timestamp, date (midnight); years 0-9999    |
	/// | Poco::Timespan   | time (since midnight)                                          |
	/// | std::vector<T>, std::vector<std::optional<T>> | one-dimensional arrays of the above |
	///
	/// Every function throws BlueTuskTypeException "<PostgreSQL type> cannot be read as <C++ type>:
	/// <reason>" when the conversion is not allowed or would lose the value (out of range, infinity into
	/// a timestamp, NULL element into a non-optional, malformed data). Thread-safe (no state).
{
public:
	static void read(const FieldView& field, bool& value);
	static void read(const FieldView& field, Poco::Int16& value);
	static void read(const FieldView& field, Poco::Int32& value);
	static void read(const FieldView& field, Poco::Int64& value);
	static void read(const FieldView& field, float& value);
	static void read(const FieldView& field, double& value);
	static void read(const FieldView& field, std::string& value);
	static void read(const FieldView& field, Bytes& value);
	static void read(const FieldView& field, Poco::UUID& value);
	static void read(const FieldView& field, Poco::Timestamp& value);
	static void read(const FieldView& field, Poco::DateTime& value);
	static void read(const FieldView& field, Poco::Timespan& value);

#define BLUETUSK_ARRAY_READ(T) \
	static void read(const FieldView& field, std::vector<T>& value); \
	static void read(const FieldView& field, std::vector<std::optional<T>>& value);
	BLUETUSK_ARRAY_READ(bool)
	BLUETUSK_ARRAY_READ(Poco::Int16)
	BLUETUSK_ARRAY_READ(Poco::Int32)
	BLUETUSK_ARRAY_READ(Poco::Int64)
	BLUETUSK_ARRAY_READ(float)
	BLUETUSK_ARRAY_READ(double)
	BLUETUSK_ARRAY_READ(std::string)
	BLUETUSK_ARRAY_READ(Bytes)
	BLUETUSK_ARRAY_READ(Poco::UUID)
	BLUETUSK_ARRAY_READ(Poco::Timestamp)
	BLUETUSK_ARRAY_READ(Poco::DateTime)
	BLUETUSK_ARRAY_READ(Poco::Timespan)
#undef BLUETUSK_ARRAY_READ

	static bool isInfinite(const FieldView& field);
		/// True for a date, timestamp or timestamptz field holding infinity or -infinity (which no Poco
		/// type can hold; read it as std::string to see which).
};

} // namespace BlueTusk

#endif // BlueTusk_ValueCodec_INCLUDED
