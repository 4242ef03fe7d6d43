//
// FieldConversion.cpp
//
// Library: BlueTusk/Data
//

#include "FieldConversion.h"
#include "BlueTusk/BlueTuskException.h"
#include "TypeMap.h"
#include "BlueTusk/TypeOid.h"
#include "BlueTusk/ValueCodec.h"
#include "Poco/Data/DataException.h"
#include "Poco/Data/DynamicDateTime.h"
#include "Poco/Data/DynamicLOB.h"
#include "Poco/NumberParser.h"
#include "Poco/String.h"
#include "Poco/UnicodeConverter.h"
#include <cmath>
#include <limits>

namespace BlueTusk {
namespace Data {
namespace Detail {

using Poco::Data::MetaColumn;

namespace {

bool isInteger(Poco::UInt32 oid)
{
	return oid == TypeOid::Int2 || oid == TypeOid::Int4 || oid == TypeOid::Int8 || oid == TypeOid::Oid;
}


template <typename T>
void decode(const Field& field, const char* cppType, T& value)
	/// BlueTusk's own conversion (ValueCodec), its refusal reported as an extraction error.
{
	try
	{
		ValueCodec::read(field.view(), value);
	}
	catch (BlueTuskTypeException& exc)
	{
		conversionFailed(field, cppType, exc.message());
	}
}


std::string text(const Field& field)
{
	std::string value;
	decode(field, "std::string", value);
	return value;
}

} // namespace


void conversionFailed(const Field& field, const char* cppType, const std::string& reason)
{
	throw Poco::Data::ExtractException("column " + std::to_string(field.number) + " \"" + field.column.name + "\" (" +
		TypeOid::name(field.column.typeOid) + "): cannot extract into " + cppType + ": " + reason);
}


void convert(const Field& field, Poco::Int64& value)
{
	const Poco::UInt32 oid = field.column.typeOid;
	if (isInteger(oid))
	{
		decode(field, "an integer", value);
		return;
	}
	if (oid == TypeOid::Bool)
	{
		bool b = false;
		decode(field, "an integer", b);
		value = b ? 1 : 0;
		return;
	}
	const std::string digits = Poco::trim(text(field));
	if (Poco::NumberParser::tryParse64(digits, value)) return;
	double number = 0;
	// A whole number within Int64's range only: the cast of anything else (1e19, inf, nan) is undefined.
	if (Poco::NumberParser::tryParseFloat(digits, number) && std::isfinite(number) && number >= -9223372036854775808.0 &&
		number < 9223372036854775808.0 && number == std::trunc(number))
	{
		value = static_cast<Poco::Int64>(number);
		return;
	}
	conversionFailed(field, "an integer", "\"" + digits + "\" is not an integer");
}


void convert(const Field& field, Poco::UInt64& value)
{
	if (!isInteger(field.column.typeOid) && field.column.typeOid != TypeOid::Bool)
	{
		const std::string digits = Poco::trim(text(field));
		if (Poco::NumberParser::tryParseUnsigned64(digits, value)) return;
		// A whole number written as a float, beyond Int64 but within UInt64 (1e19): the signed path below
		// would call it no integer.
		double number = 0;
		if (Poco::NumberParser::tryParseFloat(digits, number) && std::isfinite(number) && number >= 9223372036854775808.0 &&
			number < 18446744073709551616.0 && number == std::trunc(number))
		{
			value = static_cast<Poco::UInt64>(number);
			return;
		}
	}
	Poco::Int64 signedValue = 0;
	convert(field, signedValue);
	if (signedValue < 0) conversionFailed(field, "UInt64", std::to_string(signedValue) + " is negative");
	value = static_cast<Poco::UInt64>(signedValue);
}


void convert(const Field& field, bool& value)
{
	const Poco::UInt32 oid = field.column.typeOid;
	if (oid == TypeOid::Bool)
	{
		decode(field, "bool", value);
		return;
	}
	if (isInteger(oid))
	{
		Poco::Int64 number = 0;
		decode(field, "bool", number);
		value = number != 0;
		return;
	}
	const std::string word = Poco::toLower(Poco::trim(text(field)));
	if (word == "t" || word == "true" || word == "1" || word == "y" || word == "yes" || word == "on") value = true;
	else if (word == "f" || word == "false" || word == "0" || word == "n" || word == "no" || word == "off") value = false;
	else conversionFailed(field, "bool", "\"" + word + "\" is not a boolean");
}


void convert(const Field& field, double& value)
{
	const Poco::UInt32 oid = field.column.typeOid;
	if (oid == TypeOid::Float4 || oid == TypeOid::Float8 || oid == TypeOid::Int2 || oid == TypeOid::Int4)
	{
		decode(field, "double", value);
		return;
	}
	const std::string number = Poco::trim(text(field));
	if (number == "NaN" || number == "Infinity" || number == "-Infinity")
	{
		value = number == "NaN" ? std::numeric_limits<double>::quiet_NaN() :
			(number[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
		return;
	}
	if (!Poco::NumberParser::tryParseFloat(number, value)) conversionFailed(field, "double", "\"" + number + "\" is not a number");
}


void convert(const Field& field, float& value)
{
	if (field.column.typeOid == TypeOid::Float4)
	{
		decode(field, "float", value);
		return;
	}
	double wide = 0;
	convert(field, wide);
	// A finite double beyond float's range has no float (the cast would be undefined); inf and nan do.
	if (std::isfinite(wide) && std::fabs(wide) > static_cast<double>(std::numeric_limits<float>::max()))
		conversionFailed(field, "float", std::to_string(wide) + " is out of range for a float");
	value = static_cast<float>(wide);
}


void convert(const Field& field, char& value)
{
	const std::string s = text(field);
	value = s.empty() ? '\0' : s[0];
}


void convert(const Field& field, std::string& value)
{
	decode(field, "std::string", value);
}


void convert(const Field& field, Poco::UTF16String& value)
{
	Poco::UnicodeConverter::convert(text(field), value);
}


void convert(const Field& field, Poco::Data::BLOB& value)
{
	if (field.column.typeOid == TypeOid::Bytea)
	{
		Bytes bytes;
		decode(field, "BLOB", bytes);
		value = Poco::Data::BLOB(bytes.data(), bytes.size());
		return;
	}
	if (field.column.typeOid == TypeOid::Uuid && field.column.formatCode == 1)
	{
		value = Poco::Data::BLOB(reinterpret_cast<const unsigned char*>(field.bytes.data()), field.bytes.size());
		return;
	}
	const std::string s = text(field);
	value = Poco::Data::BLOB(reinterpret_cast<const unsigned char*>(s.data()), s.size());
}


void convert(const Field& field, Poco::Data::CLOB& value)
{
	const std::string s = text(field);
	value = Poco::Data::CLOB(s.data(), s.size());
}


void convert(const Field& field, Poco::DateTime& value)
{
	const Poco::UInt32 oid = field.column.typeOid;
	if (oid == TypeOid::Timestamp || oid == TypeOid::TimestampTz || oid == TypeOid::Date)
	{
		decode(field, "DateTime", value);
		return;
	}
	// a timestamp written as text (e.g. from a text column): read it as timestamptz text
	const std::string s = Poco::trim(text(field));
	try
	{
		ValueCodec::read(FieldView{TypeOid::TimestampTz, 0, s.data(), s.size()}, value);
	}
	catch (BlueTuskTypeException&)
	{
		conversionFailed(field, "DateTime", "\"" + s + "\" is not an ISO timestamp");
	}
}


void convert(const Field& field, Poco::Data::Date& value)
{
	Poco::DateTime dateTime;
	convert(field, dateTime);
	value.assign(dateTime.year(), dateTime.month(), dateTime.day());
}


void convert(const Field& field, Poco::Data::Time& value)
{
	if (field.column.typeOid == TypeOid::Time)
	{
		Poco::Timespan span;
		decode(field, "Time", span);
		value.assign(span.hours() % 24, span.minutes(), span.seconds());
		return;
	}
	Poco::DateTime dateTime;
	convert(field, dateTime);
	value.assign(dateTime.hour(), dateTime.minute(), dateTime.second());
}


void convert(const Field& field, Poco::UUID& value)
{
	if (field.column.typeOid == TypeOid::Uuid)
	{
		decode(field, "UUID", value);
		return;
	}
	const std::string s = Poco::trim(text(field));
	if (!value.tryParse(s)) conversionFailed(field, "UUID", "\"" + s + "\" is not a UUID");
}


void convert(const Field& field, Poco::Any& value)
{
	Poco::Dynamic::Var var;
	convert(field, var);
	switch (TypeMap::columnType(field.column.typeOid))
	{
	case MetaColumn::FDT_BOOL: value = var.extract<bool>(); break;
	case MetaColumn::FDT_INT16: value = var.extract<Poco::Int16>(); break;
	case MetaColumn::FDT_INT32: value = var.extract<Poco::Int32>(); break;
	case MetaColumn::FDT_INT64: value = var.extract<Poco::Int64>(); break;
	case MetaColumn::FDT_DOUBLE: value = var.extract<double>(); break;
	case MetaColumn::FDT_BLOB: value = var.extract<Poco::Data::BLOB>(); break;
	case MetaColumn::FDT_DATE: value = var.extract<Poco::Data::Date>(); break;
	case MetaColumn::FDT_TIME: value = var.extract<Poco::Data::Time>(); break;
	case MetaColumn::FDT_TIMESTAMP: value = var.extract<Poco::DateTime>(); break;
	case MetaColumn::FDT_UUID: value = var.extract<Poco::UUID>(); break;
	default: value = var.extract<std::string>(); break;
	}
}


void convert(const Field& field, Poco::Dynamic::Var& value)
{
	switch (TypeMap::columnType(field.column.typeOid))
	{
	case MetaColumn::FDT_BOOL: { bool v = false; convert(field, v); value = v; break; }
	case MetaColumn::FDT_INT16: { Poco::Int64 v = 0; convert(field, v); value = static_cast<Poco::Int16>(v); break; }
	case MetaColumn::FDT_INT32: { Poco::Int64 v = 0; convert(field, v); value = static_cast<Poco::Int32>(v); break; }
	case MetaColumn::FDT_INT64: { Poco::Int64 v = 0; convert(field, v); value = v; break; }
	case MetaColumn::FDT_DOUBLE: { double v = 0; convert(field, v); value = v; break; }
	case MetaColumn::FDT_BLOB: { Poco::Data::BLOB v; convert(field, v); value = v; break; }
	case MetaColumn::FDT_DATE: { Poco::Data::Date v; convert(field, v); value = v; break; }
	case MetaColumn::FDT_TIME: { Poco::Data::Time v; convert(field, v); value = v; break; }
	case MetaColumn::FDT_TIMESTAMP: { Poco::DateTime v; convert(field, v); value = v; break; }
	case MetaColumn::FDT_UUID: { Poco::UUID v; convert(field, v); value = v; break; }
	default: value = text(field); break;
	}
}

} } } // namespace BlueTusk::Data::Detail
