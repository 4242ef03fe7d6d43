//
// FuzzValues.h
//
// Shared by the value fuzz targets: reads one field as every C++ type ValueCodec offers (scalars,
// arrays, arrays of optionals). Only BlueTuskTypeException (not allowed, out of range, malformed) may
// come out of a read; anything else reaches libFuzzer as a crash.
//

#ifndef BlueTusk_FuzzValues_INCLUDED
#define BlueTusk_FuzzValues_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/TypeOid.h"
#include "BlueTusk/ValueCodec.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Fuzz {

inline const std::vector<Poco::UInt32>& typeOids()
	/// Every type OID of TypeOid.h (scalars and arrays) and one unknown OID.
{
	using namespace TypeOid;
	static const std::vector<Poco::UInt32> oids = {
		Unspecified, Bool, Bytea, Char, Name, Int8, Int2, Int4, Text, Oid, Json, Xml, Float4, Float8, Unknown,
		BpChar, Varchar, Date, Time, Timestamp, TimestampTz, Interval, Numeric, Uuid, Jsonb,
		JsonArray, BoolArray, ByteaArray, CharArray, NameArray, Int2Array, Int4Array, TextArray, BpCharArray,
		VarcharArray, Int8Array, Float4Array, Float8Array, OidArray, TimestampArray, DateArray, TimeArray,
		TimestampTzArray, NumericArray, UuidArray, JsonbArray, 123456};
	return oids;
}


template <typename T>
void readAs(const FieldView& field)
{
	T value{};
	try
	{
		ValueCodec::read(field, value);
	}
	catch (BlueTuskTypeException&)
	{
	}
	std::vector<T> array;
	try
	{
		ValueCodec::read(field, array);
	}
	catch (BlueTuskTypeException&)
	{
	}
	std::vector<std::optional<T>> optionals;
	try
	{
		ValueCodec::read(field, optionals);
	}
	catch (BlueTuskTypeException&)
	{
	}
}


inline void readEveryType(const FieldView& field)
{
	readAs<bool>(field);
	readAs<Poco::Int16>(field);
	readAs<Poco::Int32>(field);
	readAs<Poco::Int64>(field);
	readAs<float>(field);
	readAs<double>(field);
	readAs<std::string>(field);
	readAs<Bytes>(field);
	readAs<Poco::UUID>(field);
	readAs<Poco::Timestamp>(field);
	readAs<Poco::DateTime>(field);
	readAs<Poco::Timespan>(field);
	ValueCodec::isInfinite(field);
}

} } // namespace BlueTusk::Fuzz

#endif // BlueTusk_FuzzValues_INCLUDED
