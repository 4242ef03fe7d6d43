//
// TypeOid.h
//
// Library: BlueTusk/Transport
//
// The OIDs of PostgreSQL's built-in data types that BlueTusk encodes and decodes.
//

#ifndef BlueTusk_TypeOid_INCLUDED
#define BlueTusk_TypeOid_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {

namespace TypeOid
	/// Built-in type OIDs, fixed in every PostgreSQL release (src/include/catalog/pg_type.dat; the
	/// names are those of pg_type.typname). Unspecified (0) in a Parse lets the server infer the type.
{
	constexpr Poco::UInt32 Unspecified = 0;
	constexpr Poco::UInt32 Bool = 16;
	constexpr Poco::UInt32 Bytea = 17;
	constexpr Poco::UInt32 Char = 18;
	constexpr Poco::UInt32 Name = 19;
	constexpr Poco::UInt32 Int8 = 20;
	constexpr Poco::UInt32 Int2 = 21;
	constexpr Poco::UInt32 Int4 = 23;
	constexpr Poco::UInt32 Text = 25;
	constexpr Poco::UInt32 Oid = 26;
	constexpr Poco::UInt32 Json = 114;
	constexpr Poco::UInt32 Xml = 142;
	constexpr Poco::UInt32 Float4 = 700;
	constexpr Poco::UInt32 Float8 = 701;
	constexpr Poco::UInt32 Unknown = 705;
	constexpr Poco::UInt32 BpChar = 1042;
	constexpr Poco::UInt32 Varchar = 1043;
	constexpr Poco::UInt32 Date = 1082;
	constexpr Poco::UInt32 Time = 1083;
	constexpr Poco::UInt32 Timestamp = 1114;
	constexpr Poco::UInt32 TimestampTz = 1184;
	constexpr Poco::UInt32 Interval = 1186;
	constexpr Poco::UInt32 Numeric = 1700;
	constexpr Poco::UInt32 Uuid = 2950;
	constexpr Poco::UInt32 Jsonb = 3802;

	// One-dimensional arrays of the above (pg_type.typarray)
	constexpr Poco::UInt32 JsonArray = 199;
	constexpr Poco::UInt32 BoolArray = 1000;
	constexpr Poco::UInt32 ByteaArray = 1001;
	constexpr Poco::UInt32 CharArray = 1002;
	constexpr Poco::UInt32 NameArray = 1003;
	constexpr Poco::UInt32 Int2Array = 1005;
	constexpr Poco::UInt32 Int4Array = 1007;
	constexpr Poco::UInt32 TextArray = 1009;
	constexpr Poco::UInt32 BpCharArray = 1014;
	constexpr Poco::UInt32 VarcharArray = 1015;
	constexpr Poco::UInt32 Int8Array = 1016;
	constexpr Poco::UInt32 Float4Array = 1021;
	constexpr Poco::UInt32 Float8Array = 1022;
	constexpr Poco::UInt32 OidArray = 1028;
	constexpr Poco::UInt32 TimestampArray = 1115;
	constexpr Poco::UInt32 DateArray = 1182;
	constexpr Poco::UInt32 TimeArray = 1183;
	constexpr Poco::UInt32 TimestampTzArray = 1185;
	constexpr Poco::UInt32 NumericArray = 1231;
	constexpr Poco::UInt32 UuidArray = 2951;
	constexpr Poco::UInt32 JsonbArray = 3807;

	BlueTusk_Transport_API std::string name(Poco::UInt32 oid);
		/// The type's name as PostgreSQL spells it ("int4", "timestamptz", "_int4" for int4[] is shown as
		/// "int4[]"), or "type OID <n>" for a type not listed here.

	BlueTusk_Transport_API Poco::UInt32 elementOf(Poco::UInt32 arrayOid);
		/// The element type of one of the array types above, or 0 when oid is not one of them.

	BlueTusk_Transport_API bool isBinaryDecodable(Poco::UInt32 oid);
		/// True for the types whose binary format BlueTusk decodes (section "Result formats" of
		/// doc/statements.md): bool, int2/4/8, oid, float4/8, text, varchar, bpchar, name, char, bytea,
		/// uuid, date, time, timestamp, timestamptz, json, jsonb, and the one-dimensional arrays of
		/// these. Prepared statements ask for binary results for these and text for the rest (numeric
		/// stays exact text).

	BlueTusk_Transport_API bool isTextual(Poco::UInt32 oid);
		/// True for the character types whose binary format is their text (text, varchar, bpchar, name,
		/// char, json, xml, unknown).
}

} // namespace BlueTusk

#endif // BlueTusk_TypeOid_INCLUDED
