//
// Parameter.h
//
// Library: BlueTusk/Transport
//
// A typed statement parameter built from a C++ value, sent in binary with its type OID where known.
//

#ifndef BlueTusk_Parameter_INCLUDED
#define BlueTusk_Parameter_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/TypeOid.h"
#include "Poco/DateTime.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include "Poco/Types.h"
#include "Poco/UUID.h"
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace BlueTusk {

using Bytes = std::vector<unsigned char>;
	/// A bytea value (raw bytes).


class BlueTusk_Transport_API Parameter
	/// One parameter ($1, $2, ...) of an extended-protocol statement, built implicitly from a C++ value:
	///
	///     session.query("SELECT * FROM orders WHERE id = $1 AND placed > $2", {42, Poco::Timestamp()});
	///
	/// | C++ value                              | sent as (natural type)          |
	/// |----------------------------------------|---------------------------------|
	/// | bool                                   | bool, binary                    |
	/// | 8/16-bit signed integers               | int2, binary                    |
	/// | int32, unsigned 8/16-bit               | int4, binary                    |
	/// | int64, uint32, uint64 (up to 2^63-1)   | int8, binary                    |
	/// | float / double                         | float4 / float8, binary         |
	/// | std::string, std::string_view, char*   | text format, type left to the server (like libpq) |
	/// | Bytes                                  | bytea, binary                   |
	/// | Poco::UUID                             | uuid, binary                    |
	/// | Poco::Timestamp, Poco::DateTime (UTC)  | timestamptz, binary (microseconds kept) |
	/// | Parameter::timestamp(dt)               | timestamp (without time zone)   |
	/// | Parameter::date(dt), Parameter::time(t)| date, time                      |
	/// | std::optional<T>, std::nullopt, Parameter::null() | NULL when empty      |
	///
	/// When the statement was prepared, each value is converted to the type the server inferred for its
	/// placeholder when that loses nothing (an int32 into int8, a text into anything the server parses,
	/// an integer into numeric or text); otherwise the execution throws BlueTuskTypeException naming the
	/// parameter ($n), its PostgreSQL type and the C++ type, before anything is sent. Binary formats:
	/// PostgreSQL's send/receive functions (src/backend/utils/adt). Value type; thread-safe to copy.
{
public:
	enum class Kind
	{
		Null, Bool, Int16, Int32, Int64, Float32, Float64, Text, Bytes, Uuid, TimestampTz, Timestamp, Date, Time
	};

	Parameter();
		/// NULL.

	Parameter(std::nullopt_t);
		/// NULL.

	Parameter(bool value);

	template <typename T, typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value &&
		!std::is_same<T, char>::value && !std::is_same<T, wchar_t>::value && !std::is_same<T, char16_t>::value &&
		!std::is_same<T, char32_t>::value, int>::type = 0>
	Parameter(T value)
		/// Any integer type except the character types (a char is ambiguous: pass a std::string or an int).
		/// Throws BlueTuskTypeException for an unsigned 64-bit value above 2^63-1 (int8's maximum).
	{
		if (std::is_signed<T>::value && sizeof(T) <= 2) setInteger(Kind::Int16, static_cast<Poco::Int64>(value));
		else if ((std::is_signed<T>::value && sizeof(T) == 4) || (!std::is_signed<T>::value && sizeof(T) <= 2)) setInteger(Kind::Int32, static_cast<Poco::Int64>(value));
		else if (std::is_signed<T>::value || sizeof(T) <= 4) setInteger(Kind::Int64, static_cast<Poco::Int64>(value));
		else setUnsigned64(static_cast<Poco::UInt64>(value));
	}

	Parameter(float value);
	Parameter(double value);
	Parameter(const char* value);
		/// Text; a null pointer is NULL.
	Parameter(const std::string& value);
	Parameter(std::string&& value);
	Parameter(std::string_view value);
	Parameter(const Bytes& value);
	Parameter(const Poco::UUID& value);
	Parameter(const Poco::Timestamp& value);
		/// timestamptz: the instant, microseconds kept.
	Parameter(const Poco::DateTime& value);
		/// timestamptz: the DateTime read as UTC (Poco::DateTime has no time zone), microseconds kept.

	template <typename T>
	Parameter(const std::optional<T>& value): Parameter()
		/// NULL when empty, else the value's parameter.
	{
		if (value) *this = Parameter(*value);
	}

	static Parameter null();
		/// NULL (type left to the server).
	static Parameter text(const std::string& value);
	static Parameter bytes(const void* data, std::size_t size);
	static Parameter timestamp(const Poco::DateTime& value);
		/// timestamp without time zone (the DateTime's fields as written).
	static Parameter date(const Poco::DateTime& value);
		/// date: the DateTime's year, month and day.
	static Parameter time(const Poco::Timespan& sinceMidnight);
		/// time without time zone; sinceMidnight must be in [0, 24 h] (else BlueTuskTypeException).

	Kind kind() const;
	bool isNull() const;

	Poco::UInt32 naturalOid() const;
		/// The OID sent in an unprepared Parse: the table above; 0 (server infers) for text and NULL.

	const char* kindName() const;
		/// The C++ side for messages: "int32", "std::string", "Poco::UUID", ...

	bool encode(Poco::UInt32 targetOid, std::size_t index, std::string& out) const;
		/// Appends the value's wire form for a placeholder of type targetOid (0: the natural type) to out
		/// and returns true for binary format, false for text; does nothing for NULL (check isNull()).
		/// index is the 0-based position, for messages ($index+1). Throws BlueTuskTypeException when the
		/// value cannot be sent as targetOid without loss.

private:
	void setInteger(Kind kind, Poco::Int64 value);
	void setUnsigned64(Poco::UInt64 value);
	[[noreturn]] void refuse(Poco::UInt32 targetOid, std::size_t index, const std::string& why) const;

	Kind _kind = Kind::Null;
	Poco::Int64 _integer = 0;   /// Bool, Int16/32/64, TimestampTz/Timestamp (microseconds since 2000-01-01
	                            /// UTC), Date (days since 2000-01-01), Time (microseconds since midnight)
	double _float = 0;          /// Float32, Float64
	std::string _bytes;         /// Text, Bytes, Uuid (16 bytes)
};

using Parameters = std::vector<Parameter>;
	/// The parameters of one execution, in placeholder order.

} // namespace BlueTusk

#endif // BlueTusk_Parameter_INCLUDED
