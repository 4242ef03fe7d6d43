//
// TypeMap.cpp
//
// Library: BlueTusk/Data
//

#include "TypeMap.h"
#include "BlueTusk/TypeOid.h"

namespace BlueTusk {
namespace Data {

using Poco::Data::MetaColumn;


const std::vector<TypeMap::Entry>& TypeMap::entries()
{
	static const std::vector<Entry> table = {
		{TypeOid::Bool, "bool", MetaColumn::FDT_BOOL},
		{TypeOid::Int2, "int2", MetaColumn::FDT_INT16},
		{TypeOid::Int4, "int4", MetaColumn::FDT_INT32},
		{TypeOid::Int8, "int8", MetaColumn::FDT_INT64},
		{TypeOid::Float4, "float4", MetaColumn::FDT_DOUBLE},
		{TypeOid::Float8, "float8", MetaColumn::FDT_DOUBLE},
		{TypeOid::Numeric, "numeric", MetaColumn::FDT_DOUBLE},
		{TypeOid::Char, "char", MetaColumn::FDT_STRING},
		{TypeOid::BpChar, "bpchar", MetaColumn::FDT_STRING},
		{TypeOid::Varchar, "varchar", MetaColumn::FDT_STRING},
		{TypeOid::Name, "name", MetaColumn::FDT_STRING},
		{TypeOid::Text, "text", MetaColumn::FDT_CLOB},
		{TypeOid::Bytea, "bytea", MetaColumn::FDT_BLOB},
		{TypeOid::Date, "date", MetaColumn::FDT_DATE},
		{TypeOid::Time, "time", MetaColumn::FDT_TIME},
		{1266, "timetz", MetaColumn::FDT_TIME},
		{TypeOid::Timestamp, "timestamp", MetaColumn::FDT_TIMESTAMP},
		{TypeOid::TimestampTz, "timestamptz", MetaColumn::FDT_TIMESTAMP},
		{TypeOid::Uuid, "uuid", MetaColumn::FDT_UUID},
	};
	return table;
}


MetaColumn::ColumnDataType TypeMap::columnType(Poco::UInt32 oid)
{
	for (const Entry& entry: entries())
	{
		if (entry.oid == oid) return entry.pocoType;
	}
	return MetaColumn::FDT_STRING;
}

} } // namespace BlueTusk::Data
