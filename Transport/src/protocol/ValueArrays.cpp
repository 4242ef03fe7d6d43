//
// ValueArrays.cpp
//
// Library: BlueTusk/Transport
//
// One-dimensional arrays: the binary format of array_send (ndim, has-null flag, element OID, then per
// dimension size and lower bound, then each element as length + bytes, -1 for NULL) and the text form of
// array_out ("{1,2,NULL}", "{\"a b\",c}"; PostgreSQL docs 8.15.6).
//

#include "BlueTusk/ValueCodec.h"
#include "BlueTusk/BlueTuskException.h"
#include "ValueCodecSupport.h"
#include "WireValue.h"
#include <cctype>
#include <functional>

namespace BlueTusk {

using namespace Detail;

namespace {

struct Element
{
	bool null = false;
	const char* data = nullptr;
	std::size_t size = 0;
};


struct Elements
{
	Poco::UInt32 elementOid = 0;
	Poco::Int16 format = 0;
	std::vector<Element> items;
	std::vector<std::string> unescaped;   /// text elements that needed unescaping (items point here)
};


void splitBinary(const FieldView& field, const char* cppType, Elements& out)
{
	const char* p = field.data;
	const char* end = field.data + field.size;
	auto need = [&](std::size_t bytes)
	{
		if (static_cast<std::size_t>(end - p) < bytes) conversionError(field, cppType, "malformed binary array (truncated)");
	};
	need(12);
	const Poco::Int32 dimensions = static_cast<Poco::Int32>(getBigEndian(p, 4));
	out.elementOid = static_cast<Poco::UInt32>(getBigEndian(p + 8, 4));
	out.format = 1;
	p += 12;
	if (dimensions == 0) return;
	if (dimensions != 1)
		conversionError(field, cppType, std::to_string(dimensions) + "-dimensional arrays are not supported; read it as std::string");
	need(8);
	const Poco::Int32 count = static_cast<Poco::Int32>(getBigEndian(p, 4));
	p += 8;
	if (count < 0 || static_cast<std::size_t>(count) > field.size / 4) conversionError(field, cppType, "malformed binary array (element count)");
	out.items.reserve(static_cast<std::size_t>(count));
	for (Poco::Int32 i = 0; i < count; ++i)
	{
		need(4);
		const Poco::Int32 length = static_cast<Poco::Int32>(getBigEndian(p, 4));
		p += 4;
		Element element;
		if (length == -1)
		{
			element.null = true;
		}
		else
		{
			if (length < 0) conversionError(field, cppType, "malformed binary array (negative length)");
			need(static_cast<std::size_t>(length));
			element.data = p;
			element.size = static_cast<std::size_t>(length);
			p += length;
		}
		out.items.push_back(element);
	}
	if (p != end) conversionError(field, cppType, "malformed binary array (trailing data)");
}


void splitText(const FieldView& field, const char* cppType, Elements& out)
{
	out.elementOid = TypeOid::elementOf(field.typeOid);
	out.format = 0;
	if (out.elementOid == 0) conversionError(field, cppType, "not an array type BlueTusk decodes");
	const std::string text = fieldText(field);
	std::size_t pos = 0;
	if (!text.empty() && text[0] == '[')   // "[0:2]={...}": bounds other than 1
	{
		pos = text.find('=');
		if (pos == std::string::npos) conversionError(field, cppType, "malformed array text");
		++pos;
	}
	if (pos >= text.size() || text[pos] != '{' || text.back() != '}') conversionError(field, cppType, "malformed array text");
	++pos;
	const std::size_t close = text.size() - 1;
	if (pos == close) return;
	out.unescaped.reserve(close - pos);   // no reallocation: items point into these strings
	while (pos <= close)
	{
		while (pos < close && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
		std::string value;
		bool quoted = false;
		if (pos < close && text[pos] == '{')
			conversionError(field, cppType, "multi-dimensional arrays are not supported; read it as std::string");
		if (pos < close && text[pos] == '"')
		{
			quoted = true;
			++pos;
			while (pos < close && text[pos] != '"')
			{
				if (text[pos] == '\\' && pos + 1 < close) ++pos;
				value.push_back(text[pos++]);
			}
			if (pos >= close) conversionError(field, cppType, "malformed array text (unterminated quote)");
			++pos;
		}
		else
		{
			while (pos < close && text[pos] != ',')
			{
				if (text[pos] == '\\' && pos + 1 < close) ++pos;
				value.push_back(text[pos++]);
			}
			while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
		}
		while (pos < close && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
		if (pos < close && text[pos] != ',') conversionError(field, cppType, "malformed array text");
		Element element;
		if (!quoted && (value == "NULL" || value == "null" || value == "Null"))
		{
			element.null = true;
		}
		else
		{
			out.unescaped.push_back(std::move(value));
			element.data = out.unescaped.back().data();
			element.size = out.unescaped.back().size();
		}
		out.items.push_back(element);
		++pos;   // past ',' (or the closing brace)
	}
}


void split(const FieldView& field, const char* cppType, Elements& out)
{
	if (TypeOid::elementOf(field.typeOid) == 0) conversionError(field, cppType, "not an array type BlueTusk decodes");
	if (field.format == 1) splitBinary(field, cppType, out);
	else splitText(field, cppType, out);
}


template <typename T> struct CppName;
template <> struct CppName<bool> { static constexpr const char* value = "std::vector<bool>"; };
template <> struct CppName<Poco::Int16> { static constexpr const char* value = "std::vector<int16>"; };
template <> struct CppName<Poco::Int32> { static constexpr const char* value = "std::vector<int32>"; };
template <> struct CppName<Poco::Int64> { static constexpr const char* value = "std::vector<int64>"; };
template <> struct CppName<float> { static constexpr const char* value = "std::vector<float>"; };
template <> struct CppName<double> { static constexpr const char* value = "std::vector<double>"; };
template <> struct CppName<std::string> { static constexpr const char* value = "std::vector<std::string>"; };
template <> struct CppName<Bytes> { static constexpr const char* value = "std::vector<BlueTusk::Bytes>"; };
template <> struct CppName<Poco::UUID> { static constexpr const char* value = "std::vector<Poco::UUID>"; };
template <> struct CppName<Poco::Timestamp> { static constexpr const char* value = "std::vector<Poco::Timestamp>"; };
template <> struct CppName<Poco::DateTime> { static constexpr const char* value = "std::vector<Poco::DateTime>"; };
template <> struct CppName<Poco::Timespan> { static constexpr const char* value = "std::vector<Poco::Timespan>"; };


template <typename T>
void readElements(const FieldView& field, std::vector<std::optional<T>>& value, bool allowNull)
{
	const char* cppType = CppName<T>::value;
	Elements elements;
	split(field, cppType, elements);
	value.clear();
	value.reserve(elements.items.size());
	for (std::size_t i = 0; i < elements.items.size(); ++i)
	{
		const Element& item = elements.items[i];
		if (item.null)
		{
			if (!allowNull)
				conversionError(field, cppType, "element " + std::to_string(i + 1) + " is NULL; read it into a std::vector of std::optional");
			value.emplace_back();
			continue;
		}
		T element{};
		try
		{
			ValueCodec::read(FieldView{elements.elementOid, elements.format, item.data, item.size}, element);
		}
		catch (BlueTuskTypeException& exc)
		{
			throw BlueTuskTypeException(TypeOid::name(field.typeOid) + " element " + std::to_string(i + 1) + ": " + exc.message());
		}
		value.emplace_back(std::move(element));
	}
}


template <typename T>
void readStrict(const FieldView& field, std::vector<T>& value)
{
	std::vector<std::optional<T>> elements;
	readElements(field, elements, false);
	value.clear();
	value.reserve(elements.size());
	for (auto& element: elements) value.push_back(std::move(*element));
}


bool needsQuotes(const std::string& text)
{
	if (text.empty()) return true;
	if (text.size() == 4 && (text[0] == 'N' || text[0] == 'n') && (text[1] == 'U' || text[1] == 'u') &&
		(text[2] == 'L' || text[2] == 'l') && (text[3] == 'L' || text[3] == 'l')) return true;
	for (char c: text)
	{
		if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || std::isspace(static_cast<unsigned char>(c))) return true;
	}
	return false;
}

} // namespace


namespace Detail {

std::string arrayText(const FieldView& field)
{
	// Any number of dimensions: PostgreSQL's array_out nests braces per dimension and writes lower bounds
	// other than 1 as a "[lo:hi]" prefix.
	const char* p = field.data;
	const char* end = field.data + field.size;
	auto need = [&](std::size_t bytes)
	{
		if (static_cast<std::size_t>(end - p) < bytes) conversionError(field, "std::string", "malformed binary array (truncated)");
	};
	need(12);
	const Poco::Int32 dimensions = static_cast<Poco::Int32>(getBigEndian(p, 4));
	const Poco::UInt32 elementOid = static_cast<Poco::UInt32>(getBigEndian(p + 8, 4));
	p += 12;
	if (dimensions < 0 || dimensions > 6) conversionError(field, "std::string", "malformed binary array (dimensions)");
	if (dimensions == 0) return "{}";
	std::vector<Poco::Int32> sizes;
	std::string bounds;
	bool defaultBounds = true;
	std::size_t total = 1;
	for (Poco::Int32 d = 0; d < dimensions; ++d)
	{
		need(8);
		const Poco::Int32 size = static_cast<Poco::Int32>(getBigEndian(p, 4));
		const Poco::Int32 lower = static_cast<Poco::Int32>(getBigEndian(p + 4, 4));
		p += 8;
		if (size < 0 || static_cast<std::size_t>(size) > field.size) conversionError(field, "std::string", "malformed binary array (dimension size)");
		sizes.push_back(size);
		total *= static_cast<std::size_t>(size);
		if (total > field.size) conversionError(field, "std::string", "malformed binary array (element count)");
		if (lower != 1) defaultBounds = false;
		bounds += "[" + std::to_string(lower) + ":" + std::to_string(static_cast<Poco::Int64>(lower) + size - 1) + "]";
	}
	std::vector<std::string> items;
	items.reserve(total);
	for (std::size_t i = 0; i < total; ++i)
	{
		need(4);
		const Poco::Int32 length = static_cast<Poco::Int32>(getBigEndian(p, 4));
		p += 4;
		if (length == -1)
		{
			items.push_back("NULL");
			continue;
		}
		if (length < 0) conversionError(field, "std::string", "malformed binary array (negative length)");
		need(static_cast<std::size_t>(length));
		std::string text;
		ValueCodec::read(FieldView{elementOid, 1, p, static_cast<std::size_t>(length)}, text);
		p += length;
		if (!needsQuotes(text))
		{
			items.push_back(std::move(text));
			continue;
		}
		std::string quoted("\"");
		for (char c: text)
		{
			if (c == '"' || c == '\\') quoted.push_back('\\');
			quoted.push_back(c);
		}
		quoted.push_back('"');
		items.push_back(std::move(quoted));
	}
	if (p != end) conversionError(field, "std::string", "malformed binary array (trailing data)");
	std::string out = defaultBounds ? std::string() : bounds + "=";
	std::size_t next = 0;
	// emit(d): the braces of dimension d around its sub-arrays (or elements at the last dimension)
	std::function<void(std::size_t)> emit = [&](std::size_t d)
	{
		out.push_back('{');
		for (Poco::Int32 i = 0; i < sizes[d]; ++i)
		{
			if (i > 0) out.push_back(',');
			if (d + 1 < sizes.size()) emit(d + 1);
			else out += items[next++];
		}
		out.push_back('}');
	};
	emit(0);
	return out;
}

} // namespace Detail


#define BLUETUSK_ARRAY_READ(T) \
	void ValueCodec::read(const FieldView& field, std::vector<T>& value) { readStrict(field, value); } \
	void ValueCodec::read(const FieldView& field, std::vector<std::optional<T>>& value) { readElements(field, value, true); }
BLUETUSK_ARRAY_READ(bool)
BLUETUSK_ARRAY_READ(Poco::Int16)
BLUETUSK_ARRAY_READ(Poco::Int32)
BLUETUSK_ARRAY_READ(Poco::Int64)
BLUETUSK_ARRAY_READ(float)
BLUETUSK_ARRAY_READ(double)
BLUETUSK_ARRAY_READ(std::string)
BLUETUSK_ARRAY_READ(Bytes)
BLUETUSK_ARRAY_READ(Poco::UUID)
BLUETUSK_ARRAY_READ(Poco::Timestamp)
BLUETUSK_ARRAY_READ(Poco::DateTime)
BLUETUSK_ARRAY_READ(Poco::Timespan)
#undef BLUETUSK_ARRAY_READ

} // namespace BlueTusk
