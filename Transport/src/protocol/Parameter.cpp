//
// Parameter.cpp
//
// Library: BlueTusk/Transport
//
// Binary send formats as PostgreSQL's *_recv functions read them (src/backend/utils/adt: int2recv,
// int4recv, int8recv, float4recv, float8recv, boolrecv, bytearecv, uuid_recv, timestamp_recv,
// date_recv, time_recv): big-endian, timestamps in microseconds since 2000-01-01.
//

#include "BlueTusk/Parameter.h"
#include "BlueTusk/BlueTuskException.h"
#include "WireValue.h"
#include <cmath>
#include <limits>

namespace BlueTusk {

using namespace Detail;

namespace {

Poco::Int64 pgMicroseconds(const Poco::Timestamp& value)
{
	return value.epochMicroseconds() - POSTGRES_EPOCH_UNIX_USECS;
}


Poco::Int64 pgDays(const Poco::DateTime& value)
{
	return daysFromCivil(value.year(), value.month(), value.day()) - POSTGRES_EPOCH_UNIX_DAYS;
}


Poco::Int64 wallClockMicroseconds(const Poco::DateTime& value)
	/// The DateTime's fields as written, as microseconds since 2000-01-01 (for timestamp without zone).
{
	const Poco::Int64 clock = ((value.hour() * 60LL + value.minute()) * 60 + value.second()) * 1000000LL +
		value.millisecond() * 1000LL + value.microsecond();
	return pgDays(value) * USECS_PER_DAY + clock;
}


bool isInteger(Poco::UInt32 oid)
{
	return oid == TypeOid::Int2 || oid == TypeOid::Int4 || oid == TypeOid::Int8 || oid == TypeOid::Oid;
}


bool isCharacter(Poco::UInt32 oid)
{
	return TypeOid::isTextual(oid) && oid != TypeOid::Char;
}

} // namespace


Parameter::Parameter()
{
}


Parameter::Parameter(std::nullopt_t)
{
}


Parameter::Parameter(bool value): _kind(Kind::Bool), _integer(value ? 1 : 0)
{
}


Parameter::Parameter(float value): _kind(Kind::Float32), _float(value)
{
}


Parameter::Parameter(double value): _kind(Kind::Float64), _float(value)
{
}


Parameter::Parameter(const char* value)
{
	if (value)
	{
		_kind = Kind::Text;
		_bytes = value;
	}
}


Parameter::Parameter(const std::string& value): _kind(Kind::Text), _bytes(value)
{
}


Parameter::Parameter(std::string&& value): _kind(Kind::Text), _bytes(std::move(value))
{
}


Parameter::Parameter(std::string_view value): _kind(Kind::Text), _bytes(value)
{
}


Parameter::Parameter(const Bytes& value): _kind(Kind::Bytes), _bytes(value.begin(), value.end())
{
}


Parameter::Parameter(const Poco::UUID& value): _kind(Kind::Uuid), _bytes(16, '\0')
{
	value.copyTo(&_bytes[0]);
}


Parameter::Parameter(const Poco::Timestamp& value): _kind(Kind::TimestampTz), _integer(pgMicroseconds(value))
{
}


Parameter::Parameter(const Poco::DateTime& value): _kind(Kind::TimestampTz), _integer(wallClockMicroseconds(value))
{
}


Parameter Parameter::null()
{
	return Parameter();
}


Parameter Parameter::text(const std::string& value)
{
	return Parameter(value);
}


Parameter Parameter::bytes(const void* data, std::size_t size)
{
	Parameter p;
	p._kind = Kind::Bytes;
	p._bytes.assign(static_cast<const char*>(data), size);
	return p;
}


Parameter Parameter::timestamp(const Poco::DateTime& value)
{
	Parameter p(value);
	p._kind = Kind::Timestamp;
	return p;
}


Parameter Parameter::date(const Poco::DateTime& value)
{
	Parameter p;
	p._kind = Kind::Date;
	p._integer = pgDays(value);
	return p;
}


Parameter Parameter::time(const Poco::Timespan& sinceMidnight)
{
	if (sinceMidnight.totalMicroseconds() < 0 || sinceMidnight.totalMicroseconds() > USECS_PER_DAY)
		throw BlueTuskTypeException("a time of day must be between 00:00:00 and 24:00:00; got " +
			std::to_string(sinceMidnight.totalMicroseconds()) + " microseconds");
	Parameter p;
	p._kind = Kind::Time;
	p._integer = sinceMidnight.totalMicroseconds();
	return p;
}


Parameter::Kind Parameter::kind() const
{
	return _kind;
}


bool Parameter::isNull() const
{
	return _kind == Kind::Null;
}


void Parameter::setInteger(Kind kind, Poco::Int64 value)
{
	_kind = kind;
	_integer = value;
}


void Parameter::setUnsigned64(Poco::UInt64 value)
{
	if (value > static_cast<Poco::UInt64>(std::numeric_limits<Poco::Int64>::max()))
		throw BlueTuskTypeException("the unsigned value " + std::to_string(value) + " is beyond int8's maximum (2^63-1)");
	setInteger(Kind::Int64, static_cast<Poco::Int64>(value));
}


Poco::UInt32 Parameter::naturalOid() const
{
	switch (_kind)
	{
	case Kind::Bool: return TypeOid::Bool;
	case Kind::Int16: return TypeOid::Int2;
	case Kind::Int32: return TypeOid::Int4;
	case Kind::Int64: return TypeOid::Int8;
	case Kind::Float32: return TypeOid::Float4;
	case Kind::Float64: return TypeOid::Float8;
	case Kind::Bytes: return TypeOid::Bytea;
	case Kind::Uuid: return TypeOid::Uuid;
	case Kind::TimestampTz: return TypeOid::TimestampTz;
	case Kind::Timestamp: return TypeOid::Timestamp;
	case Kind::Date: return TypeOid::Date;
	case Kind::Time: return TypeOid::Time;
	default: return TypeOid::Unspecified;
	}
}


const char* Parameter::kindName() const
{
	switch (_kind)
	{
	case Kind::Null: return "NULL";
	case Kind::Bool: return "bool";
	case Kind::Int16: return "int16";
	case Kind::Int32: return "int32";
	case Kind::Int64: return "int64";
	case Kind::Float32: return "float";
	case Kind::Float64: return "double";
	case Kind::Text: return "std::string";
	case Kind::Bytes: return "BlueTusk::Bytes";
	case Kind::Uuid: return "Poco::UUID";
	case Kind::TimestampTz: return "Poco::Timestamp";
	case Kind::Timestamp: return "Parameter::timestamp";
	case Kind::Date: return "Parameter::date";
	case Kind::Time: return "Parameter::time";
	}
	return "?";
}


void Parameter::refuse(Poco::UInt32 targetOid, std::size_t index, const std::string& why) const
{
	throw BlueTuskTypeException("parameter $" + std::to_string(index + 1) + " (" + TypeOid::name(targetOid) +
		"): cannot send a " + kindName() + " value" + (why.empty() ? std::string() : ": " + why));
}


bool Parameter::encode(Poco::UInt32 targetOid, std::size_t index, std::string& out) const
{
	if (_kind == Kind::Null) return false;
	const Poco::UInt32 target = targetOid == TypeOid::Unspecified || targetOid == TypeOid::Unknown ? naturalOid() : targetOid;
	if (_kind == Kind::Text)
	{
		out += _bytes;   // text format: the server parses it as the placeholder's type
		return false;
	}
	if (target == TypeOid::Unspecified) refuse(targetOid, index, "unexpected parameter kind");
	switch (_kind)
	{
	case Kind::Bool:
		if (target == TypeOid::Bool) { out.push_back(_integer ? 1 : 0); return true; }
		if (isCharacter(target)) { out += _integer ? "true" : "false"; return false; }
		break;
	case Kind::Int16:
	case Kind::Int32:
	case Kind::Int64:
		switch (target)
		{
		case TypeOid::Int2:
			if (_integer < std::numeric_limits<Poco::Int16>::min() || _integer > std::numeric_limits<Poco::Int16>::max())
				refuse(targetOid, index, std::to_string(_integer) + " is out of range for int2");
			putBigEndian(out, static_cast<Poco::UInt64>(_integer), 2);
			return true;
		case TypeOid::Int4:
			if (_integer < std::numeric_limits<Poco::Int32>::min() || _integer > std::numeric_limits<Poco::Int32>::max())
				refuse(targetOid, index, std::to_string(_integer) + " is out of range for int4");
			putBigEndian(out, static_cast<Poco::UInt64>(_integer), 4);
			return true;
		case TypeOid::Oid:
			if (_integer < 0 || _integer > std::numeric_limits<Poco::UInt32>::max())
				refuse(targetOid, index, std::to_string(_integer) + " is out of range for oid");
			putBigEndian(out, static_cast<Poco::UInt64>(_integer), 4);
			return true;
		case TypeOid::Int8:
			putBigEndian(out, static_cast<Poco::UInt64>(_integer), 8);
			return true;
		case TypeOid::Float8:
			if (std::abs(_integer) > (1LL << 53)) refuse(targetOid, index, std::to_string(_integer) + " has no exact float8");
			putBigEndian(out, doubleBits(static_cast<double>(_integer)), 8);
			return true;
		case TypeOid::Numeric:
			out += std::to_string(_integer);
			return false;
		default:
			if (isCharacter(target)) { out += std::to_string(_integer); return false; }
			break;
		}
		break;
	case Kind::Float32:
	case Kind::Float64:
		if (target == TypeOid::Float8) { putBigEndian(out, doubleBits(_float), 8); return true; }
		if (target == TypeOid::Float4)
		{
			const float narrowed = static_cast<float>(_float);
			if (_kind == Kind::Float64 && !std::isnan(_float) && static_cast<double>(narrowed) != _float)
				refuse(targetOid, index, formatDouble(_float) + " has no exact float4");
			putBigEndian(out, floatBits(narrowed), 4);
			return true;
		}
		if (target == TypeOid::Numeric || isCharacter(target)) { out += formatDouble(_float); return false; }
		break;
	case Kind::Bytes:
		if (target == TypeOid::Bytea) { out += _bytes; return true; }
		break;
	case Kind::Uuid:
		if (target == TypeOid::Uuid) { out += _bytes; return true; }
		if (isCharacter(target)) { out += formatUuid(_bytes.data()); return false; }
		break;
	case Kind::TimestampTz:
	case Kind::Timestamp:
		if (target == TypeOid::TimestampTz || target == TypeOid::Timestamp)
		{
			putBigEndian(out, static_cast<Poco::UInt64>(_integer), 8);
			return true;
		}
		if (isCharacter(target)) { out += formatTimestamp(_integer, _kind == Kind::TimestampTz); return false; }
		break;
	case Kind::Date:
		if (target == TypeOid::Date) { putBigEndian(out, static_cast<Poco::UInt64>(_integer), 4); return true; }
		if (target == TypeOid::Timestamp || target == TypeOid::TimestampTz)
		{
			putBigEndian(out, static_cast<Poco::UInt64>(_integer * USECS_PER_DAY), 8);
			return true;
		}
		if (isCharacter(target)) { out += formatDate(static_cast<Poco::Int32>(_integer)); return false; }
		break;
	case Kind::Time:
		if (target == TypeOid::Time) { putBigEndian(out, static_cast<Poco::UInt64>(_integer), 8); return true; }
		if (isCharacter(target)) { out += formatTime(_integer); return false; }
		break;
	default:
		break;
	}
	refuse(targetOid, index, isInteger(target) ? "the conversion could lose the value" : std::string());
}

} // namespace BlueTusk
