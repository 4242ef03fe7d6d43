//
// PeerWire.cpp
//
// Library: BlueTusk test peers
//

#include "PeerWire.h"
#include "Poco/ByteOrder.h"
#include <cstring>

namespace BlueTusk {
namespace Test {
namespace Wire {


MessageWriter::MessageWriter(char type):
	_type(type)
{
}


MessageWriter& MessageWriter::byte(char value)
{
	_body.push_back(value);
	return *this;
}


MessageWriter& MessageWriter::int16(Poco::Int16 value)
{
	Poco::Int16 net = Poco::ByteOrder::toNetwork(value);
	_body.append(reinterpret_cast<const char*>(&net), sizeof(net));
	return *this;
}


MessageWriter& MessageWriter::int32(Poco::Int32 value)
{
	Poco::Int32 net = Poco::ByteOrder::toNetwork(value);
	_body.append(reinterpret_cast<const char*>(&net), sizeof(net));
	return *this;
}


MessageWriter& MessageWriter::cstring(const std::string& value)
{
	_body.append(value);
	_body.push_back('\0');
	return *this;
}


MessageWriter& MessageWriter::bytes(const std::string& value)
{
	_body.append(value);
	return *this;
}


std::string MessageWriter::finish() const
{
	std::string out;
	if (_type) out.push_back(_type);
	Poco::Int32 net = Poco::ByteOrder::toNetwork(static_cast<Poco::Int32>(_body.size() + 4));
	out.append(reinterpret_cast<const char*>(&net), sizeof(net));
	out.append(_body);
	return out;
}


MessageReader::MessageReader(std::string body):
	_body(std::move(body))
{
}


void MessageReader::need(std::size_t count) const
{
	if (_body.size() - _pos < count) throw std::runtime_error("message too short");
}


char MessageReader::byte()
{
	need(1);
	return _body[_pos++];
}


Poco::Int16 MessageReader::int16()
{
	need(2);
	Poco::Int16 net;
	std::memcpy(&net, _body.data() + _pos, 2);
	_pos += 2;
	return Poco::ByteOrder::fromNetwork(net);
}


Poco::Int32 MessageReader::int32()
{
	need(4);
	Poco::Int32 net;
	std::memcpy(&net, _body.data() + _pos, 4);
	_pos += 4;
	return Poco::ByteOrder::fromNetwork(net);
}


std::string MessageReader::cstring()
{
	std::size_t end = _body.find('\0', _pos);
	if (end == std::string::npos) throw std::runtime_error("string without terminator");
	std::string value = _body.substr(_pos, end - _pos);
	_pos = end + 1;
	return value;
}


std::string MessageReader::bytes(std::size_t count)
{
	need(count);
	std::string value = _body.substr(_pos, count);
	_pos += count;
	return value;
}


bool MessageReader::atEnd() const
{
	return _pos >= _body.size();
}


std::size_t MessageReader::remaining() const
{
	return _body.size() - _pos;
}


std::string authentication(Poco::Int32 code, const std::string& extra)
{
	return MessageWriter('R').int32(code).bytes(extra).finish();
}


std::string parameterStatus(const std::string& name, const std::string& value)
{
	return MessageWriter('S').cstring(name).cstring(value).finish();
}


std::string backendKeyData(Poco::Int32 processId, Poco::Int32 secretKey)
{
	return MessageWriter('K').int32(processId).int32(secretKey).finish();
}


std::string readyForQuery(char status)
{
	return MessageWriter('Z').byte(status).finish();
}


std::string errorResponse(const ErrorFields& fields, char type)
{
	MessageWriter writer(type);
	writer.byte('S').cstring(fields.severity);
	writer.byte('V').cstring(fields.severity);
	writer.byte('C').cstring(fields.sqlState);
	writer.byte('M').cstring(fields.message);
	if (!fields.detail.empty()) writer.byte('D').cstring(fields.detail);
	if (!fields.hint.empty()) writer.byte('H').cstring(fields.hint);
	writer.byte('F').cstring("fakebackend.c");
	writer.byte('R').cstring("FakeBackend");
	writer.byte('\0');
	return writer.finish();
}


std::string rowDescription(const std::vector<std::pair<std::string, Poco::UInt32>>& columns)
{
	MessageWriter writer('T');
	writer.int16(static_cast<Poco::Int16>(columns.size()));
	for (const auto& column: columns)
	{
		Poco::Int16 size = column.second == OID_BOOL ? 1 : column.second == OID_INT4 ? 4 : -1;
		writer.cstring(column.first).int32(0).int16(0).int32(static_cast<Poco::Int32>(column.second))
			.int16(size).int32(-1).int16(0);
	}
	return writer.finish();
}


std::string dataRow(const TextRow& values)
{
	MessageWriter writer('D');
	writer.int16(static_cast<Poco::Int16>(values.size()));
	for (const auto& value: values)
	{
		if (value)
			writer.int32(static_cast<Poco::Int32>(value->size())).bytes(*value);
		else
			writer.int32(-1);
	}
	return writer.finish();
}


std::string commandComplete(const std::string& tag)
{
	return MessageWriter('C').cstring(tag).finish();
}


std::string emptyQueryResponse()
{
	return simple('I');
}


std::string parameterDescription(const std::vector<Poco::UInt32>& types)
{
	MessageWriter writer('t');
	writer.int16(static_cast<Poco::Int16>(types.size()));
	for (auto type: types) writer.int32(static_cast<Poco::Int32>(type));
	return writer.finish();
}


std::string noData()
{
	return simple('n');
}


std::string simple(char type)
{
	return MessageWriter(type).finish();
}


std::string startupMessage(const std::vector<std::pair<std::string, std::string>>& parameters)
{
	MessageWriter writer;
	writer.int32(PROTOCOL_3_0);
	for (const auto& parameter: parameters) writer.cstring(parameter.first).cstring(parameter.second);
	writer.byte('\0');
	return writer.finish();
}


std::string sslRequest()
{
	return MessageWriter().int32(SSL_REQUEST_CODE).finish();
}


std::string query(const std::string& sql)
{
	return MessageWriter('Q').cstring(sql).finish();
}


std::string terminate()
{
	return simple('X');
}

} } } // namespace BlueTusk::Test::Wire
