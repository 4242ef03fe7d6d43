//
// FuzzValues.h
//
// Shared by the value fuzz targets: reads one field as a C++ type ValueCodec offers (scalars, arrays,
// arrays of optionals), the one the input chooses, or as every one of them. Only BlueTuskTypeException
// (not allowed, out of range, malformed) may come out of a read; anything else reaches libFuzzer as a
// crash.
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


template <typename V>
void readInto(const FieldView& field)
	/// ValueCodec::read() of field into a V (a C++ type, a vector of it, or a vector of optionals).
{
	V value{};
	try
	{
		ValueCodec::read(field, value);
	}
	catch (BlueTuskTypeException&)
	{
	}
}


using Read = void (*)(const FieldView&);

#define BLUETUSK_FUZZ_READS(T) &readInto<T>, &readInto<std::vector<T>>, &readInto<std::vector<std::optional<T>>>

inline const std::vector<Read>& reads()
	/// Every read ValueCodec offers: each C++ type as a scalar, an array and an array of optionals, and
	/// isInfinite().
{
	static const std::vector<Read> all = {
		BLUETUSK_FUZZ_READS(bool), BLUETUSK_FUZZ_READS(Poco::Int16), BLUETUSK_FUZZ_READS(Poco::Int32),
		BLUETUSK_FUZZ_READS(Poco::Int64), BLUETUSK_FUZZ_READS(float), BLUETUSK_FUZZ_READS(double),
		BLUETUSK_FUZZ_READS(std::string), BLUETUSK_FUZZ_READS(Bytes), BLUETUSK_FUZZ_READS(Poco::UUID),
		BLUETUSK_FUZZ_READS(Poco::Timestamp), BLUETUSK_FUZZ_READS(Poco::DateTime),
		BLUETUSK_FUZZ_READS(Poco::Timespan),
		[](const FieldView& field) { ValueCodec::isInfinite(field); }};
	return all;
}

#undef BLUETUSK_FUZZ_READS


inline void readEveryType(const FieldView& field)
{
	for (Read read: reads()) read(field);
}


inline void readChosen(const FieldView& field, unsigned choice)
	/// choice % (reads().size() + 1): 0 reads the field every way (readEveryType), k > 0 only with
	/// reads()[k - 1]. The inputs choose the read, so that an execution costs one decode, not every one
	/// of them (doc/reliability.md, "Fuzzing"); 0 keeps what a seed made for the every-read harness did.
{
	const unsigned k = choice % static_cast<unsigned>(reads().size() + 1);
	if (k == 0) readEveryType(field);
	else reads()[k - 1](field);
}

} } // namespace BlueTusk::Fuzz

#endif // BlueTusk_FuzzValues_INCLUDED
