//
// Binder.cpp
//
// Library: BlueTusk/Data
//

#include "Binder.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Data/DataException.h"
#include "Poco/UnicodeConverter.h"
#include <functional>

namespace BlueTusk {
namespace Data {

namespace {

template <typename T>
Parameter toParameter(const T& value)
{
	return Parameter(value);
}


Parameter toParameter(const Poco::Int8& value)
{
	return Parameter(static_cast<Poco::Int16>(value));
}


Parameter toParameter(const Poco::UInt8& value)
{
	return Parameter(static_cast<Poco::Int16>(value));
}


Parameter toParameter(const char& value)
{
	return Parameter(std::string(1, value));
}


Parameter toParameter(const Poco::UTF16String& value)
{
	std::string utf8;
	Poco::UnicodeConverter::convert(value, utf8);
	return Parameter(std::move(utf8));
}


Parameter toParameter(const Poco::Data::BLOB& value)
{
	return Parameter::bytes(value.rawContent(), value.size());
}


Parameter toParameter(const Poco::Data::CLOB& value)
{
	return Parameter(std::string(value.rawContent(), value.size()));
}


Parameter toParameter(const Poco::Data::Date& value)
{
	return Parameter::date(Poco::DateTime(value.year(), value.month(), value.day()));
}


Parameter toParameter(const Poco::Data::Time& value)
{
	return Parameter::time(Poco::Timespan(0, value.hour(), value.minute(), value.second(), 0));
}


Parameter toParameter(const Poco::Data::NullData&)
{
	return Parameter::null();
}


Parameter converted(std::size_t pos, const std::function<Parameter()>& make)
{
	try
	{
		return make();
	}
	catch (BlueTuskTypeException& exc)
	{
		throw Poco::Data::BindingException("parameter $" + std::to_string(pos + 1) + ": " + exc.message());
	}
}

} // namespace


Binder::Binder()
{
}


Binder::~Binder()
{
}


void Binder::set(std::size_t pos, Parameter value, Direction dir)
{
	if (dir != PD_IN)
		throw Poco::Data::NotSupportedException("PostgreSQL statements take input parameters only ($" + std::to_string(pos + 1) +
			" was bound as output); read results with into()");
	if (_parameters.size() <= pos) _parameters.resize(pos + 1);
	_parameters[pos] = std::move(value);
}


void Binder::setColumn(std::size_t pos, std::vector<Parameter> column, Direction dir)
{
	if (dir != PD_IN)
		throw Poco::Data::NotSupportedException("PostgreSQL statements take input parameters only ($" + std::to_string(pos + 1) + ")");
	if (_columns.size() <= pos) _columns.resize(pos + 1);
	_columns[pos] = std::move(column);
}


template <typename C>
void Binder::bindContainer(std::size_t pos, const C& values, Direction dir)
{
	std::vector<Parameter> column;
	column.reserve(values.size());
	for (const auto& value: values) column.push_back(converted(pos, [&] { return toParameter(value); }));
	setColumn(pos, std::move(column), dir);
}


#define BLUETUSK_BIND_SCALAR(T) \
	void Binder::bind(std::size_t pos, const T& val, Direction dir) { set(pos, converted(pos, [&] { return toParameter(val); }), dir); }
BLUETUSK_BIND_SCALAR(Poco::Int8)
BLUETUSK_BIND_SCALAR(Poco::UInt8)
BLUETUSK_BIND_SCALAR(Poco::Int16)
BLUETUSK_BIND_SCALAR(Poco::UInt16)
BLUETUSK_BIND_SCALAR(Poco::Int32)
BLUETUSK_BIND_SCALAR(Poco::UInt32)
BLUETUSK_BIND_SCALAR(Poco::Int64)
BLUETUSK_BIND_SCALAR(Poco::UInt64)
#ifndef POCO_INT64_IS_LONG
BLUETUSK_BIND_SCALAR(long)
BLUETUSK_BIND_SCALAR(unsigned long)
#endif
BLUETUSK_BIND_SCALAR(bool)
BLUETUSK_BIND_SCALAR(float)
BLUETUSK_BIND_SCALAR(double)
BLUETUSK_BIND_SCALAR(char)
BLUETUSK_BIND_SCALAR(std::string)
BLUETUSK_BIND_SCALAR(Poco::UTF16String)
BLUETUSK_BIND_SCALAR(Poco::Data::BLOB)
BLUETUSK_BIND_SCALAR(Poco::Data::CLOB)
BLUETUSK_BIND_SCALAR(Poco::DateTime)
BLUETUSK_BIND_SCALAR(Poco::Data::Date)
BLUETUSK_BIND_SCALAR(Poco::Data::Time)
BLUETUSK_BIND_SCALAR(Poco::UUID)
BLUETUSK_BIND_SCALAR(Poco::Data::NullData)
#undef BLUETUSK_BIND_SCALAR


void Binder::bind(std::size_t pos, const char* const& pVal, Direction dir)
{
	set(pos, Parameter(pVal), dir);
}


#define BLUETUSK_BIND_CONTAINERS(T) \
	void Binder::bind(std::size_t pos, const std::vector<T>& val, Direction dir) { bindContainer(pos, val, dir); } \
	void Binder::bind(std::size_t pos, const std::deque<T>& val, Direction dir) { bindContainer(pos, val, dir); } \
	void Binder::bind(std::size_t pos, const std::list<T>& val, Direction dir) { bindContainer(pos, val, dir); }
BLUETUSK_BIND_CONTAINERS(Poco::Int8)
BLUETUSK_BIND_CONTAINERS(Poco::UInt8)
BLUETUSK_BIND_CONTAINERS(Poco::Int16)
BLUETUSK_BIND_CONTAINERS(Poco::UInt16)
BLUETUSK_BIND_CONTAINERS(Poco::Int32)
BLUETUSK_BIND_CONTAINERS(Poco::UInt32)
BLUETUSK_BIND_CONTAINERS(Poco::Int64)
BLUETUSK_BIND_CONTAINERS(Poco::UInt64)
BLUETUSK_BIND_CONTAINERS(bool)
BLUETUSK_BIND_CONTAINERS(float)
BLUETUSK_BIND_CONTAINERS(double)
BLUETUSK_BIND_CONTAINERS(char)
BLUETUSK_BIND_CONTAINERS(std::string)
BLUETUSK_BIND_CONTAINERS(Poco::UTF16String)
BLUETUSK_BIND_CONTAINERS(Poco::Data::BLOB)
BLUETUSK_BIND_CONTAINERS(Poco::Data::CLOB)
BLUETUSK_BIND_CONTAINERS(Poco::DateTime)
BLUETUSK_BIND_CONTAINERS(Poco::Data::Date)
BLUETUSK_BIND_CONTAINERS(Poco::Data::Time)
BLUETUSK_BIND_CONTAINERS(Poco::UUID)
BLUETUSK_BIND_CONTAINERS(Poco::Data::NullData)
#undef BLUETUSK_BIND_CONTAINERS


void Binder::reset()
{
	_parameters.clear();
	_columns.clear();
}


const Parameters& Binder::parameters() const
{
	return _parameters;
}


bool Binder::isBulk() const
{
	return !_columns.empty();
}


std::vector<Parameters> Binder::bulkRows() const
{
	const std::size_t rows = _columns.empty() ? 0 : _columns.front().size();
	for (std::size_t c = 0; c < _columns.size(); ++c)
	{
		if (_columns[c].size() != rows)
			throw Poco::Data::BindingException("bulk binding: $" + std::to_string(c + 1) + " has " + std::to_string(_columns[c].size()) +
				" values but $1 has " + std::to_string(rows) + "; every container must have the same size");
	}
	std::vector<Parameters> result(rows, Parameters(_columns.size()));
	for (std::size_t c = 0; c < _columns.size(); ++c)
		for (std::size_t r = 0; r < rows; ++r) result[r][c] = _columns[c][r];
	return result;
}

} } // namespace BlueTusk::Data
