//
// TypeOid.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/TypeOid.h"

namespace BlueTusk {
namespace TypeOid {

namespace {

struct TypeInfo
{
	Poco::UInt32 oid;
	const char* name;
	Poco::UInt32 element;   /// for arrays, else 0
	bool binary;            /// BlueTusk decodes its binary format
};


const TypeInfo TYPES[] = {
	{Bool, "bool", 0, true}, {Bytea, "bytea", 0, true}, {Char, "char", 0, true}, {Name, "name", 0, true},
	{Int8, "int8", 0, true}, {Int2, "int2", 0, true}, {Int4, "int4", 0, true}, {Text, "text", 0, true},
	{Oid, "oid", 0, true}, {Json, "json", 0, true}, {Xml, "xml", 0, false}, {Float4, "float4", 0, true},
	{Float8, "float8", 0, true}, {Unknown, "unknown", 0, false}, {BpChar, "bpchar", 0, true},
	{Varchar, "varchar", 0, true}, {Date, "date", 0, true}, {Time, "time", 0, true},
	{Timestamp, "timestamp", 0, true}, {TimestampTz, "timestamptz", 0, true}, {Interval, "interval", 0, false},
	{Numeric, "numeric", 0, false}, {Uuid, "uuid", 0, true}, {Jsonb, "jsonb", 0, true},
	{JsonArray, "json[]", Json, true}, {BoolArray, "bool[]", Bool, true}, {ByteaArray, "bytea[]", Bytea, true},
	{CharArray, "char[]", Char, true}, {NameArray, "name[]", Name, true}, {Int2Array, "int2[]", Int2, true},
	{Int4Array, "int4[]", Int4, true}, {TextArray, "text[]", Text, true}, {BpCharArray, "bpchar[]", BpChar, true},
	{VarcharArray, "varchar[]", Varchar, true}, {Int8Array, "int8[]", Int8, true},
	{Float4Array, "float4[]", Float4, true}, {Float8Array, "float8[]", Float8, true}, {OidArray, "oid[]", Oid, true},
	{TimestampArray, "timestamp[]", Timestamp, true}, {DateArray, "date[]", Date, true},
	{TimeArray, "time[]", Time, true}, {TimestampTzArray, "timestamptz[]", TimestampTz, true},
	{NumericArray, "numeric[]", Numeric, false}, {UuidArray, "uuid[]", Uuid, true},
	{JsonbArray, "jsonb[]", Jsonb, true},
};


const TypeInfo* find(Poco::UInt32 oid)
{
	for (const TypeInfo& info: TYPES)
	{
		if (info.oid == oid) return &info;
	}
	return nullptr;
}

} // namespace


std::string name(Poco::UInt32 oid)
{
	const TypeInfo* info = find(oid);
	return info ? std::string(info->name) : "type OID " + std::to_string(oid);
}


Poco::UInt32 elementOf(Poco::UInt32 arrayOid)
{
	const TypeInfo* info = find(arrayOid);
	return info ? info->element : 0;
}


bool isBinaryDecodable(Poco::UInt32 oid)
{
	const TypeInfo* info = find(oid);
	return info && info->binary;
}


bool isTextual(Poco::UInt32 oid)
{
	switch (oid)
	{
	case Text: case Varchar: case BpChar: case Name: case Char: case Json: case Xml: case Unknown:
		return true;
	default:
		return false;
	}
}

} } // namespace BlueTusk::TypeOid
