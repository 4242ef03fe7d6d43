//
// BackendMessage.cpp
//
// Library: BlueTusk/Transport
//

#include "BackendMessage.h"
#include "MessageDecoding.h"
#include <cstring>
#include "Poco/NumberFormatter.h"
#include "Poco/NumberParser.h"

namespace BlueTusk {

namespace {

class FieldCursor
	/// Reads big-endian integers and C strings from a message body; reports the first problem.
{
public:
	FieldCursor(const std::string& body): _data(body.data()), _size(body.size())
	{
	}

	FieldCursor(const char* data, std::size_t size): _data(data), _size(size)
	{
	}

	bool int16(Poco::Int16& value)
	{
		if (_size - _pos < 2) return false;
		const unsigned char* p = reinterpret_cast<const unsigned char*>(_data + _pos);
		value = static_cast<Poco::Int16>((Poco::UInt16(p[0]) << 8) | Poco::UInt16(p[1]));
		_pos += 2;
		return true;
	}

	bool int32(Poco::Int32& value)
	{
		if (_size - _pos < 4) return false;
		const unsigned char* p = reinterpret_cast<const unsigned char*>(_data + _pos);
		value = static_cast<Poco::Int32>((Poco::UInt32(p[0]) << 24) | (Poco::UInt32(p[1]) << 16) | (Poco::UInt32(p[2]) << 8) | Poco::UInt32(p[3]));
		_pos += 4;
		return true;
	}

	bool cstring(std::string& value)
	{
		const void* nul = _pos < _size ? std::memchr(_data + _pos, '\0', _size - _pos) : nullptr;
		if (!nul) return false;
		const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nul) - _data);
		value.assign(_data + _pos, end - _pos);
		_pos = end + 1;
		return true;
	}

	bool bytes(std::size_t n, std::string& value)
	{
		if (_size - _pos < n) return false;
		value.assign(_data + _pos, n);
		_pos += n;
		return true;
	}

	bool view(std::size_t n, const char*& data)
		/// The next n bytes in place (valid while the body lives), without a copy.
	{
		if (_size - _pos < n) return false;
		data = _data + _pos;
		_pos += n;
		return true;
	}

	bool byte(char& value)
	{
		if (_pos >= _size) return false;
		value = _data[_pos++];
		return true;
	}

	std::string rest()
	{
		std::string value(_data + _pos, _size - _pos);
		_pos = _size;
		return value;
	}

	bool atEnd() const
	{
		return _pos == _size;
	}

	std::size_t remaining() const
	{
		return _size - _pos;
	}

private:
	const char* _data;
	std::size_t _size;
	std::size_t _pos = 0;
};

[[noreturn]] void malformedMessage(char type, const std::string& what)
{
	throw BlueTuskProtocolException("malformed " + BackendMessage::typeName(type) + " message from the server: " + what);
}

} // namespace


BackendMessage::BackendMessage()
{
}


BackendMessage::BackendMessage(char t, const std::string& b):
	type(t),
	body(b)
{
}


std::string BackendMessage::typeName() const
{
	return typeName(type);
}


std::string BackendMessage::typeName(char type)
{
	switch (type)
	{
	case 'R': return "Authentication";
	case 'K': return "BackendKeyData";
	case '2': return "BindComplete";
	case '3': return "CloseComplete";
	case 'C': return "CommandComplete";
	case 'd': return "CopyData";
	case 'c': return "CopyDone";
	case 'G': return "CopyInResponse";
	case 'H': return "CopyOutResponse";
	case 'W': return "CopyBothResponse";
	case 'D': return "DataRow";
	case 'I': return "EmptyQueryResponse";
	case 'E': return "ErrorResponse";
	case 'V': return "FunctionCallResponse";
	case 'v': return "NegotiateProtocolVersion";
	case 'n': return "NoData";
	case 'N': return "NoticeResponse";
	case 'A': return "NotificationResponse";
	case 't': return "ParameterDescription";
	case 'S': return "ParameterStatus";
	case '1': return "ParseComplete";
	case 's': return "PortalSuspended";
	case 'Z': return "ReadyForQuery";
	case 'T': return "RowDescription";
	default:
		break;
	}
	const unsigned char u = static_cast<unsigned char>(type);
	if (u >= 0x21 && u < 0x7F) return std::string("message type '") + type + "'";
	return "message type 0x" + Poco::NumberFormatter::formatHex(static_cast<unsigned>(u), 2);
}


void BackendMessage::malformed(const std::string& what) const
{
	malformedMessage(type, what);
}


BlueTuskServerException::Fields BackendMessage::errorFields() const
{
	BlueTuskServerException::Fields fields;
	std::string localizedSeverity;
	FieldCursor cursor(body);
	for (;;)
	{
		char code = 0;
		if (!cursor.byte(code)) malformed("missing terminator");
		if (code == '\0') break;
		std::string value;
		if (!cursor.cstring(value)) malformed("unterminated field");
		switch (code)
		{
		case 'S': localizedSeverity = value; break;
		case 'V': fields.severity = value; break;
		case 'C': fields.sqlState = value; break;
		case 'M': fields.message = value; break;
		case 'D': fields.detail = value; break;
		case 'H': fields.hint = value; break;
		case 'P':
			{
				int position = 0;
				if (Poco::NumberParser::tryParse(value, position)) fields.position = position;
			}
			break;
		case 's': fields.schema = value; break;
		case 't': fields.table = value; break;
		case 'c': fields.column = value; break;
		case 'n': fields.constraint = value; break;
		case 'W': fields.context = value; break;
		default: break; // other fields (p, q, d, F, L, R) are not kept; unknown ones must be ignored
		}
	}
	if (!cursor.atEnd()) malformed("data after the terminator");
	if (fields.severity.empty()) fields.severity = localizedSeverity;
	return fields;
}


std::pair<std::string, std::string> BackendMessage::parameterStatus() const
{
	FieldCursor cursor(body);
	std::pair<std::string, std::string> result;
	if (!cursor.cstring(result.first) || !cursor.cstring(result.second)) malformed("unterminated string");
	if (!cursor.atEnd()) malformed("trailing data");
	return result;
}


std::pair<Poco::Int32, Poco::Int32> BackendMessage::backendKeyData() const
{
	FieldCursor cursor(body);
	std::pair<Poco::Int32, Poco::Int32> result;
	if (!cursor.int32(result.first) || !cursor.int32(result.second)) malformed("too short");
	if (!cursor.atEnd()) malformed("trailing data");
	return result;
}


std::pair<Poco::Int32, std::string> BackendMessage::backendKey() const
{
	FieldCursor cursor(body);
	std::pair<Poco::Int32, std::string> result;
	if (!cursor.int32(result.first) || cursor.remaining() < 4 || !cursor.bytes(cursor.remaining(), result.second)) malformed("too short");
	return result;
}


std::pair<Poco::Int32, std::vector<std::string>> BackendMessage::negotiateProtocolVersion() const
{
	FieldCursor cursor(body);
	std::pair<Poco::Int32, std::vector<std::string>> result;
	Poco::Int32 count = 0;
	if (!cursor.int32(result.first) || !cursor.int32(count)) malformed("too short");
	if (count < 0 || static_cast<std::size_t>(count) > cursor.remaining()) malformed("invalid option count");
	for (Poco::Int32 i = 0; i < count; ++i)
	{
		std::string name;
		if (!cursor.cstring(name)) malformed("unterminated option name");
		result.second.push_back(name);
	}
	if (!cursor.atEnd()) malformed("trailing data");
	return result;
}


char BackendMessage::readyForQuery() const
{
	return Detail::decodeReadyForQuery(type, body.data(), body.size());
}


char Detail::decodeReadyForQuery(char type, const char* body, std::size_t length)
{
	if (length != 1) malformedMessage(type, "length " + std::to_string(length) + " instead of 1");
	const char status = body[0];
	if (status != 'I' && status != 'T' && status != 'E') malformedMessage(type, "unknown transaction status");
	return status;
}


std::vector<ColumnDescription> BackendMessage::rowDescription() const
{
	return Detail::decodeRowDescription(type, body.data(), body.size());
}


std::vector<ColumnDescription> Detail::decodeRowDescription(char type, const char* body, std::size_t length)
{
	FieldCursor cursor(body, length);
	Poco::Int16 count = 0;
	if (!cursor.int16(count)) malformedMessage(type, "too short");
	if (count < 0) malformedMessage(type, "negative field count");
	std::vector<ColumnDescription> columns;
	columns.reserve(static_cast<std::size_t>(count));
	for (Poco::Int16 i = 0; i < count; ++i)
	{
		ColumnDescription column;
		Poco::Int32 tableOid = 0, typeOid = 0;
		if (!cursor.cstring(column.name) || !cursor.int32(tableOid) || !cursor.int16(column.columnNumber) ||
			!cursor.int32(typeOid) || !cursor.int16(column.typeSize) || !cursor.int32(column.typeModifier) ||
			!cursor.int16(column.formatCode))
		{
			malformedMessage(type, "field " + std::to_string(i + 1) + " of " + std::to_string(count) + " is truncated");
		}
		column.tableOid = static_cast<Poco::UInt32>(tableOid);
		column.typeOid = static_cast<Poco::UInt32>(typeOid);
		columns.push_back(std::move(column));
	}
	if (!cursor.atEnd()) malformedMessage(type, "trailing data");
	return columns;
}


Row BackendMessage::dataRow(std::size_t expectedColumns) const
{
	return Detail::decodeDataRow(type, body.data(), body.size(), expectedColumns);
}


Row Detail::decodeDataRow(char type, const char* body, std::size_t bodyLength, std::size_t expectedColumns)
{
	FieldCursor cursor(body, bodyLength);
	Poco::Int16 count = 0;
	if (!cursor.int16(count)) malformedMessage(type, "too short");
	if (count < 0 || static_cast<std::size_t>(count) != expectedColumns)
		malformedMessage(type, std::to_string(count) + " columns where the row description has " + std::to_string(expectedColumns));
	Row row;
	row.reserve(expectedColumns);
	for (Poco::Int16 i = 0; i < count; ++i)
	{
		Poco::Int32 length = 0;
		if (!cursor.int32(length)) malformedMessage(type, "column " + std::to_string(i + 1) + " is truncated");
		if (length == -1)
		{
			row.emplace_back(std::nullopt);
			continue;
		}
		if (length < 0) malformedMessage(type, "negative length in column " + std::to_string(i + 1));
		const char* data = nullptr;
		if (!cursor.view(static_cast<std::size_t>(length), data)) malformedMessage(type, "column " + std::to_string(i + 1) + " is truncated");
		row.emplace_back(std::in_place, data, static_cast<std::size_t>(length));   // built in place (R6)
	}
	if (!cursor.atEnd()) malformedMessage(type, "trailing data");
	return row;
}


std::vector<Poco::UInt32> BackendMessage::parameterDescription() const
{
	FieldCursor cursor(body);
	Poco::Int16 count = 0;
	if (!cursor.int16(count)) malformed("too short");
	if (count < 0) malformed("negative parameter count");
	std::vector<Poco::UInt32> types;
	types.reserve(static_cast<std::size_t>(count));
	for (Poco::Int16 i = 0; i < count; ++i)
	{
		Poco::Int32 oid = 0;
		if (!cursor.int32(oid)) malformed("parameter " + std::to_string(i + 1) + " is truncated");
		types.push_back(static_cast<Poco::UInt32>(oid));
	}
	if (!cursor.atEnd()) malformed("trailing data");
	return types;
}


Notification BackendMessage::notification() const
{
	FieldCursor cursor(body);
	Notification result;
	if (!cursor.int32(result.processId)) malformed("too short");
	if (!cursor.cstring(result.channel) || !cursor.cstring(result.payload)) malformed("unterminated channel or payload");
	if (!cursor.atEnd()) malformed("trailing data");
	return result;
}


std::string BackendMessage::commandComplete() const
{
	std::string tag;
	Detail::decodeCommandComplete(type, body.data(), body.size(), tag);
	return tag;
}


void Detail::decodeCommandComplete(char type, const char* body, std::size_t length, std::string& tag)
{
	const void* nul = length > 0 ? std::memchr(body, '\0', length) : nullptr;
	if (!nul) malformedMessage(type, "unterminated command tag");
	const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nul) - body);
	if (end + 1 != length) malformedMessage(type, "trailing data");
	tag.assign(body, end);
}


Poco::Int32 BackendMessage::authenticationCode() const
{
	FieldCursor cursor(body);
	Poco::Int32 code = 0;
	if (!cursor.int32(code)) malformed("too short");
	return code;
}


std::string BackendMessage::authenticationData() const
{
	if (body.size() < 4) malformed("too short");
	return body.substr(4);
}


std::vector<std::string> BackendMessage::saslMechanisms() const
{
	FieldCursor cursor(body);
	Poco::Int32 code = 0;
	if (!cursor.int32(code)) malformed("too short");
	std::vector<std::string> mechanisms;
	for (;;)
	{
		std::string name;
		if (!cursor.cstring(name)) malformed("unterminated mechanism list");
		if (name.empty()) break;
		mechanisms.push_back(name);
	}
	if (!cursor.atEnd()) malformed("trailing data");
	return mechanisms;
}

} // namespace BlueTusk
