//
// ValueCodec.cpp
//
// Library: BlueTusk/Transport
//
// Scalar fields: binary formats of PostgreSQL's *_send functions (src/backend/utils/adt), text forms of
// its output functions (DateStyle ISO). Arrays are in ValueArrays.cpp.
//

#include "BlueTusk/ValueCodec.h"
#include "BlueTusk/BlueTuskException.h"
#include "ValueCodecSupport.h"
#include "WireValue.h"
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace BlueTusk {

using namespace Detail;

namespace Detail {

void conversionError(const FieldView& field, const char* cppType, const std::string& reason)
{
	throw BlueTuskTypeException(TypeOid::name(field.typeOid) + " cannot be read as " + cppType + (reason.empty() ? std::string() : ": " + reason));
}


std::string fieldText(const FieldView& field)
{
	return std::string(field.data, field.size);
}

} // namespace Detail

namespace {

void expectSize(const FieldView& field, std::size_t size, const char* cppType)
{
	if (field.size != size)
		conversionError(field, cppType, "malformed binary value (" + std::to_string(field.size) + " bytes, expected " + std::to_string(size) + ")");
}


Poco::Int64 readInteger(const FieldView& field, const char* cppType, Poco::Int64 minimum, Poco::Int64 maximum)
{
	Poco::Int64 value = 0;
	const Poco::UInt32 oid = field.typeOid;
	if (oid != TypeOid::Int2 && oid != TypeOid::Int4 && oid != TypeOid::Int8 && oid != TypeOid::Oid)
	{
		std::string reason = "not an integer type";
		if (oid == TypeOid::Numeric) reason += "; read numeric as std::string to keep every digit";
		conversionError(field, cppType, reason);
	}
	if (field.format == 1)
	{
		switch (oid)
		{
		case TypeOid::Int2: expectSize(field, 2, cppType); value = static_cast<Poco::Int16>(getBigEndian(field.data, 2)); break;
		case TypeOid::Int4: expectSize(field, 4, cppType); value = static_cast<Poco::Int32>(getBigEndian(field.data, 4)); break;
		case TypeOid::Oid:  expectSize(field, 4, cppType); value = static_cast<Poco::UInt32>(getBigEndian(field.data, 4)); break;
		default:            expectSize(field, 8, cppType); value = static_cast<Poco::Int64>(getBigEndian(field.data, 8)); break;
		}
	}
	else
	{
		auto result = std::from_chars(field.data, field.data + field.size, value);
		if (result.ec != std::errc() || result.ptr != field.data + field.size)
			conversionError(field, cppType, "malformed text \"" + fieldText(field) + "\"");
	}
	if (value < minimum || value > maximum)
		conversionError(field, cppType, "the value " + std::to_string(value) + " is out of its range");
	return value;
}


bool parseFloatText(const FieldView& field, double& value)
{
	const std::string text = fieldText(field);
	if (text == "NaN") { value = std::numeric_limits<double>::quiet_NaN(); return true; }
	if (text == "Infinity") { value = std::numeric_limits<double>::infinity(); return true; }
	if (text == "-Infinity") { value = -std::numeric_limits<double>::infinity(); return true; }
	auto result = std::from_chars(text.data(), text.data() + text.size(), value);
	return result.ec == std::errc() && result.ptr == text.data() + text.size();
}


double readDouble(const FieldView& field, const char* cppType)
{
	switch (field.typeOid)
	{
	case TypeOid::Float8:
	case TypeOid::Float4:
		{
			double value = 0;
			if (field.format != 1)
			{
				if (!parseFloatText(field, value)) conversionError(field, cppType, "malformed text \"" + fieldText(field) + "\"");
			}
			else if (field.typeOid == TypeOid::Float8)
			{
				expectSize(field, 8, cppType);
				value = bitsDouble(getBigEndian(field.data, 8));
			}
			else
			{
				expectSize(field, 4, cppType);
				value = bitsFloat(static_cast<Poco::UInt32>(getBigEndian(field.data, 4)));
			}
			return value;
		}
	case TypeOid::Int2:
	case TypeOid::Int4:
		return static_cast<double>(readInteger(field, cppType, std::numeric_limits<Poco::Int64>::min(), std::numeric_limits<Poco::Int64>::max()));
	case TypeOid::Int8:
		{
			const Poco::Int64 value = readInteger(field, cppType, -(1LL << 53), 1LL << 53);
			return static_cast<double>(value);
		}
	case TypeOid::Numeric:
		conversionError(field, cppType, "numeric can hold more digits than a binary floating-point number; read it as std::string");
	default:
		conversionError(field, cppType, "not a number type");
	}
}


Poco::Int64 readMicroseconds(const FieldView& field, const char* cppType)
	/// A timestamp, timestamptz or date as microseconds since 2000-01-01 (UTC); infinity refused.
{
	Poco::Int64 value = 0;
	if (field.typeOid == TypeOid::Date)
	{
		Poco::Int32 days = 0;
		if (field.format == 1)
		{
			expectSize(field, 4, cppType);
			days = static_cast<Poco::Int32>(getBigEndian(field.data, 4));
		}
		else if (!parseDate(fieldText(field), days))
		{
			conversionError(field, cppType, "malformed text \"" + fieldText(field) + "\" (BlueTusk reads dates in DateStyle ISO)");
		}
		if (days == DATE_INFINITY || days == DATE_MINUS_INFINITY)
			conversionError(field, cppType, std::string(days > 0 ? "infinity" : "-infinity") + " has no such value; read it as std::string");
		// PostgreSQL's dates reach year 5874897, past what Int64 microseconds hold (found by fuzz/ValueCodecFuzzer)
		if (__builtin_mul_overflow(static_cast<Poco::Int64>(days), USECS_PER_DAY, &value))
			conversionError(field, cppType, "the value is out of its range");
		return value;
	}
	if (field.typeOid != TypeOid::Timestamp && field.typeOid != TypeOid::TimestampTz)
		conversionError(field, cppType, "not a date or timestamp type");
	if (field.format == 1)
	{
		expectSize(field, 8, cppType);
		value = static_cast<Poco::Int64>(getBigEndian(field.data, 8));
	}
	else if (!parseTimestamp(fieldText(field), value))
	{
		conversionError(field, cppType, "malformed text \"" + fieldText(field) + "\" (BlueTusk reads timestamps in DateStyle ISO)");
	}
	if (value == TIMESTAMP_INFINITY || value == TIMESTAMP_MINUS_INFINITY)
		conversionError(field, cppType, std::string(value > 0 ? "infinity" : "-infinity") + " has no such value; read it as std::string or test isInfinite()");
	return value;
}


int hexDigit(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}


std::string hexBytea(const char* data, std::size_t size)
{
	static const char HEX[] = "0123456789abcdef";
	std::string out("\\x");
	out.reserve(2 + size * 2);
	for (std::size_t i = 0; i < size; ++i)
	{
		const unsigned char byte = static_cast<unsigned char>(data[i]);
		out.push_back(HEX[byte >> 4]);
		out.push_back(HEX[byte & 0x0F]);
	}
	return out;
}

} // namespace


void ValueCodec::read(const FieldView& field, bool& value)
{
	if (field.typeOid != TypeOid::Bool) conversionError(field, "bool", "not the bool type");
	if (field.format == 1)
	{
		expectSize(field, 1, "bool");
		value = field.data[0] != 0;
		return;
	}
	const std::string text = fieldText(field);
	if (text == "t" || text == "true") value = true;
	else if (text == "f" || text == "false") value = false;
	else conversionError(field, "bool", "malformed text \"" + text + "\"");
}


void ValueCodec::read(const FieldView& field, Poco::Int16& value)
{
	value = static_cast<Poco::Int16>(readInteger(field, "int16", std::numeric_limits<Poco::Int16>::min(), std::numeric_limits<Poco::Int16>::max()));
}


void ValueCodec::read(const FieldView& field, Poco::Int32& value)
{
	value = static_cast<Poco::Int32>(readInteger(field, "int32", std::numeric_limits<Poco::Int32>::min(), std::numeric_limits<Poco::Int32>::max()));
}


void ValueCodec::read(const FieldView& field, Poco::Int64& value)
{
	value = readInteger(field, "int64", std::numeric_limits<Poco::Int64>::min(), std::numeric_limits<Poco::Int64>::max());
}


void ValueCodec::read(const FieldView& field, double& value)
{
	value = readDouble(field, "double");
}


void ValueCodec::read(const FieldView& field, float& value)
{
	const double wide = readDouble(field, "float");
	value = static_cast<float>(wide);
	if (field.typeOid != TypeOid::Float4 && !std::isnan(wide) && static_cast<double>(value) != wide)
		conversionError(field, "float", formatDouble(wide) + " has no exact float; read it as double");
}


void ValueCodec::read(const FieldView& field, std::string& value)
{
	if (field.format != 1 || TypeOid::isTextual(field.typeOid))
	{
		value.assign(field.data, field.size);
		return;
	}
	switch (field.typeOid)
	{
	case TypeOid::Jsonb:
		if (field.size < 1 || field.data[0] != 1) conversionError(field, "std::string", "unknown jsonb binary version");
		value.assign(field.data + 1, field.size - 1);
		return;
	case TypeOid::Bool:
		{
			bool b = false;
			read(field, b);
			value = b ? "t" : "f";
			return;
		}
	case TypeOid::Int2:
	case TypeOid::Int4:
	case TypeOid::Int8:
	case TypeOid::Oid:
		value = std::to_string(readInteger(field, "std::string", std::numeric_limits<Poco::Int64>::min(), std::numeric_limits<Poco::Int64>::max()));
		return;
	case TypeOid::Float8:
		value = formatDouble(readDouble(field, "std::string"));
		return;
	case TypeOid::Float4:
		{
			// the shortest text of the float itself, not of the widened double
			expectSize(field, 4, "std::string");
			const float narrow = bitsFloat(static_cast<Poco::UInt32>(getBigEndian(field.data, 4)));
			if (!std::isfinite(narrow))
			{
				value = formatDouble(narrow);
				return;
			}
			char buffer[32];
			auto result = std::to_chars(buffer, buffer + sizeof buffer, narrow);
			value.assign(buffer, result.ptr);
			return;
		}
	case TypeOid::Bytea:
		value = hexBytea(field.data, field.size);
		return;
	case TypeOid::Uuid:
		expectSize(field, 16, "std::string");
		value = formatUuid(field.data);
		return;
	case TypeOid::Date:
		expectSize(field, 4, "std::string");
		value = formatDate(static_cast<Poco::Int32>(getBigEndian(field.data, 4)));
		return;
	case TypeOid::Time:
		expectSize(field, 8, "std::string");
		value = formatTime(static_cast<Poco::Int64>(getBigEndian(field.data, 8)));
		return;
	case TypeOid::Timestamp:
	case TypeOid::TimestampTz:
		expectSize(field, 8, "std::string");
		value = formatTimestamp(static_cast<Poco::Int64>(getBigEndian(field.data, 8)), field.typeOid == TypeOid::TimestampTz);
		return;
	default:
		if (TypeOid::elementOf(field.typeOid) != 0)
		{
			value = arrayText(field);
			return;
		}
		conversionError(field, "std::string", "BlueTusk does not decode its binary format");
	}
}


void ValueCodec::read(const FieldView& field, Bytes& value)
{
	if (field.typeOid != TypeOid::Bytea) conversionError(field, "BlueTusk::Bytes", "not the bytea type");
	if (field.format == 1)
	{
		value.assign(field.data, field.data + field.size);
		return;
	}
	if (field.size < 2 || field.data[0] != '\\' || field.data[1] != 'x' || field.size % 2 != 0)
		conversionError(field, "BlueTusk::Bytes", "the text form is not hex (bytea_output must be 'hex', the default)");
	value.clear();
	value.reserve((field.size - 2) / 2);
	for (std::size_t i = 2; i < field.size; i += 2)
	{
		const int high = hexDigit(field.data[i]);
		const int low = hexDigit(field.data[i + 1]);
		if (high < 0 || low < 0) conversionError(field, "BlueTusk::Bytes", "malformed hex text");
		value.push_back(static_cast<unsigned char>(high * 16 + low));
	}
}


void ValueCodec::read(const FieldView& field, Poco::UUID& value)
{
	if (field.typeOid != TypeOid::Uuid) conversionError(field, "Poco::UUID", "not the uuid type");
	if (field.format == 1)
	{
		expectSize(field, 16, "Poco::UUID");
		value.copyFrom(field.data);
		return;
	}
	if (!value.tryParse(fieldText(field))) conversionError(field, "Poco::UUID", "malformed text \"" + fieldText(field) + "\"");
}


void ValueCodec::read(const FieldView& field, Poco::Timestamp& value)
{
	const Poco::Int64 pg = readMicroseconds(field, "Poco::Timestamp");
	Poco::Int64 unixMicroseconds = 0;
	if (__builtin_add_overflow(pg, POSTGRES_EPOCH_UNIX_USECS, &unixMicroseconds))
		conversionError(field, "Poco::Timestamp", "the value is out of its range");
	value = Poco::Timestamp(unixMicroseconds);
}


void ValueCodec::read(const FieldView& field, Poco::DateTime& value)
{
	const Poco::Int64 pg = readMicroseconds(field, "Poco::DateTime");
	const Poco::Int64 days = pg / USECS_PER_DAY - (pg % USECS_PER_DAY < 0 ? 1 : 0);
	const Poco::Int64 rest = pg % USECS_PER_DAY;   // not pg - days * USECS_PER_DAY: overflows near INT64_MIN
	const Poco::Int64 clock = rest < 0 ? rest + USECS_PER_DAY : rest;
	const CivilDate date = civilFromDays(days + POSTGRES_EPOCH_UNIX_DAYS);
	if (date.year < 0 || date.year > 9999)
		conversionError(field, "Poco::DateTime", "year " + std::to_string(date.year) + " is outside Poco::DateTime's range 0-9999");
	const int seconds = static_cast<int>(clock / 1000000);
	const int micro = static_cast<int>(clock % 1000000);
	value.assign(static_cast<int>(date.year), date.month, date.day, seconds / 3600, seconds / 60 % 60, seconds % 60, micro / 1000, micro % 1000);
}


void ValueCodec::read(const FieldView& field, Poco::Timespan& value)
{
	if (field.typeOid != TypeOid::Time) conversionError(field, "Poco::Timespan", "not the time type");
	Poco::Int64 microseconds = 0;
	if (field.format == 1)
	{
		expectSize(field, 8, "Poco::Timespan");
		microseconds = static_cast<Poco::Int64>(getBigEndian(field.data, 8));
	}
	else if (!parseTime(fieldText(field), microseconds))
	{
		conversionError(field, "Poco::Timespan", "malformed text \"" + fieldText(field) + "\"");
	}
	value = Poco::Timespan(microseconds);
}


bool ValueCodec::isInfinite(const FieldView& field)
{
	if (field.typeOid == TypeOid::Date)
	{
		Poco::Int32 days = 0;
		if (field.format == 1) days = field.size == 4 ? static_cast<Poco::Int32>(getBigEndian(field.data, 4)) : 0;
		else if (!parseDate(fieldText(field), days)) return false;
		return days == DATE_INFINITY || days == DATE_MINUS_INFINITY;
	}
	if (field.typeOid != TypeOid::Timestamp && field.typeOid != TypeOid::TimestampTz) return false;
	Poco::Int64 value = 0;
	if (field.format == 1) value = field.size == 8 ? static_cast<Poco::Int64>(getBigEndian(field.data, 8)) : 0;
	else if (!parseTimestamp(fieldText(field), value)) return false;
	return value == TIMESTAMP_INFINITY || value == TIMESTAMP_MINUS_INFINITY;
}

} // namespace BlueTusk
